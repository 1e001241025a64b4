package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gridsched/gridsched/experiment"
	"github.com/gridsched/gridsched/internal/testenv"
	"github.com/gridsched/gridsched/report"
)

// TestQuickReproductionFigures renders every figure of `reproduce --quick`
// and checks each: valid SVG colour syntax everywhere (files and the
// inline copies in report.html), no figure with a single x value where
// the sweep has several, a unit on every metric axis, and every paper
// number (references:) whose configuration ran drawn as a marker in
// exactly one figure. `reproduce NAME` then writes its own report and
// leaves report.html alone; index.html lists both.
func TestQuickReproductionFigures(t *testing.T) {
	if testing.Short() {
		t.Skip("runs reproduce --quick (shrunk: about 30 s of CPU)")
	}
	testenv.TracesDir(t)
	out, _ := quickReproduction(t)
	root, _ := filepath.Abs("..")
	wd, _ := os.Getwd()
	os.Chdir(root)
	defer os.Chdir(wd)
	svgs, _ := filepath.Glob(filepath.Join(out, experiment.FiguresDir, "*.svg"))
	if len(svgs) < 50 {
		t.Fatalf("%d SVG figures", len(svgs))
	}
	for _, f := range svgs {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bad := report.SVGColourErrors(string(b)); len(bad) > 0 {
			t.Errorf("%s: invalid colours %v", filepath.Base(f), bad[:min(3, len(bad))])
		}
	}
	full, err := os.ReadFile(filepath.Join(out, experiment.ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	if bad := report.SVGColourErrors(string(full)); len(bad) > 0 {
		t.Errorf("report.html: %d invalid colours, e.g. %v", len(bad), bad[0])
	}
	for _, seed := range []string{"000", "001", "002", "003"} {
		md, err := os.ReadFile(filepath.Join(out, "reproduction-seed"+seed+".md"))
		if err != nil || !strings.Contains(string(md), "| verdict |") {
			t.Errorf("seed %s: no reproduction table (%v)", seed, err)
		}
	}
	// Every figure, from the stores.
	for _, name := range experiment.Builtin() {
		st, err := experiment.OpenExisting(filepath.Join(out, name, experiment.StoreFile))
		if err != nil {
			t.Fatal(err)
		}
		s, err := st.StoredSpec()
		if err != nil {
			t.Fatal(err)
		}
		rows, err := st.Rows()
		st.Close()
		if err != nil {
			t.Fatal(err)
		}
		// The figures' metadata again (no files: the reproduction
		// wrote them, checked above; only the SVG is rendered).
		sec, err := experiment.Section(s, rows, "")
		if err != nil {
			t.Fatal(err)
		}
		xs := map[string]bool{}
		x := s.Plot.X
		for _, r := range rows {
			xs[r.Params[x]] = true
		}
		refs := 0
		for _, f := range sec.Figures {
			if len(xs) > 1 && f.XValues < 2 {
				t.Errorf("%s: figure %s has one x value; the sweep has %d", name, f.Name, len(xs))
			}
			if !strings.HasSuffix(f.YLabel, ")") || f.XLabel == "" {
				t.Errorf("%s: figure %s: axis labels %q / %q (no unit)", name, f.Name, f.XLabel, f.YLabel)
			}
			if f.Refs > 0 && !strings.Contains(string(f.SVG), "paper") {
				t.Errorf("%s: figure %s has paper markers but no legend entry", name, f.Name)
			}
			refs += f.Refs
		}
		aggs := experiment.Aggregate(rows, s.Metrics)
		want := 0
		for _, r := range s.References {
			for _, a := range aggs {
				if experiment.ReferenceMatches(&r, &a) {
					want++
					break
				}
			}
		}
		if refs != want {
			t.Errorf("%s: %d paper markers drawn, %d references have runs", name, refs, want)
		}
	}
	// A selection gets its own report; report.html stays.
	before, _ := os.ReadFile(filepath.Join(out, experiment.ReportFile))
	res, err := runShrunk("reproduce", "lublin-load", "--quick", "--quiet", "--out", out)
	if err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(filepath.Join(out, experiment.ReportFile))
	if string(before) != string(after) || !strings.Contains(res, "report-lublin-load.html") {
		t.Errorf("reproduce lublin-load replaced report.html or wrote no own report: %s", res)
	}
	index, _ := os.ReadFile(filepath.Join(out, "index.html"))
	if !strings.Contains(string(index), `href="report.html"`) || !strings.Contains(string(index), `href="report-lublin-load.html"`) {
		t.Errorf("index.html does not list both reports")
	}
}
