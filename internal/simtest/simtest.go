// Package simtest is the test harness for policies and the engine: job
// builders, a runner that fails the test on an invalid plan, and an ASCII
// Gantt chart for readable failure messages.
package simtest

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/model"
)

// JobB builds a model.Job: J(1).At(0).Procs(2).Run(10).Est(10).Obj().
type JobB struct{ j model.Job }

// J starts a job with id: submitted at 0, 1 processor, runtime 1, no
// estimate.
func J(id int64) *JobB { return &JobB{j: model.NewJob(id, 0, 1, 1)} }

func (b *JobB) At(t float64) *JobB    { b.j.Submit = t; return b }
func (b *JobB) Procs(n int) *JobB     { b.j.Procs = n; return b }
func (b *JobB) Run(r float64) *JobB   { b.j.Runtime = r; return b }
func (b *JobB) Est(e float64) *JobB   { b.j.Estimate = e; return b }
func (b *JobB) Obj() model.Job        { return b.j }
func (b *JobB) User(u int) *JobB      { b.trace().User = u; return b }
func (b *JobB) Status(s int) *JobB    { b.trace().Status = s; return b }
func (b *JobB) Partition(p int) *JobB { b.trace().Partition = p; return b }

// trace attaches a copy of the job's trace fields to change (they are
// shared: model.Job).
func (b *JobB) trace() *model.TraceFields {
	t := *b.j.TraceFields
	b.j.TraceFields = &t
	return &t
}

// Jobs builds every builder.
func Jobs(bs ...*JobB) []model.Job {
	out := make([]model.Job, len(bs))
	for i, b := range bs {
		out[i] = b.Obj()
	}
	return out
}

// Run simulates jobs on p under pol and fails t on an invalid plan.
func Run(t testing.TB, p *model.Platform, jobs []model.Job, pol engine.Policy, opts engine.Options) *engine.Engine {
	t.Helper()
	e := engine.New(p, jobs, pol, opts)
	err := e.Run()
	if f, ok := pol.(engine.FinishingPolicy); ok {
		err = f.Finish(e.View(), err)
	}
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return e
}

// Starts maps job id to start time (NaN if it never started).
func Starts(e *engine.Engine) map[int64]float64 {
	m := map[int64]float64{}
	for _, j := range e.Jobs() {
		m[j.ID] = j.Start
	}
	return m
}

// Gantt draws the schedule: one row per processor (nodes expanded to
// their processors, in node order), one column per time unit of width
// scale, each cell the last digit of the job id running there, '.' when
// idle. Only meant for small hand-made cases.
func Gantt(e *engine.Engine, scale float64) string {
	v := e.View()
	type row struct{ cells []byte }
	var rows []row
	first := make([]int, v.NumNodes())
	for n := 0; n < v.NumNodes(); n++ {
		first[n] = len(rows)
		for k := 0; k < v.Node(n).PEs; k++ {
			rows = append(rows, row{})
		}
	}
	end := 0.0
	for _, j := range e.Jobs() {
		if !math.IsNaN(j.End) {
			end = max(end, j.End)
		}
	}
	width := int(math.Ceil(end / scale))
	for i := range rows {
		rows[i].cells = []byte(strings.Repeat(".", width))
	}
	jobs := append([]*engine.Job(nil), e.Jobs()...)
	sort.Slice(jobs, func(a, b int) bool { return jobs[a].ID < jobs[b].ID })
	for _, j := range jobs {
		if math.IsNaN(j.Start) {
			continue
		}
		used := map[int]int{}
		for _, s := range j.Alloc {
			for n := s.First; n < s.First+s.Count; n++ {
				for k := 0; k < int(s.PEs); k++ {
					r := first[n] + used[int(n)]
					used[int(n)]++
					// Place on the first row of the node that is idle then.
					for r < len(rows) && r < first[n]+v.Node(int(n)).PEs && cellBusy(rows[r].cells, j.Start, j.End, scale) {
						r++
					}
					if r >= len(rows) {
						continue
					}
					for c := int(j.Start / scale); c < int(math.Ceil(j.End/scale)) && c < width; c++ {
						rows[r].cells[c] = byte('0' + j.ID%10)
					}
				}
			}
		}
	}
	var b strings.Builder
	for i, r := range rows {
		fmt.Fprintf(&b, "p%-3d %s\n", i, r.cells)
	}
	return b.String()
}

func cellBusy(cells []byte, start, end, scale float64) bool {
	for c := int(start / scale); c < int(math.Ceil(end/scale)) && c < len(cells); c++ {
		if cells[c] != '.' {
			return true
		}
	}
	return false
}
