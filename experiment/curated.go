package experiment

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gridsched/gridsched/report"
)

// ReportOptions shape a report of result stores.
type ReportOptions struct {
	Title string
	File  string // the page's file name in the folder (default report.html)
	// Formats are the figure files written (default svg and png).
	Formats []string
	// Extra sections: one with a Seed joins that seed's section (its
	// figures are the paper's: seed 004's model figures); the others
	// come last.
	Extra []report.Section
	// Exports: write each store's runs.csv, aggregate.csv and provenance
	// next to it, and the compact aggregates and reproduction tables
	// (reproduction-seedNNN.md) into the folder, as run, merge and
	// reproduce do; without, only the page and its figures are written
	// (gridsched report).
	Exports bool
}

// seedNames name the papers of the built-in catalogue.
var seedNames = map[string]string{
	"000": "dynamic advance reservations (SRRM and DRRM)",
	"001": "hierarchical load balancing on a grid",
	"002": "EASY backfilling on unstable resources",
	"003": "gang scheduling on an elastic cloud",
	"004": "a grid workload model",
}

// SeedTitle is the section title of a seed paper.
func SeedTitle(seed string) string {
	if n, ok := seedNames[seed]; ok {
		return "Seed " + seed + ": " + n
	}
	return "Seed " + seed
}

// WritePage writes the report of the stores into dir: each store's
// exports next to it, the figures (dir/figures, in the options' formats),
// the per-seed reproduction tables (reproduction-seedNNN.md) and the
// curated page (Curate). It returns the page's path.
func WritePage(stores []*Store, dir string, o ReportOptions) (string, error) {
	var specs []*Spec
	var secs []report.Section
	var exps []Experiment
	pal := report.NewPalette() // a series is one colour on the whole page
	for _, st := range stores {
		out := filepath.Dir(st.Path) // exports sit next to their store
		var rows []Row
		var s *Spec
		var err error
		if o.Exports {
			rows, s, err = Export(st, out)
		} else if s, err = st.StoredSpec(); err == nil {
			if rows, err = st.Rows(); err == nil {
				rows = s.PairedRows(rows)
			}
		}
		if err != nil {
			return "", err
		}
		sec, err := sectionOf(s, rows, pal)
		if err != nil {
			return "", err
		}
		if o.Exports {
			sec.Notes = append(sec.Notes, fmt.Sprintf("Exports: %s, %s and %s in %s; result store %s.", RunsFile, AggregateFile, ProvenanceFile, out, st.Path))
		} else {
			sec.Notes = append(sec.Notes, "Result store "+st.Path+".")
		}
		sec.Notes = append(sec.Notes, ProvenanceOf(st, s.Name, rows).Note())
		if s.Workload.Trace != "" {
			sec.Notes = append(sec.Notes, "Traces are the Parallel Workloads Archive's cleaned versions (\"-cln\"), with fewer jobs than the original logs.")
		}
		info := AggInfoOf(st, s)
		info.Runs = len(rows) // as the aggregates written with exports count them
		e := Experiment{Spec: s, Data: NewRowsData(rows), Info: info}
		if o.Exports {
			if e, err = writeAggregates(st, s, rows, filepath.Join(dir, AggregatesDir)); err != nil {
				return "", err
			}
		}
		specs = append(specs, s)
		secs = append(secs, sec)
		exps = append(exps, e)
	}
	var rts []ReproTable
	if o.Exports {
		var err error
		if rts, err = writeReproduction(dir, exps); err != nil {
			return "", err
		}
	} else {
		rts = ReproductionTables(exps)
	}
	summaries := map[string][]report.Table{}
	for _, rt := range rts {
		shown, rest := SeedSummary(rt)
		summaries[rt.Seed] = append(summaries[rt.Seed], shown)
		if len(rest.Rows) > 0 {
			summaries[rt.Seed+"/full"] = append(summaries[rt.Seed+"/full"], rest)
		}
		full := rt.Table
		full.Title = "Seed " + rt.Seed + ": every claim and number, ours against the paper's"
		if o.Exports {
			full.Title += " (also as reproduction-seed" + rt.Seed + ".md, with the points behind each verdict)"
		}
		summaries[rt.Seed+"/full"] = append(summaries[rt.Seed+"/full"], full)
	}
	page := report.Page{Title: o.Title, Sections: Curate(specs, secs, summaries, o.Extra)}
	if err := report.Render(page.Figures(), report.Output{Dir: filepath.Join(dir, FiguresDir), Formats: o.Formats}); err != nil {
		return "", err
	}
	file := o.File
	if file == "" {
		file = ReportFile
	}
	path := filepath.Join(dir, file)
	return path, page.WriteFile(path)
}

// SeedSummary is the verdict block a seed's section opens with, the
// page's form of the summary that opens the seed's doc
// (ReproTable.Summary): each claim with its place in the paper, the
// paper's words, what our runs show (the relative effects, per reading)
// and the verdict, under a title that counts the verdicts. The first
// SummaryRows claims are shown; the rest are returned to be folded.
func SeedSummary(rt ReproTable) (shown, rest report.Table) {
	cols := []string{"where", "claim", "paper", "ours", "verdict"}
	shown = report.Table{Title: fmt.Sprintf("Seed %s: what our runs say, claim by claim (%s scale, %d runs). %s", rt.Seed, scaleName(rt.Scale), rt.runs(), rt.tally()), Columns: cols}
	rest = report.Table{Title: fmt.Sprintf("Seed %s: the other claims", rt.Seed), Columns: cols}
	for i, r := range rt.Claims {
		c := r.Claim
		row := []string{c.Source, r.label(), orDefault(c.Paper, "–"), r.effects(), r.Verdict}
		if i < SummaryRows {
			shown.Rows = append(shown.Rows, row)
		} else {
			rest.Rows = append(rest.Rows, row)
		}
	}
	return shown, rest
}

// Curate arranges sweep sections (secs[i] of specs[i]) into the page a
// reader of the papers wants: one section per seed paper, in seed order,
// that opens with the seed's verdict summary (summaries[seed]) and shows
// the paper's figures (those that reproduce a figure or table of the
// paper, in the paper's order, with the paper's numbers as markers), and
// folds everything else — each experiment's other metrics, its claims
// and aggregate tables, the full reproduction table
// (summaries[seed+"/full"]). Experiments of no seed come last, folded.
// An extra section with a Seed joins that seed's section (its figures
// count as the paper's); the others come last as they are.
func Curate(specs []*Spec, secs []report.Section, summaries map[string][]report.Table, extra []report.Section) []report.Section {
	type paperFig struct {
		f     report.Figure
		c     cite
		order int
	}
	bySeed := map[string]*report.Section{}
	figs := map[string][]paperFig{}
	var seeds []string
	group := func(seed string) *report.Section {
		if g, ok := bySeed[seed]; ok {
			return g
		}
		g := &report.Section{Seed: seed, Title: SeedTitle(seed)}
		if seed == "" {
			g.Title = "Other experiments (no seed paper)"
			g.Description = "Experiments that reproduce no paper's figure: open each to see its figures and tables."
		}
		bySeed[seed] = g
		seeds = append(seeds, seed)
		return g
	}
	order := 0
	for i, sec := range secs {
		seed := SeedOf(specs[i])
		g := group(seed)
		fold := report.Fold{Notes: append([]string{specs[i].Description}, sec.Notes...)}
		if seed == "" {
			fold.Notes = sec.Notes
		}
		shown := 0
		for _, f := range sec.Figures {
			c, ok := citeOf(f.Paper)
			if seed == "" || !ok {
				fold.Figures = append(fold.Figures, f)
				continue
			}
			f.Caption = "From " + specs[i].Name + ". " + f.Caption
			figs[seed] = append(figs[seed], paperFig{f, c, order})
			order++
			shown++
		}
		fold.Tables = append(append(fold.Tables, sec.Lead...), sec.Tables...)
		var what []string
		if n := len(fold.Figures); n > 0 {
			what = append(what, fmt.Sprintf("%d more %s", n, plural(n, "figure", "figures")))
		}
		if shown > 0 {
			what = append(what, fmt.Sprintf("%d shown above", shown))
		}
		if len(fold.Tables) > 0 {
			what = append(what, fmt.Sprintf("%d %s", len(fold.Tables), plural(len(fold.Tables), "table", "tables")))
		}
		fold.Summary = sec.Title
		if len(what) > 0 {
			fold.Summary += ": " + strings.Join(what, ", ")
		}
		g.Folds = append(g.Folds, fold)
	}
	var rest []report.Section
	for _, e := range extra {
		if e.Seed == "" {
			rest = append(rest, e)
			continue
		}
		g := group(e.Seed)
		if g.Description == "" {
			g.Description = e.Description
		}
		g.Notes = append(g.Notes, e.Notes...)
		for _, f := range e.Figures {
			c, ok := citeOf(f.Paper)
			if !ok {
				g.Folds = append(g.Folds, report.Fold{Summary: f.Title, Figures: []report.Figure{f}})
				continue
			}
			figs[e.Seed] = append(figs[e.Seed], paperFig{f, c, order})
			order++
		}
		g.Tables = append(g.Tables, e.Tables...)
	}
	sort.Strings(seeds)
	if len(seeds) > 0 && seeds[0] == "" {
		seeds = append(seeds[1:], "") // no seed: last
	}
	var out []report.Section
	for _, seed := range seeds {
		g := bySeed[seed]
		g.Summary = summaries[seed]
		pf := figs[seed]
		sort.SliceStable(pf, func(i, j int) bool {
			if pf[i].c != pf[j].c {
				return pf[i].c.less(pf[j].c)
			}
			return pf[i].order < pf[j].order
		})
		for _, p := range pf {
			g.Figures = append(g.Figures, p.f)
		}
		if full := summaries[seed+"/full"]; len(full) > 0 {
			g.Folds = append(g.Folds, report.Fold{Summary: "Every claim and paper number of seed " + seed + " (the reproduction table)", Tables: full})
		}
		out = append(out, *g)
	}
	return append(out, rest...)
}
