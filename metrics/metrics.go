// Package metrics turns a finished simulation into per-job records, a run
// summary and time series. Definitions follow Feitelson et al. (facts
// §2c): wait = start − submit; response = end − submit; slowdown =
// response / run; bounded slowdown = max(1, response / max(run, τ)) with
// τ = 10 s.
package metrics

import (
	"encoding/json"
	"iter"
	"math"

	"github.com/gridsched/gridsched/distsum"
	"github.com/gridsched/gridsched/engine"
)

// Tau is the bounded-slowdown threshold in seconds.
const Tau = 10.0

// Record is one job's outcome: the job (with its simulated start, end,
// allocation and state) and the metrics derived from it. Unknown values
// (a job that never started or never ended) are NaN.
type Record struct {
	*engine.Job
	Wait     float64
	Response float64
	Run      float64 // wall time of the last run (end − start)
	Slowdown float64 // response / run; NaN when run is 0
	BSLD     float64
}

// Records builds one record per job in arrival order. A run does not
// hold them (issue 19: 48 bytes per job): Summarize and the jobs.csv
// writer compute each job's record when they need it (RecordOf).
func Records(jobs []*engine.Job) []Record {
	out := make([]Record, len(jobs))
	for i, j := range jobs {
		out[i] = RecordOf(j)
	}
	return out
}

// RecordOf computes one job's record.
func RecordOf(j *engine.Job) Record {
	nan := math.NaN()
	r := Record{Job: j, Wait: nan, Response: nan, Run: nan, Slowdown: nan, BSLD: nan}
	if !math.IsNaN(j.Start) {
		r.Wait = j.Start - j.Submit
	}
	if !math.IsNaN(j.Start) && !math.IsNaN(j.End) {
		r.Run = j.End - j.Start
		r.Response = j.End - j.Submit
		if r.Run > 0 {
			r.Slowdown = r.Response / r.Run
		}
		r.BSLD = max(1, r.Response/max(r.Run, Tau))
	}
	return r
}

// Summary is the run summary.
type Summary struct {
	Policy      string          `json:"policy"`
	Workload    string          `json:"workload"`
	Platform    string          `json:"platform"`
	Processors  int             `json:"processors"`
	Jobs        int             `json:"jobs"`      // jobs simulated
	Completed   int             `json:"completed"` // ran to their end
	Killed      int             `json:"killed"`    // killed at their estimate
	Failed      int             `json:"failed"`    // lost to node failures
	Dropped     int             `json:"dropped"`   // preempted-and-dropped or rejected
	Unfinished  int             `json:"unfinished"`
	Skipped     map[string]int  `json:"skipped"` // trace records not simulated, by reason
	Wait        distsum.Summary `json:"wait"`
	Response    distsum.Summary `json:"response"`
	BSLD        distsum.Summary `json:"bounded_slowdown"`
	Utilization float64         `json:"utilization"`
	Makespan    float64         `json:"makespan"`
	Throughput  float64         `json:"throughput_per_hour"`
	FirstSubmit float64         `json:"first_submit"`
	// TimeUnit is the unit of every time of the summary ("" = seconds; "h" =
	// hours, the elastic cloud's model unit).
	TimeUnit string  `json:"time_unit,omitempty"`
	LastEnd  float64 `json:"last_end"`
	// Extra holds metrics of optional models (e.g. mean_qos of the
	// unstable-resource model).
	Extra map[string]float64 `json:"extra,omitempty"`
	// Provenance says what produced the summary (the code identity and
	// the content hash of every input file); set by the command line.
	Provenance map[string]any `json:"provenance,omitempty"`
}

// Ended reports whether any job ran to an end (completed or killed). Only
// then do the per-job metrics (wait, response, bounded slowdown) and the
// span metrics (utilization, makespan, throughput, first submit, last end)
// exist; summary.json leaves them out otherwise, rather than writing 0.
func (s *Summary) Ended() bool { return s.Completed+s.Killed > 0 }

// summaryJSON is Summary as written: the metrics that exist only when a
// job ran to an end are pointers, left out when nil. Same fields, names
// and order as Summary (TestSummaryJSONMatchesStruct checks it).
type summaryJSON struct {
	Policy      string             `json:"policy"`
	Workload    string             `json:"workload"`
	Platform    string             `json:"platform"`
	Processors  int                `json:"processors"`
	Jobs        int                `json:"jobs"`
	Completed   int                `json:"completed"`
	Killed      int                `json:"killed"`
	Failed      int                `json:"failed"`
	Dropped     int                `json:"dropped"`
	Unfinished  int                `json:"unfinished"`
	Skipped     map[string]int     `json:"skipped"`
	Wait        *distsum.Summary   `json:"wait,omitempty"`
	Response    *distsum.Summary   `json:"response,omitempty"`
	BSLD        *distsum.Summary   `json:"bounded_slowdown,omitempty"`
	Utilization *float64           `json:"utilization,omitempty"`
	Makespan    *float64           `json:"makespan,omitempty"`
	Throughput  *float64           `json:"throughput_per_hour,omitempty"`
	FirstSubmit *float64           `json:"first_submit,omitempty"`
	LastEnd     *float64           `json:"last_end,omitempty"`
	TimeUnit    string             `json:"time_unit,omitempty"`
	Extra       map[string]float64 `json:"extra,omitempty"`
	Provenance  map[string]any     `json:"provenance,omitempty"`
}

// MarshalJSON writes the summary with the metrics of Ended absent when
// no job ran to an end (a 0-job run has no mean wait, not a mean wait of
// 0).
func (s Summary) MarshalJSON() ([]byte, error) {
	j := summaryJSON{
		Policy: s.Policy, Workload: s.Workload, Platform: s.Platform, Processors: s.Processors,
		Jobs: s.Jobs, Completed: s.Completed, Killed: s.Killed, Failed: s.Failed,
		Dropped: s.Dropped, Unfinished: s.Unfinished, Skipped: s.Skipped, Extra: s.Extra, TimeUnit: s.TimeUnit,
		Provenance: s.Provenance,
	}
	if s.Ended() {
		j.Wait, j.Response, j.BSLD = &s.Wait, &s.Response, &s.BSLD
		j.Utilization, j.Makespan, j.Throughput = &s.Utilization, &s.Makespan, &s.Throughput
		j.FirstSubmit, j.LastEnd = &s.FirstSubmit, &s.LastEnd
	}
	return json.Marshal(j)
}

// Summarize computes the summary over the jobs that ran to an end
// (completed or killed), from their records (RecordOf, computed here, not
// held). Utilization is busy processor-time over available processor-time
// between the first submit and the last end, measured by the series (so
// nodes that are down do not count as available); without a series it
// uses procs × span.
func Summarize(jobs []*engine.Job, procs int, series *Series) Summary {
	s := Summary{Processors: procs, Jobs: len(jobs), Skipped: map[string]int{}}
	s.FirstSubmit = math.Inf(1)
	s.LastEnd = math.Inf(-1)
	busy := 0.0
	for _, j := range jobs {
		s.FirstSubmit = min(s.FirstSubmit, j.Submit)
		switch j.State {
		case engine.Completed:
			s.Completed++
		case engine.Killed:
			s.Killed++
		case engine.Failed:
			s.Failed++
		case engine.Dropped:
			s.Dropped++
		default:
			s.Unfinished++
		}
		if !math.IsNaN(j.End) {
			s.LastEnd = max(s.LastEnd, j.End)
		}
		if r := RecordOf(j); !math.IsNaN(r.Run) {
			busy += r.Run * float64(j.Procs)
		}
	}
	if len(jobs) == 0 || math.IsInf(s.LastEnd, -1) {
		s.FirstSubmit, s.LastEnd = 0, 0
		return s
	}
	// One buffer for the three samples in turn (distsum.Of sorts it).
	buf := make([]float64, 0, len(jobs))
	var sc distsum.Scratch // and one radix buffer
	sample := func(f func(Record) float64) distsum.Summary {
		buf = buf[:0]
		for _, j := range jobs {
			if j.State == engine.Completed || j.State == engine.Killed {
				buf = append(buf, f(RecordOf(j)))
			}
		}
		return sc.Of(buf)
	}
	s.Wait = sample(func(r Record) float64 { return r.Wait })
	s.Response = sample(func(r Record) float64 { return r.Response })
	s.BSLD = sample(func(r Record) float64 { return r.BSLD })
	s.Makespan = s.LastEnd - s.FirstSubmit
	if s.Makespan > 0 {
		s.Throughput = float64(s.Completed) / s.Makespan * 3600
		avail := float64(procs) * s.Makespan
		if series != nil {
			b, a := series.Integrals(s.FirstSubmit, s.LastEnd)
			busy, avail = b, a
		}
		if avail > 0 {
			s.Utilization = busy / avail
		}
	}
	return s
}

// Point is one step of the time series: the values hold from Time until
// the next point.
type Point struct {
	Time    float64
	Busy    int // busy processors
	Avail   int // processors on nodes that are up
	Queued  int // jobs waiting
	Running int
}

// Series records the step functions of busy processors, available
// processors and queue length. It is an engine.Observer; it keeps one
// point per instant at which a value changed.
//
// Points are kept in chunks that are never copied (the first ones small,
// then seriesChunk points each): a series has about two points per job,
// and a growing slice allocated and zeroed several times its final size
// (issue 19). A kept point's counts are int32 (24 bytes instead of
// Point's 40): processors are counted in int32 by the engine (Span), and
// a count of jobs beyond 2^31 − 1 is not a run this program can hold.
type Series struct {
	chunks  [][]point
	n       int
	running int
}

// point is a Point as kept.
type point struct {
	time                         float64
	busy, avail, queued, running int32
}

func (p point) Point() Point {
	return Point{Time: p.time, Busy: int(p.busy), Avail: int(p.avail), Queued: int(p.queued), Running: int(p.running)}
}

func keep(p Point) point {
	return point{time: p.Time, busy: int32(p.Busy), avail: int32(p.Avail), queued: int32(p.Queued), running: int32(p.Running)}
}

const seriesChunk = 1 << 14

var _ engine.Observer = (*Series)(nil)

func (s *Series) JobSubmitted(float64, *engine.Job) {}
func (s *Series) JobStarted(float64, *engine.Job)   { s.running++ }
func (s *Series) JobStopped(float64, *engine.Job)   { s.running-- }

// Len is the number of points.
func (s *Series) Len() int { return s.n }

// SeriesOf is a series of the given points (in time order), for a
// simulation that samples its own state (the elastic cloud's).
func SeriesOf(points []Point) *Series {
	kept := make([]point, len(points))
	for i, p := range points {
		kept[i] = keep(p)
	}
	return &Series{chunks: [][]point{kept}, n: len(points)}
}

// All yields the points in time order.
func (s *Series) All() iter.Seq[Point] {
	return func(yield func(Point) bool) {
		for _, c := range s.chunks {
			for _, p := range c {
				if !yield(p.Point()) {
					return
				}
			}
		}
	}
}

// Sample records the state after an event.
func (s *Series) Sample(now float64, busy, avail, queued int) {
	p := keep(Point{Time: now, Busy: busy, Avail: avail, Queued: queued, Running: s.running})
	if s.n > 0 {
		c := s.chunks[len(s.chunks)-1]
		last := &c[len(c)-1]
		if last.busy == p.busy && last.avail == p.avail && last.queued == p.queued && last.running == p.running {
			return
		}
		if last.time == now {
			*last = p
			return
		}
	}
	if k := len(s.chunks); k == 0 || len(s.chunks[k-1]) == cap(s.chunks[k-1]) {
		size := seriesChunk
		if k < 6 {
			size = 256 << k // 256, 512, …, 8192: small runs stay small
		}
		s.chunks = append(s.chunks, make([]point, 0, size))
	}
	c := &s.chunks[len(s.chunks)-1]
	*c = append(*c, p)
	s.n++
}

// Integrals returns ∫busy and ∫avail over [from, to).
func (s *Series) Integrals(from, to float64) (busy, avail float64) {
	var prev Point
	have := false
	add := func(p Point, end float64) {
		start := max(p.Time, from)
		if end > start {
			busy += float64(p.Busy) * (end - start)
			avail += float64(p.Avail) * (end - start)
		}
	}
	for p := range s.All() {
		if have {
			add(prev, min(to, p.Time))
		}
		prev, have = p, true
	}
	if have {
		add(prev, to)
	}
	return busy, avail
}
