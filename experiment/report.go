package experiment

import (
	"github.com/gridsched/gridsched/internal/atomicfile"
	"io"

	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
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
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	for _, f := range []struct {
		name  string
		write func(io.Writer) error
	}{
		{RunsFile, func(w io.Writer) error { return WriteRuns(w, rows) }},
		{AggregateFile, func(w io.Writer) error { return WriteAggregate(w, Aggregate(rows, s.Metrics)) }},
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
	figs, err := sweepFigures(s, aggs)
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
		sec.Lead = append(sec.Lead, claimsTable(s, aggs))
	}
	if len(s.References) > 0 {
		sec.Tables = append(sec.Tables, referenceTable(s, aggs))
	}
	t := report.Table{Title: "Aggregates (mean ± 95% CI half-width, n replications)", Columns: []string{"configuration", "metric", "n", "mean", "± 95% CI", "sd"}}
	for _, a := range aggs {
		t.Rows = append(t.Rows, []string{a.ConfigID, a.Metric, strconv.Itoa(a.N), num(a.Mean), num(a.HalfWidth), num(a.SD)})
	}
	sec.Tables = append(sec.Tables, t)
	return sec, nil
}

// ClaimColumns are the columns of a claims table.
var ClaimColumns = []string{"source", "claim", "paper", "ours", "ours / paper", "relative effect (95% CI)", "verdict", "detail", "note"}

// ClaimRow is a claim's row of a claims table.
func ClaimRow(s *Spec, c *Claim, aggs []Agg) []string {
	v := c.Check(s, aggs)
	paper, ours, ratio := c.Paper, v.Short, "–"
	if c.Ratio != 0 {
		if paper == "" {
			paper = fmt.Sprintf("ratio %s/%s = %g", c.Better, c.Worse, c.Ratio)
		}
		if !math.IsNaN(v.Ratio) {
			ours += fmt.Sprintf("; ratio %.3g", v.Ratio)
			ratio = fmt.Sprintf("%.2f", v.Ratio/c.Ratio)
		}
	}
	if paper == "" {
		paper = "(no number; the claim is qualitative)"
	}
	eff := "–"
	if !math.IsNaN(v.Effect) {
		eff = fmt.Sprintf("%+.1f%% ± %.1f%%", 100*v.Effect, 100*v.EffectHW)
	}
	return []string{c.Source, c.Claim, paper, ours, ratio, eff, v.Agrees, v.Ours, c.Note}
}

func claimsTable(s *Spec, aggs []Agg) report.Table {
	ct := report.Table{Title: "The paper's claims and our results (verdicts from the 95% CIs; a tie is not a win)", Columns: ClaimColumns}
	for i := range s.Claims {
		ct.Rows = append(ct.Rows, ClaimRow(s, &s.Claims[i], aggs))
	}
	return ct
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

// reproductionTables writes, per seed, the reproduction table of every
// claim and reference number as Markdown (reproduction-seedNNN.md in dir)
// and returns them for the page.
func reproductionTables(dir string, specs []*Spec, aggs [][]Agg) ([]ReproTable, error) {
	rts := ReproductionTables(specs, aggs)
	for _, rt := range rts {
		md := filepath.Join(dir, "reproduction-seed"+rt.Seed+".md")
		if err := writeFileAtomic(md, []byte(rt.Markdown())); err != nil {
			return nil, err
		}
	}
	return rts, nil
}

// claimSummary is a seed's verdict summary for the page: each claim of
// the seed's experiments with its place in the paper and its verdict.
func claimSummary(seed string, specs []*Spec, aggs [][]Agg) report.Table {
	t := report.Table{Title: "Seed " + seed + ": verdicts", Columns: []string{"experiment", "where in the paper", "claim", "verdict"}}
	for i, s := range specs {
		if SeedOf(s) != seed {
			continue
		}
		for k := range s.Claims {
			c := &s.Claims[k]
			r := ClaimRow(s, c, aggs[i])
			t.Rows = append(t.Rows, []string{s.Name, c.Source, c.Claim, r[6]})
		}
	}
	return t
}

func writeFileAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, b, 0o644)
}

// ReproTable is one seed's reproduction table.
type ReproTable struct {
	Seed  string
	Scale string // the specs' label (quick, paper) or "" (default)
	Table report.Table
}

var seedOf = regexp.MustCompile(`(?i)\bseed (\d{3})\b`)

// SeedOf is the seed (paper) a spec reproduces, from "Seed NNN" in its
// description or plot title ("" if none).
func SeedOf(s *Spec) string {
	for _, t := range []string{s.Description, s.Plot.Title} {
		if m := seedOf.FindStringSubmatch(t); m != nil {
			return m[1]
		}
	}
	return ""
}

// ReproductionTables builds, per seed, one table of every claim and every
// reference number of its experiments (statement, paper, ours, verdict),
// from the aggregates (aggs[i] belongs to specs[i]).
func ReproductionTables(specs []*Spec, aggs [][]Agg) []ReproTable {
	bySeed := map[string]*ReproTable{}
	var order []string
	cols := []string{"experiment", "where in the paper", "statement", "paper", "ours", "ours / paper", "relative effect (95% CI)", "verdict"}
	for i, s := range specs {
		seed := SeedOf(s)
		if seed == "" || (len(s.Claims) == 0 && len(s.References) == 0) {
			continue
		}
		rt := bySeed[seed]
		if rt == nil {
			rt = &ReproTable{Seed: seed, Scale: s.Label, Table: report.Table{Title: "Seed " + seed + ": reproduction table", Columns: cols}}
			bySeed[seed] = rt
			order = append(order, seed)
		}
		for k := range s.Claims {
			c := &s.Claims[k]
			r := ClaimRow(s, c, aggs[i])
			rt.Table.Rows = append(rt.Table.Rows, []string{s.Name, c.Source, c.Claim, r[2], r[3], r[4], r[5], r[6]})
		}
		notRun := map[string]int{}
		var sources []string
		for k := range s.References {
			ref := &s.References[k]
			var parts []string
			for _, key := range sortedKeys(ref.Where) {
				parts = append(parts, shortName(key)+"="+fmt.Sprint(ref.Where[key]))
			}
			ours, ratio, verdict := refVerdict(ref, aggs[i])
			if ours == "no run" {
				if notRun[ref.Source] == 0 {
					sources = append(sources, ref.Source)
				}
				notRun[ref.Source]++
				continue
			}
			rt.Table.Rows = append(rt.Table.Rows, []string{s.Name, ref.Source, s.metricInfo(ref.Metric).Name + " at " + strings.Join(parts, ", "),
				strconv.FormatFloat(ref.Value, 'g', -1, 64), ours, ratio, "–", verdict})
		}
		for _, src := range sources {
			rt.Table.Rows = append(rt.Table.Rows, []string{s.Name, src, fmt.Sprintf("%d more numbers of %s", notRun[src], src), "–", "no run", "–", "–", "not run at this scale"})
		}
	}
	sort.Strings(order)
	var out []ReproTable
	for _, s := range order {
		out = append(out, *bySeed[s])
	}
	return out
}

// Markdown renders the table as a Markdown document.
func (rt ReproTable) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Seed %s: reproduction table\n\n", rt.Seed)
	scale := rt.Scale
	if scale == "" {
		scale = "default"
	}
	fmt.Fprintf(&b, "Generated by `gridsched reproduce` from the result stores (%s scale); do not edit by hand. Verdicts come from the 95%% confidence intervals (a tie is not a win): agrees / same direction, different size / partly / no difference detected / disagrees.\n\n", scale)
	cell := func(s string) string {
		return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "|", "\\|")
	}
	b.WriteString("| " + strings.Join(rt.Table.Columns, " | ") + " |\n")
	b.WriteString("|" + strings.Repeat(" --- |", len(rt.Table.Columns)) + "\n")
	for _, r := range rt.Table.Rows {
		cs := make([]string, len(r))
		for i, c := range r {
			cs[i] = cell(c)
		}
		b.WriteString("| " + strings.Join(cs, " | ") + " |\n")
	}
	return b.String()
}

// refVerdict compares a paper number with our aggregate at its
// configuration: ours (mean ± 95% CI, n), the ratio ours / paper, and
// whether the paper's number lies within our CI.
func refVerdict(ref *Reference, aggs []Agg) (ours, ratio, verdict string) {
	for j := range aggs {
		a := &aggs[j]
		if !ref.matches(a) {
			continue
		}
		hw := a.HalfWidth
		if math.IsNaN(hw) {
			hw = 0
		}
		ours, ratio = fmt.Sprintf("%s ± %s (n=%d)", num(a.Mean), num(hw), a.N), "–"
		if ref.Value != 0 {
			ratio = fmt.Sprintf("%.2f", a.Mean/ref.Value)
		}
		switch {
		case math.Abs(a.Mean-ref.Value) <= hw:
			verdict = "paper's number within our 95% CI"
		case (a.Mean > 0) == (ref.Value > 0):
			verdict = "same sign, outside our 95% CI"
		default:
			verdict = "opposite sign, outside our 95% CI"
		}
		return ours, ratio, verdict
	}
	return "no run", "–", "not run at this scale"
}
