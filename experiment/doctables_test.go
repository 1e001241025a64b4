package experiment

import (
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
