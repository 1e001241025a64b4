package workload

import (
	"math/bits"

	"github.com/gridsched/gridsched/distsum"
)

// Stats describes a workload.
type Stats struct {
	Name          string          `json:"name"`
	Records       int             `json:"records"`
	Jobs          int             `json:"jobs"`
	Skipped       map[string]int  `json:"skipped"`
	UnsortedSteps int             `json:"unsorted_steps"`
	NoEstimate    int             `json:"jobs_without_requested_time"`
	OverEstimate  int             `json:"jobs_running_longer_than_requested"`
	ZeroRuntime   int             `json:"zero_runtime_jobs"`
	FirstSubmit   float64         `json:"first_submit"`
	LastSubmit    float64         `json:"last_submit"`
	SpanDays      float64         `json:"span_days"`
	Processors    distsum.Summary `json:"processors"`
	SerialFrac    float64         `json:"serial_fraction"`
	Pow2Frac      float64         `json:"power_of_two_fraction_of_parallel"`
	Runtime       distsum.Summary `json:"runtime"`
	InterArrival  distsum.Summary `json:"inter_arrival"`
	Platform      int             `json:"platform_processors"`
	OfferedLoad   float64         `json:"offered_load"`
}

// Describe computes the statistics of w for a platform of pes processors
// (0: the header's MaxProcs). Offered load = Σ runtime × processors /
// (pes × (last submit − first submit)).
func (w *Workload) Describe(pes int) Stats {
	if pes <= 0 {
		pes = w.MaxProcs()
	}
	s := Stats{Name: w.Name, Records: w.Records, Jobs: len(w.Jobs), Skipped: w.Skipped, UnsortedSteps: w.UnsortedSteps, Platform: pes}
	n := len(w.Jobs)
	if n == 0 {
		return s
	}
	procs := make([]float64, n)
	run := make([]float64, n)
	var ia []float64
	work := 0.0
	serial, pow2 := 0, 0
	for i, j := range w.Jobs {
		procs[i] = float64(j.Procs)
		run[i] = j.Runtime
		work += j.Runtime * float64(j.Procs)
		switch {
		case j.Procs == 1:
			serial++
		case bits.OnesCount(uint(j.Procs)) == 1:
			pow2++
		}
		if j.Estimate <= 0 {
			s.NoEstimate++
		} else if j.Runtime > j.Estimate {
			s.OverEstimate++
		}
		if j.Runtime == 0 {
			s.ZeroRuntime++
		}
		if i > 0 {
			ia = append(ia, j.Submit-w.Jobs[i-1].Submit)
		}
	}
	s.FirstSubmit, s.LastSubmit = w.Jobs[0].Submit, w.Jobs[n-1].Submit
	span := s.LastSubmit - s.FirstSubmit
	s.SpanDays = span / 86400
	s.SerialFrac = float64(serial) / float64(n)
	if n > serial {
		s.Pow2Frac = float64(pow2) / float64(n-serial)
	}
	s.Processors, s.Runtime, s.InterArrival = distsum.Of(procs), distsum.Of(run), distsum.Of(ia)
	if pes > 0 && span > 0 {
		s.OfferedLoad = work / (float64(pes) * span)
	} else {
		s.OfferedLoad = 0 // undefined: no span or no platform size
	}
	return s
}
