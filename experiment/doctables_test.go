package experiment

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocTableMarkers: a doc's generated results table is replaced
// between its markers, the prose around it kept; a doc without the
// markers, or without the end marker, is an error.
func TestDocTableMarkers(t *testing.T) {
	tab := DocTable{Name: "x"}
	doc := "# Doc\n\nBefore.\n\n" + docTableBegin("x") + "old table\n" + docTableEnd + "After.\n"
	got, err := WithDocTable([]byte(doc), tab, "new table\n")
	if err != nil {
		t.Fatal(err)
	}
	want := "# Doc\n\nBefore.\n\n" + docTableBegin("x") + "new table\n" + docTableEnd + "After.\n"
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if _, err := WithDocTable([]byte("# Doc\n"), tab, "t\n"); err == nil || !strings.Contains(err.Error(), "no \"<!-- results: x") {
		t.Errorf("no markers: %v", err)
	}
	if _, err := WithDocTable([]byte(docTableBegin("x")+"t\n"), tab, "t\n"); err == nil || !strings.Contains(err.Error(), "no end marker") {
		t.Errorf("no end marker: %v", err)
	}
}

// TestDocTableNumbers: cells are whole numbers with thousands separators
// from 100 on, three significant digits below; a mean over several
// replications carries its 95% CI half-width.
func TestDocTableNumbers(t *testing.T) {
	for v, want := range map[float64]string{14888.4: "14,888", 1234567: "1,234,567", 135.2: "135", 17.25: "17.2", 0.65432: "0.654", -2500: "-2,500"} {
		if got := tableNum(v); got != want {
			t.Errorf("tableNum(%v) = %q, want %q", v, got, want)
		}
	}
	if got := statCell(Stat{N: 1, Mean: 3618}); got != "3,618" {
		t.Errorf("one replication: %q", got)
	}
	// n = 2, sd = 1: half-width t(0.975, 1) · 1/√2 = 12.706 / 1.414 = 8.98.
	if got := statCell(Stat{N: 2, Mean: 10, SD: 1}); got != "10 ± 8.98" {
		t.Errorf("two replications: %q", got)
	}
}

// TestDocTableWithoutAggregates: with no aggregates committed the table
// says how to make them.
func TestDocTableWithoutAggregates(t *testing.T) {
	tab := DocTable{Name: "x", Label: "quick", Experiments: []string{"policy-catalogue"}, Headings: []string{"A"}, Metrics: []string{"mean_wait"}}
	md, err := tab.Markdown(t.TempDir())
	if err != nil || !strings.Contains(md, "No aggregates of policy-catalogue at the quick label") {
		t.Errorf("%q %v", md, err)
	}
}

// docAggregates is a hand-made aggregates file of four configurations:
// node_select u and random at 32 and 16 nodes, with mean wait and
// response (32 nodes: ample; 16 nodes: scarce under random, between
// under u).
const docAggregates = `# gridsched verdict aggregates (docs/reproduction/README.md); written by gridsched verdicts export
# experiment: tab
# label: paper
# spec: x
# code: test
# date: 2026-01-31
# runs: 8
kind,config,base,metric,n,mean,sd,base_mean,diff_mean,diff_sd,config_id,node_select,platform.nodes,policy
config,0,,,,,,,,,"node_select=random,platform.nodes=32,policy=easy",random,32,easy
config,1,,,,,,,,,"node_select=u,platform.nodes=32,policy=easy",u,32,easy
config,2,,,,,,,,,"node_select=random,platform.nodes=16,policy=easy",random,16,easy
config,3,,,,,,,,,"node_select=u,platform.nodes=16,policy=easy",u,16,easy
stat,0,,mean_wait,2,10,0,,,,,,,
stat,0,,mean_response,2,1010,0,,,,,,,
stat,1,,mean_wait,2,20,0,,,,,,,
stat,1,,mean_response,2,1020,0,,,,,,,
stat,2,,mean_wait,2,5000,0,,,,,,,
stat,2,,mean_response,2,6000,0,,,,,,,
stat,3,,mean_wait,2,400,0,,,,,,,
stat,3,,mean_response,2,5000,0,,,,,,,
`

// TestDocTableRowsAndSplit: a table indexed by swept parameters (Rows)
// gets one column per Split value and metric, its rows in the order the
// values first appear, and a regime column per configuration;
// rows that do not tell two configurations apart are an error, not a
// silently overwritten cell.
func TestDocTableRowsAndSplit(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, AggregatesDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, AggregatesDir, "tab.csv"), []byte(docAggregates), 0o644); err != nil {
		t.Fatal(err)
	}
	tab := DocTable{Name: "x", Label: "paper", Experiments: []string{"tab"}, Headings: []string{""},
		Metrics: []string{"mean_wait", RegimeMetric}, Rows: []string{"platform.nodes"}, Split: "node_select"}
	md, err := tab.Markdown(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := "| platform.nodes | node_select=random: wait (s) | node_select=random: regime | node_select=u: wait (s) | node_select=u: regime |\n" +
		"|---|---:|---|---:|---|\n" +
		"| 32 | 10 ± 0 | ample | 20 ± 0 | ample |\n" +
		"| 16 | 5,000 ± 0 | scarce | 400 ± 0 | between |\n"
	if !strings.HasPrefix(md, want) {
		t.Errorf("got\n%s\nwant it to start with\n%s", md, want)
	}
	if !strings.Contains(md, "(tab: 8 runs, 2026-01-31, code test). Regime: scarce when") || strings.Contains(md, " at ;") {
		t.Errorf("footer: %s", md)
	}
	// Rows by node_select then nodes: grouped by node_select.
	tab.Rows, tab.Split = []string{"node_select", "platform.nodes"}, ""
	if md, err = tab.Markdown(dir); err != nil || !strings.Contains(md, "| random | 32 | 10 ± 0 | ample |\n| random | 16 | 5,000 ± 0 | scarce |\n| u | 32 | 20 ± 0 | ample |\n") {
		t.Errorf("%v\n%s", err, md)
	}
	tab.Where = map[string]string{"node_select": "u"}
	if md, err = tab.Markdown(dir); err != nil || strings.Contains(md, "| random |") || !strings.Contains(md, "at node_select = u;") {
		t.Errorf("where: %v\n%s", err, md)
	}
	tab.Rows, tab.Where = []string{"platform.nodes"}, nil
	if _, err := tab.Markdown(dir); err == nil || !strings.Contains(err.Error(), "two configurations in the row 32") {
		t.Errorf("ambiguous rows: %v", err)
	}
	tab.Rows = []string{"workload.skip"}
	if _, err := tab.Markdown(dir); err == nil || !strings.Contains(err.Error(), "has no parameter workload.skip") {
		t.Errorf("a row parameter not swept: %v", err)
	}
}

// TestDocTablesSkipADocWithoutThem: a docs folder whose doc has neither a
// table's marker nor its aggregates (a test's) is left as it is; once the
// aggregates are there, a missing marker is an error.
func TestDocTablesSkipADocWithoutThem(t *testing.T) {
	docs := t.TempDir()
	path := filepath.Join(docs, "unstable.md")
	out := map[string][]byte{path: []byte("# Doc\n")}
	if err := regenerateDocTables(docs, out); err != nil || string(out[path]) != "# Doc\n" {
		t.Fatalf("%v %q", err, out[path])
	}
	agg, err := os.ReadFile(filepath.Join("..", "docs", "reproduction", "paper", AggregatesDir, "easy-unstable-fig6.csv"))
	if err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(docs, "reproduction", "paper", AggregatesDir)
	if err := os.MkdirAll(data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "easy-unstable-fig6.csv"), agg, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := regenerateDocTables(docs, out); err == nil || !strings.Contains(err.Error(), `no "<!-- results: unstable-fig6`) {
		t.Errorf("aggregates without a marker: %v", err)
	}
}
