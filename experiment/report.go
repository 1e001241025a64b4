package experiment

import (
	"github.com/gridsched/gridsched/internal/atomicfile"
	"io"

	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gridsched/gridsched/report"
)

// Output file names in an experiment folder.
const (
	StoreFile     = "store.db"
	RunsFile      = "runs.csv"
	AggregateFile = "aggregate.csv"
	ReportFile    = "report.html"
	FiguresDir    = "figures"
)

// StoredSpec reads back the spec a store was made from.
func (st *Store) StoredSpec() (*Spec, error) {
	var s Spec
	if err := json.Unmarshal([]byte(st.Spec), &s); err != nil {
		return nil, fmt.Errorf("%s: cannot read its spec: %w", st.Path, err)
	}
	s.Label = st.Label
	return &s, nil
}

// Export writes runs.csv and aggregate.csv of the store into dir.
func Export(st *Store, dir string) ([]Row, *Spec, error) {
	s, err := st.StoredSpec()
	if err != nil {
		return nil, nil, err
	}
	rows, err := st.Rows()
	if err != nil {
		return nil, nil, err
	}
	rows = s.PairedRows(rows)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	for _, f := range []struct {
		name  string
		write func(io.Writer) error
	}{
		{RunsFile, func(w io.Writer) error { return WriteRuns(w, rows) }},
		{AggregateFile, func(w io.Writer) error { return WriteAggregate(w, Aggregate(rows, s.Metrics)) }},
		{ProvenanceFile, func(w io.Writer) error { return WriteProvenance(w, ProvenanceOf(st, s.Name, rows)) }},
	} {
		if err := writeAtomic(filepath.Join(dir, f.name), f.write); err != nil {
			return nil, nil, err
		}
	}
	return rows, s, nil
}

// Section builds the report section of a sweep, with its figures drawn
// into figDir ("" for none: SVG for the page only) in the default
// formats: SectionOf, then report.Render.
func Section(s *Spec, rows []Row, figDir string) (report.Section, error) {
	sec, err := SectionOf(s, rows)
	if err != nil {
		return sec, err
	}
	figs := make([]*report.Figure, len(sec.Figures))
	for i := range sec.Figures {
		figs[i] = &sec.Figures[i]
	}
	return sec, report.Render(figs, report.Output{Dir: figDir})
}

// SectionOf builds the report section of a sweep, its figures not yet
// drawn: for each metric and panel, its mean against the x axis with one
// line per series and the paper's numbers (references) as markers on the
// same axes; the claims with verdicts; the paper's numbers against ours;
// the aggregates.
func SectionOf(s *Spec, rows []Row) (report.Section, error) {
	return sectionOf(s, rows, report.NewPalette())
}

// sectionOf is SectionOf with the palette the page's figures share (a
// series of the same name is the same colour in every figure).
func sectionOf(s *Spec, rows []Row, pal *report.Palette) (report.Section, error) {
	title := s.Name
	if s.Label != "" {
		title += " (" + s.Label + ")"
	}
	sec := report.Section{Title: title, Description: s.Description}
	aggs := Aggregate(rows, s.Metrics)
	if len(aggs) == 0 {
		sec.Notes = append(sec.Notes, "No finished runs yet.")
		return sec, nil
	}
	figs, err := sweepFigures(s, aggs, pal)
	if err != nil {
		return sec, err
	}
	sec.Figures = figs
	var notes []string
	for _, m := range s.Metrics {
		for _, a := range aggs {
			if a.Metric == m && a.N < 2 {
				notes = append(notes, "Points with a single replication have no confidence interval (deterministic replays need only one).")
				break
			}
		}
	}
	if len(notes) > 0 {
		sec.Notes = append(sec.Notes, notes[0])
	}
	if len(s.Claims) > 0 {
		sec.Lead = append(sec.Lead, claimsTable(s, NewRowsData(rows)))
	}
	if len(s.References) > 0 {
		sec.Tables = append(sec.Tables, referenceTable(s, NewRowsData(rows)))
	}
	t := report.Table{Title: "Aggregates (mean ± 95% CI half-width, n replications)", Columns: []string{"configuration", "metric", "n", "mean", "± 95% CI", "sd"}}
	for _, a := range aggs {
		t.Rows = append(t.Rows, []string{a.ConfigID, a.Metric, strconv.Itoa(a.N), num(a.Mean), num(a.HalfWidth), num(a.SD)})
	}
	sec.Tables = append(sec.Tables, t)
	return sec, nil
}

func num(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	if math.Abs(v) >= 1e5 || (math.Abs(v) < 1e-3 && v != 0) {
		return strconv.FormatFloat(v, 'e', 3, 64)
	}
	return strconv.FormatFloat(v, 'f', 4, 64)
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '-'
	}, s)
}

// sameValue compares parameter values, numbers as numbers.
func sameValue(a, b string) bool {
	if a == b {
		return true
	}
	x, y := parseNum(a), parseNum(b)
	return !math.IsNaN(x) && x == y
}

// shortName drops file extensions and the ".params." of parameter paths
// for legends.
func shortName(s string) string {
	s = strings.TrimSuffix(strings.TrimSuffix(s, ".gz"), ".swf")
	s = strings.TrimPrefix(s, "workload.params.")
	return strings.TrimPrefix(s, "workload.")
}

// WriteOutputs writes the exports, figures and HTML report of the stores
// (exports next to each store, figures and report.html in dir); it returns
// the report's path. With several stores (reproduce) the report has one
// section per experiment; extra sections come last.
func WriteOutputs(title string, stores []*Store, dir string, extra ...report.Section) (string, error) {
	return WriteReport(title, stores, dir, ReportFile, extra...)
}

// WriteReport is WriteOutputs with the report's file name. With claims or
// references it also writes, per seed, the reproduction table as
// Markdown (reproduction-seedNNN.md in dir) and adds it to the report.
func WriteReport(title string, stores []*Store, dir, file string, extra ...report.Section) (string, error) {
	return WritePage(stores, dir, ReportOptions{Title: title, File: file, Extra: extra, Exports: true})
}

func writeFileAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, b, 0o644)
}
