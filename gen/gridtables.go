package gen

import (
	"fmt"

	"github.com/gridsched/gridsched/model"
)

// Table is a small data table (a figure's data).
type Table struct {
	Name    string // file-friendly name
	Title   string
	YLabel  string // what the values are
	Columns []string
	Rows    [][]float64
	// Summary: statistics, not a figure's data (the report draws no
	// figure of it).
	Summary bool
}

// GridTables reproduces the application section of seed 004 (§3,
// figures 4–8) as data, with the grid model of this package and one seed.
// The paper does not print the parameter values behind figures 4, 5, 6
// and 8; the values here are documented choices.
func GridTables(seed uint64) ([]Table, error) {
	const jobs = 10
	var out []Table

	// Figure 4: submission probability of each of 8 grid schedulers, by
	// position in the random order, for several α.
	alphas := []float64{1, 1.2, 1.5, 2}
	t4 := Table{Name: "fig4-site-probabilities", Title: "Figure 4: submission probability of the site at each position of the random order (8 sites)", Columns: []string{"position"}, YLabel: "submission probability"}
	for _, a := range alphas {
		t4.Columns = append(t4.Columns, fmt.Sprintf("alpha=%g", a))
	}
	order := []int{0, 1, 2, 3, 4, 5, 6, 7}
	for pos := 0; pos < 8; pos++ {
		row := []float64{float64(pos)}
		for _, a := range alphas {
			row = append(row, SiteProbabilities(8, a, order)[pos])
		}
		t4.Rows = append(t4.Rows, row)
	}
	out = append(out, t4)

	// Figure 5: inter-arrival times of 10 consecutive jobs for several
	// stretch factors s (same seed: the same jobs, stretched).
	ss := []float64{0.5, 1, 2, 4}
	t5 := Table{Name: "fig5-stretch", Title: "Figure 5: inter-arrival times (s) of 10 consecutive jobs for stretch factors s", Columns: []string{"job"}, YLabel: "inter-arrival time (s)"}
	gens := make([]*Grid, len(ss))
	for i, s := range ss {
		t5.Columns = append(t5.Columns, fmt.Sprintf("s=%g", s))
		p := DefaultGridParams()
		p.S = s
		g, err := NewGrid(p, seed)
		if err != nil {
			return nil, err
		}
		gens[i] = g
	}
	for k := 1; k <= jobs; k++ {
		row := []float64{float64(k)}
		for _, g := range gens {
			row = append(row, g.InterArrival())
		}
		t5.Rows = append(t5.Rows, row)
	}
	out = append(out, t5)

	// Figure 6: estimate factors e of 10 consecutive jobs for several
	// [E1, E2] (E1 = 1: pure runtimes are not under-estimated, §3).
	t6, err := rangeTable(seed, jobs, "fig6-estimate-factors", "Figure 6: estimate factor e(J) of 10 consecutive jobs for [E1, E2]",
		[][2]float64{{1, 1.5}, {1, 2}, {1, 3}, {1, 5}},
		func(p *GridParams, r [2]float64) { p.E1, p.E2 = r[0], r[1] },
		func(j *model.Job) float64 { return j.Estimate / j.Runtime })
	if err != nil {
		return nil, err
	}
	t6.YLabel = "estimate factor e(J)"
	out = append(out, t6)

	// Figure 7: e = 1, B ~ U[2, 6]: arrival ta, earliest completion
	// tc = ta + l, deadline td = ta + B·l of 10 consecutive jobs.
	p := DefaultGridParams()
	p.E1, p.E2, p.B1d, p.B2d = 1, 1, 2, 6
	g, err := NewGrid(p, seed)
	if err != nil {
		return nil, err
	}
	t7 := Table{Name: "fig7-deadlines", Title: "Figure 7: arrival ta, earliest completion tc = ta + l and deadline td = ta + B·l (e = 1, B ~ U[2,6]) of 10 consecutive jobs", Columns: []string{"job", "ta", "tc", "td"}, YLabel: "time (s)"}
	for k := 1; k <= jobs; k++ {
		j := g.Next()
		t7.Rows = append(t7.Rows, []float64{float64(k), j.Submit, j.Submit + j.Runtime, j.Deadline})
	}
	out = append(out, t7)

	// Figure 7 under the reading that reproduces it: the paper's runtime
	// tuple as a hyper-gamma of the runtime itself (not exponentiated).
	p.Runtime, p.RuntimeDraw = "paper-log2", "raw"
	if g, err = NewGrid(p, seed); err != nil {
		return nil, err
	}
	t7r := Table{Name: "fig7-deadlines-raw", Title: "Figure 7, runtime reading paper-log2 with the draw as the runtime (runtime_draw raw): ta, tc = ta + l, td = ta + B·l of 10 consecutive jobs", Columns: t7.Columns, YLabel: t7.YLabel}
	for k := 1; k <= jobs; k++ {
		j := g.Next()
		t7r.Rows = append(t7r.Rows, []float64{float64(k), j.Submit, j.Submit + j.Runtime, j.Deadline})
	}
	out = append(out, t7r)

	// Figure 7's statement ("the pure runtimes of these jobs differ little,
	// but their deadlines differ a lot") over 1,000 windows of 10 jobs, by
	// reading.
	t7s := Table{Name: "fig7-readings", Summary: true,
		Title:   "Figure 7 by reading (1 lublin/log, 2 lublin/raw, 3 paper-log2/log, 4 paper-log2/raw): medians over 1,000 windows of 10 consecutive jobs (e = 1, B ~ U[2,6])",
		Columns: []string{"reading", "runtime CV", "span CV", "runtime range (s)", "span range (s)", "windows with runtime CV < 0.5"}}
	for i, r := range [][2]string{{"lublin", "log"}, {"lublin", "raw"}, {"paper-log2", "log"}, {"paper-log2", "raw"}} {
		q := DefaultGridParams()
		q.E1, q.E2, q.B1d, q.B2d, q.Runtime, q.RuntimeDraw = 1, 1, 2, 6, r[0], r[1]
		g, err := NewGrid(q, seed)
		if err != nil {
			return nil, err
		}
		w := Figure7Windows(g, 1000, jobs)
		t7s.Rows = append(t7s.Rows, []float64{float64(i + 1), w.RuntimeCV, w.SpanCV, w.RuntimeRange, w.SpanRange, float64(w.Close)})
	}
	out = append(out, t7s)

	// Figure 8: pure migration costs of 10 consecutive jobs for three
	// [D1, D2] ranges.
	t8, err := rangeTable(seed, jobs, "fig8-migration", "Figure 8: pure migration cost (s) of 10 consecutive jobs for three [D1, D2]",
		[][2]float64{{1, 10}, {10, 100}, {100, 1000}},
		func(p *GridParams, r [2]float64) { p.D1, p.D2 = r[0], r[1] },
		func(j *model.Job) float64 { return j.MigrationCost })
	if err != nil {
		return nil, err
	}
	t8.YLabel = "pure migration cost (s)"
	out = append(out, t8)
	return out, nil
}

// rangeTable has one column per parameter range: the value get reads
// from each of the first n jobs of a grid workload whose parameters set
// adjusts for that range.
func rangeTable(seed uint64, n int, name, title string, ranges [][2]float64, set func(*GridParams, [2]float64), get func(*model.Job) float64) (Table, error) {
	t := Table{Name: name, Title: title, Columns: []string{"job"}}
	for k := 0; k < n; k++ {
		t.Rows = append(t.Rows, []float64{float64(k + 1)})
	}
	for _, r := range ranges {
		t.Columns = append(t.Columns, fmt.Sprintf("[%g,%g]", r[0], r[1]))
		p := DefaultGridParams()
		set(&p, r)
		g, err := NewGrid(p, seed)
		if err != nil {
			return Table{}, err
		}
		for k := 0; k < n; k++ {
			j := g.Next()
			t.Rows[k] = append(t.Rows[k], get(&j))
		}
	}
	return t, nil
}
