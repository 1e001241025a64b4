package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gridsched/gridsched/experiment"
	"github.com/gridsched/gridsched/internal/testenv"
)

// TestVerdictsCommands: a reproduce folder's store gives its compact
// aggregates, its reproduction table and the seed doc's summary
// (verdicts export); verdicts --check passes on them and fails once a
// generated file is edited; list and compare print the store's numbers
// and refuse a value the sweep lacks.
func TestVerdictsCommands(t *testing.T) {
	testenv.TracesDir(t)
	dir := t.TempDir()
	res := filepath.Join(dir, "results")
	if _, err := run("reproduce", "hierarchical-sequential", "--quick", "--quiet", "--out", res); err != nil {
		t.Fatal(err)
	}
	docs := filepath.Join(dir, "docs")
	os.MkdirAll(docs, 0o755)
	for _, d := range experiment.SeedDocs {
		os.WriteFile(filepath.Join(docs, d), []byte("# "+d+"\n\nProse.\n"), 0o644)
	}
	out, err := runStdout("verdicts", "export", "--docs", docs, res)
	if err != nil {
		t.Fatal(err)
	}
	csv := filepath.Join(docs, "reproduction", "quick", "data", "hierarchical-sequential.csv")
	table := filepath.Join(docs, "reproduction", "quick", "reproduction-seed001.md")
	for _, want := range []string{"wrote " + csv, "wrote " + table, "wrote " + filepath.Join(docs, "hierarchical.md")} {
		if !strings.Contains(out, want) {
			t.Errorf("export output lacks %q:\n%s", want, out)
		}
	}
	md, _ := os.ReadFile(table)
	if !strings.Contains(string(md), "| hierarchical-sequential | quick | 4 |") || !strings.Contains(string(md), "Statistical load balancing finishes sequential jobs sooner than MinMin") {
		t.Errorf("table:\n%s", md)
	}
	doc, _ := os.ReadFile(filepath.Join(docs, "hierarchical.md"))
	if !strings.HasPrefix(string(doc), "# hierarchical.md\n\n"+experiment.SummaryBegin("001")) || !strings.HasSuffix(string(doc), "\nProse.\n") {
		t.Errorf("seed doc:\n%s", doc)
	}
	if out, err := runStdout("verdicts", "--check", "--docs", docs); err != nil || !strings.Contains(out, "match the committed aggregates") {
		t.Errorf("check after export: %v\n%s", err, out)
	}
	os.WriteFile(table, append(md, "edited\n"...), 0o644)
	if _, err := runStdout("verdicts", "--check", "--docs", docs); err == nil || !strings.Contains(err.Error(), table) {
		t.Errorf("check after an edit: %v", err)
	}
	if _, err := runStdout("verdicts", "--docs", docs); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.ReadFile(table); string(again) != string(md) {
		t.Error("verdicts did not restore the edited table")
	}

	store := filepath.Join(res, "hierarchical-sequential")
	// verify: the committed aggregates are what the store gives (their
	// header names its digest), and an edited number is found.
	agg, _ := os.ReadFile(csv)
	if !strings.Contains(string(agg), "\n# store: sha256:") {
		t.Errorf("the aggregates' header names no store digest:\n%.400s", agg)
	}
	out, err = runStdout("verdicts", "verify", "--docs", docs, res)
	if err != nil || !strings.Contains(out, csv+": matches ") || !strings.Contains(out, "(sha256:") {
		t.Errorf("verify: %v\n%s", err, out)
	}
	lines := strings.Split(string(agg), "\n")
	edited := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "stat,") && edited < 0 {
			f := strings.Split(l, ",")
			f[5] = "1" + f[5] // a mean changed by hand
			lines[i], edited = strings.Join(f, ","), i
		}
	}
	os.WriteFile(csv, []byte(strings.Join(lines, "\n")), 0o644)
	if _, err := runStdout("verdicts", "verify", "--docs", docs, res); err == nil || !strings.Contains(err.Error(), "differs from what store") {
		t.Errorf("verify after editing a mean (line %d): %v", edited+1, err)
	}
	os.WriteFile(csv, agg, 0o644)
	out, err = runStdout("verdicts", "list", store, "--metrics", "makespan", "--regime")
	if err != nil || !strings.Contains(out, "| policy | makespan | regime | n |") || !strings.Contains(out, "| grid-stat |") {
		t.Errorf("list: %v\n%s", err, out)
	}
	out, err = runStdout("verdicts", "compare", store, "--metric", "makespan", "--param", "policy", "--better", "grid-stat", "--worse", "grid-minmin", "--lower-is-better")
	if err != nil || !strings.Contains(out, "Verdict: **") || !strings.Contains(out, "grid-stat") {
		t.Errorf("compare: %v\n%s", err, out)
	}
	if _, err := runStdout("verdicts", "compare", store, "--metric", "makespan", "--param", "policy", "--better", "grid-stats", "--worse", "grid-minmin"); err == nil || !strings.Contains(err.Error(), `"grid-stats" is not a value of policy`) {
		t.Errorf("compare with a typo: %v", err)
	}
	if _, err := runStdout("verdicts", "compare", store, "--metric", "makespan", "--trend", "decreasing", "--from", "nope"); err == nil || !strings.Contains(err.Error(), "from: nope is not a value of the x axis") {
		t.Errorf("compare with a typo in --from: %v", err)
	}
}
