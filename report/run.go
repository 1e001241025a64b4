package report

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Gantt charts are drawn for runs up to these sizes.
const (
	ganttMaxJobs  = 3000
	ganttMaxNodes = 2048
)

func readCSV(path string) ([]string, [][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	recs, err := r.ReadAll()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) == 0 {
		return nil, nil, fmt.Errorf("%s: empty", path)
	}
	return recs[0], recs[1:], nil
}

func column(head []string, name string) int {
	for i, h := range head {
		if h == name {
			return i
		}
	}
	return -1
}

// RunSection builds the report section of one simulation from the
// folder `gridsched simulate --out DIR` wrote (jobs.csv, series.csv),
// writing figures into figDir.
func RunSection(dir, figDir string) (Section, error) {
	sec := Section{Title: "Simulation " + filepath.Base(filepath.Clean(dir))}
	if b, err := os.ReadFile(filepath.Join(dir, "summary.json")); err == nil {
		sec.Description = "Summary: " + strings.Join(strings.Fields(string(b)), " ")
	}
	head, rows, err := readCSV(filepath.Join(dir, "jobs.csv"))
	if err != nil {
		return sec, err
	}
	c := func(n string) int { return column(head, n) }
	iSub, iStart, iEnd, iProcs, iRun, iAlloc, iID := c("submission_time"), c("starting_time"), c("finish_time"), c("requested_number_of_resources"), c("execution_time"), c("allocated_resources"), c("job_id")
	if iSub < 0 || iStart < 0 || iEnd < 0 || iProcs < 0 || iRun < 0 || iAlloc < 0 || iID < 0 {
		return sec, fmt.Errorf("%s: not a gridsched jobs.csv", filepath.Join(dir, "jobs.csv"))
	}
	var sizes, runs, waits, inter []float64
	var gantt []GanttJob
	maxNode := 0
	lastSub := -1.0
	for _, r := range rows {
		sub := ParseFloat(r[iSub])
		sizes = append(sizes, ParseFloat(r[iProcs]))
		if v := ParseFloat(r[iRun]); v == v {
			runs = append(runs, v)
		}
		st, en := ParseFloat(r[iStart]), ParseFloat(r[iEnd])
		if st == st {
			waits = append(waits, st-sub)
		}
		if lastSub >= 0 {
			inter = append(inter, sub-lastSub)
		}
		lastSub = sub
		if st == st && en == en {
			id, _ := strconv.ParseInt(r[iID], 10, 64)
			g := GanttJob{ID: id, Start: st, End: en}
			for _, part := range strings.Fields(r[iAlloc]) {
				a, b, _ := strings.Cut(part, "-")
				lo, _ := strconv.Atoi(a)
				hi := lo
				if b != "" {
					hi, _ = strconv.Atoi(b)
				}
				g.Nodes = append(g.Nodes, [2]int{lo, hi})
				maxNode = max(maxNode, hi)
			}
			gantt = append(gantt, g)
		}
	}
	add := func(f Figure, err error) error {
		if err != nil {
			return err
		}
		sec.Figures = append(sec.Figures, f)
		return nil
	}
	if sh, srows, err := readCSV(filepath.Join(dir, "series.csv")); err == nil {
		it, iu, iq, ir := column(sh, "time"), column(sh, "utilization"), column(sh, "queued_jobs"), column(sh, "running_jobs")
		var t, u, q, rn []float64
		for _, r := range srows {
			t = append(t, ParseFloat(r[it]))
			u = append(u, ParseFloat(r[iu]))
			q = append(q, ParseFloat(r[iq]))
			rn = append(rn, ParseFloat(r[ir]))
		}
		if err := add(StepFigure(figDir, "utilization", "Utilization over time", "busy / available processors", t, [][]float64{u}, nil)); err != nil {
			return sec, err
		}
		if err := add(StepFigure(figDir, "queue", "Queued and running jobs over time", "jobs", t, [][]float64{q, rn}, []string{"queued", "running"})); err != nil {
			return sec, err
		}
	}
	if len(gantt) <= ganttMaxJobs && maxNode < ganttMaxNodes {
		if err := add(GanttFigure(figDir, "gantt", "Schedule (Gantt chart)", gantt, maxNode+1)); err != nil {
			return sec, err
		}
	} else {
		sec.Notes = append(sec.Notes, fmt.Sprintf("No Gantt chart: %d jobs on %d nodes is more than a chart can show (limits %d jobs, %d nodes).", len(gantt), maxNode+1, ganttMaxJobs, ganttMaxNodes))
	}
	if err := add(HistogramFigure(figDir, "sizes", "Job sizes", "processors (power-of-two bins)", sizes)); err != nil {
		return sec, err
	}
	if err := add(CDFFigure(figDir, "runtimes", "Runtimes and waits", "seconds", [][]float64{runs, waits}, []string{"runtime", "wait"}, true)); err != nil {
		return sec, err
	}
	if err := add(CDFFigure(figDir, "interarrival", "Inter-arrival times", "seconds", [][]float64{inter}, []string{"inter-arrival"}, true)); err != nil {
		return sec, err
	}
	return sec, nil
}
