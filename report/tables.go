package report

import (
	"math"
	"strings"

	"github.com/gridsched/gridsched/gen"
)

// GridModelSection draws the application section of seed 004 (figures
// 4–8: gen.GridTables) as line figures, one line per table column, each
// marked with the paper's figure it reproduces.
func GridModelSection(seed uint64) (Section, error) {
	sec := Section{
		Title: "Grid workload model (seed 004, §3: figures 4–8)",
		Seed:  "004",
		Description: "The effect of each parameter of the computational-grid workload model, drawn from the model " +
			"itself (gridsched workload grid-tables prints the numbers). The paper prints no values behind figures 4, 5, 6 " +
			"and 8; see docs/workloads.md for the parameters used.",
	}
	tables, err := gen.GridTables(seed)
	if err != nil {
		return sec, err
	}
	for _, t := range tables {
		var series []Series
		for c := 1; c < len(t.Columns); c++ {
			s := Series{Name: t.Columns[c]}
			for _, r := range t.Rows {
				s.X = append(s.X, r[0])
				s.Y = append(s.Y, r[c])
				s.Err = append(s.Err, math.NaN())
			}
			series = append(series, s)
		}
		title, _, _ := strings.Cut(t.Title, ":")
		unit := "" // the label names its unit, or it is a ratio
		if !strings.Contains(t.YLabel, "(") {
			unit = "ratio"
		}
		f, err := SweepFigure("seed004-"+t.Name, Sweep{Title: title, XLabel: t.Columns[0], Metric: Metric{Key: t.Name, Name: t.YLabel, Unit: unit, Min: math.NaN(), Max: math.NaN()}, Series: series,
			Paper: strings.ToLower(title)})
		if err != nil {
			return sec, err
		}
		f.Caption = t.Title + "."
		sec.Figures = append(sec.Figures, f)
	}
	return sec, nil
}
