package report

import (
	"math"
	"strings"

	"github.com/gridsched/gridsched/gen"
)

// GridModelSection draws the application section of seed 004 (figures
// 4–8: gen.GridTables) as line figures, one line per table column.
func GridModelSection(seed uint64, figDir string) (Section, error) {
	sec := Section{
		Title: "Grid workload model (seed 004, §3: figures 4–8)",
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
		f, err := SweepFigure(figDir, "seed004-"+t.Name, title, t.Columns[0], t.YLabel, series, nil)
		if err != nil {
			return sec, err
		}
		f.Caption = t.Title + "."
		sec.Figures = append(sec.Figures, f)
	}
	return sec, nil
}
