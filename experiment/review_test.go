package experiment

import (
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportCountsRuns (review of issue 29, A5): `gridsched report` over
// result stores (no exports) counts each seed's runs in the title of its
// verdict summary: two stores of 12 runs each say 24 runs, not 0.
func TestReportCountsRuns(t *testing.T) {
	dir := t.TempDir()
	var stores []*Store
	for _, name := range []string{"small-a", "small-b"} {
		doc := strings.Replace(small, "name: small", "name: "+name+"\ndescription: a test of seed 004", 1) + `claims:
  - claim: EASY waits less than FCFS
    source: "§1, figure 1"
    metric: mean_wait
    param: policy
    better: easy
    worse: fcfs
    expect: better
    lower_is_better: true
`
		s := mustParse(t, doc, "")
		p := filepath.Join(dir, name, "store.db")
		os.MkdirAll(filepath.Dir(p), 0o755)
		sweep(t, s, p, Options{Workers: 2, Shard: 0, Shards: 1})
		st, err := OpenExisting(p)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		stores = append(stores, st)
	}
	page, err := WritePage(stores, filepath.Join(dir, "report"), ReportOptions{Title: "two stores"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	text := html.UnescapeString(string(b))
	if want := "claim by claim (default scale, 24 runs)"; !strings.Contains(text, want) {
		i := strings.Index(text, "claim by claim")
		t.Errorf("the seed's summary does not say %q; it says %q", want, text[max(0, i-20):min(len(text), max(0, i)+60)])
	}
}

// TestMTBFNoneDrawnApart (review of issue 29, A7): hierarchical-failures
// sweeps the manager MTBF with 0 meaning no failures; the parameter's
// label says so, and the figures draw 0 apart under the name "none".
func TestMTBFNoneDrawnApart(t *testing.T) {
	if got := sentinels("manager MTBF (s; 0 = none)"); len(got) != 1 || got[0].X != 0 || got[0].Name != "none" {
		t.Errorf("sentinels of the MTBF label: %+v", got)
	}
	if got := sentinels("nodes (count)"); len(got) != 0 {
		t.Errorf("sentinels of a plain label: %+v", got)
	}
	_, sec := quickSection(t, "hierarchical-failures")
	n := 0
	for _, f := range sec.Figures {
		if f.Text == "" && strings.Contains(f.Caption, "drawn apart") {
			n++
		}
	}
	if n == 0 {
		t.Errorf("no hierarchical-failures figure draws MTBF 0 apart")
	}
}
