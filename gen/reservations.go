package gen

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/sim"
)

// Job types of the reservation workloads, in the SWF queue field.
const (
	TypeTask         = 0 // a non-reserved (ordinary) task
	TypeReservation  = 1 // a synthetic reservation request
	TypeQuad         = 2 // trace-derived reservation of a 4-CPU node
	TypeDual         = 3 // trace-derived reservation of a 2-CPU node
	TypeCareless     = 4 // trace-derived reservation of any node
	reservationTypes = 3
)

// ReservationParams describe the synthetic reservation workload of seed
// 000 (§3.1): requests arrive as a Poisson process with mean interval
// lambda; each has a book-ahead time ~ U[bookahead_min, bookahead_max]
// (1–20) and a window (latest end − earliest start) ~ U[window_min,
// window_max] (5–50); its duration is (1 − flexibility) × window, since
// flexibility = (let − est − dur) / (let − est); its capability level is
// uniform on 1..levels (5). A request is a job with Submit = request
// time, WindowStart = Submit + book-ahead, WindowEnd = WindowStart +
// window, Runtime = Estimate = duration, Level, Procs = 1, queue
// TypeReservation. Background: that many non-reserved tasks, submitted at
// 0, runtimes ~ U[task_min, task_max] (5–50), queue TypeTask, each
// assigned round-robin to a resource when resources > 0 (Site, 0-based;
// Partition = Site + 1, as the SWF mapping has it).
type ReservationParams struct {
	Lambda       float64 `yaml:"lambda"`
	BookAheadMin float64 `yaml:"bookahead_min"`
	BookAheadMax float64 `yaml:"bookahead_max"`
	WindowMin    float64 `yaml:"window_min"`
	WindowMax    float64 `yaml:"window_max"`
	Flexibility  float64 `yaml:"flexibility"`
	Levels       int     `yaml:"levels"`
	Background   int     `yaml:"background"`
	Resources    int     `yaml:"resources"`
	TaskMin      float64 `yaml:"task_min"`
	TaskMax      float64 `yaml:"task_max"`
}

// DefaultReservationParams are seed 000's: λ = 2, flexibility 0.1.
func DefaultReservationParams() ReservationParams {
	return ReservationParams{Lambda: 2, BookAheadMin: 1, BookAheadMax: 20, WindowMin: 5, WindowMax: 50,
		Flexibility: 0.1, Levels: 5, TaskMin: 5, TaskMax: 50}
}

func checkRange(lo, hi string, a, b float64) error {
	if !(a >= 0) || !(b >= a) || math.IsInf(b, 0) {
		return fmt.Errorf("%s, %s: need 0 <= %s <= %s, got %g and %g", lo, hi, lo, hi, a, b)
	}
	return nil
}

func (p *ReservationParams) validate() error {
	switch {
	case !(p.Lambda > 0) || math.IsInf(p.Lambda, 0):
		return fmt.Errorf("lambda: mean interval must be positive, got %g", p.Lambda)
	case !(p.Flexibility >= 0 && p.Flexibility < 1):
		return fmt.Errorf("flexibility: must be in [0,1), got %g", p.Flexibility)
	case p.Levels < 1:
		return fmt.Errorf("levels: must be >= 1, got %d", p.Levels)
	case p.Background < 0:
		return fmt.Errorf("background: must be >= 0, got %d", p.Background)
	case p.Resources < 0:
		return fmt.Errorf("resources: must be >= 0, got %d", p.Resources)
	case p.WindowMin <= 0:
		return fmt.Errorf("window_min: must be positive, got %g", p.WindowMin)
	}
	for _, r := range []struct {
		lo, hi string
		a, b   float64
	}{{"bookahead_min", "bookahead_max", p.BookAheadMin, p.BookAheadMax}, {"window_min", "window_max", p.WindowMin, p.WindowMax}, {"task_min", "task_max", p.TaskMin, p.TaskMax}} {
		if err := checkRange(r.lo, r.hi, r.a, r.b); err != nil {
			return err
		}
	}
	return nil
}

// Reservations generates the synthetic reservation workload: first the
// background tasks, then the requests.
type Reservations struct {
	p                 ReservationParams
	arr               distuv.Exponential
	bookR, winR, levR *rand.Rand
	taskR             *rand.Rand
	t                 float64
	id                int64
	tasks             int
}

// NewReservations validates p and returns a generator for seed.
func NewReservations(p ReservationParams, seed uint64) (*Reservations, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	return &Reservations{
		p:     p,
		arr:   distuv.Exponential{Rate: 1 / p.Lambda, Src: sim.Source(seed, "reservations/arrival")},
		bookR: sim.Stream(seed, "reservations/bookahead"), winR: sim.Stream(seed, "reservations/window"),
		levR: sim.Stream(seed, "reservations/level"), taskR: sim.Stream(seed, "reservations/task"),
	}, nil
}

// Next returns the next job.
func (g *Reservations) Next() model.Job {
	g.id++
	if g.tasks < g.p.Background {
		j := model.NewJob(g.id, 0, uniform(g.taskR, g.p.TaskMin, g.p.TaskMax), 1)
		j.Estimate = j.Runtime
		j.Queue = TypeTask
		if g.p.Resources > 0 {
			j.Site = g.tasks % g.p.Resources
			j.Partition = j.Site + 1
		}
		g.tasks++
		return j
	}
	g.t += g.arr.Rand()
	book := uniform(g.bookR, g.p.BookAheadMin, g.p.BookAheadMax)
	win := uniform(g.winR, g.p.WindowMin, g.p.WindowMax)
	dur := (1 - g.p.Flexibility) * win
	j := model.NewJob(g.id, g.t, dur, 1)
	j.Estimate = dur
	j.Queue = TypeReservation
	j.WindowStart = g.t + book
	j.WindowEnd = j.WindowStart + win
	j.Level = 1 + g.levR.IntN(g.p.Levels)
	return j
}

// TraceReservationParams turn a trace into the real-workload experiment
// of seed 000 (§3.1, OSC cluster) on a cluster of QuadNodes 4-CPU and
// DualNodes 2-CPU nodes (OSC: 32 and 25, as its trace header states; the
// paper's text swaps the counts). Each job becomes a reservation with
// probability fraction (0.1), of type quad (needs a 4-CPU node), dual (a
// 2-CPU node) or careless (any node) with equal probability; reservation
// requests arrive as a Poisson process with mean interval lambda seconds
// (their trace submit times are replaced), the other jobs keep theirs.
// With trace runtime t and processors n, a job's duration on an m-CPU
// node is t·n/m (§3.1). The other jobs are non-reserved tasks, assigned
// round-robin to the nodes ("evenly distributed"), each with runtime and
// estimate t·n/m of its node. A reservation books one node for
// t·n/m of its type (careless: m = 2, the slower case, so the booking
// holds whichever node it gets); its window is that duration divided by
// (1 − flexibility), and its book-ahead time is half the window. Its
// level is 4 (quad, exactly), 2 (dual, exactly) or 1 (careless, any).
// The paper calls quad "2 CPUs" and dual "4 CPUs" in one sentence; we
// read quad = 4, dual = 2.
type TraceReservationParams struct {
	Fraction    float64 `yaml:"fraction"`
	Lambda      float64 `yaml:"lambda"`
	Flexibility float64 `yaml:"flexibility"`
	QuadNodes   int     `yaml:"quad_nodes"`
	DualNodes   int     `yaml:"dual_nodes"`
}

// DefaultTraceReservationParams: 10% reservations, λ = 240 s,
// flexibility 0, OSC's 32 4-CPU and 25 2-CPU nodes.
func DefaultTraceReservationParams() TraceReservationParams {
	return TraceReservationParams{Fraction: 0.1, Lambda: 240, QuadNodes: 32, DualNodes: 25}
}

func (p *TraceReservationParams) validate() error {
	switch {
	case !(p.Fraction >= 0 && p.Fraction <= 1):
		return fmt.Errorf("fraction: must be in [0,1], got %g", p.Fraction)
	case !(p.Lambda > 0) || math.IsInf(p.Lambda, 0):
		return fmt.Errorf("lambda: mean interval must be positive, got %g", p.Lambda)
	case !(p.Flexibility >= 0 && p.Flexibility < 1):
		return fmt.Errorf("flexibility: must be in [0,1), got %g", p.Flexibility)
	case p.QuadNodes < 0 || p.DualNodes < 0 || p.QuadNodes+p.DualNodes < 1:
		return fmt.Errorf("quad_nodes, dual_nodes: need at least one node and no negative count, got %d and %d", p.QuadNodes, p.DualNodes)
	}
	return nil
}

// NodeCPUs is the CPU count a trace-derived reservation's booking assumes.
func NodeCPUs(typ int) int {
	if typ == TypeQuad {
		return 4
	}
	return 2
}

// Platform is the cluster: QuadNodes nodes of capability 4, then
// DualNodes of capability 2, each one resource (one job at a time) of
// unit cost.
func (p TraceReservationParams) Platform() *model.Platform {
	n := p.QuadNodes + p.DualNodes
	pl := model.Uniform(fmt.Sprintf("%d 4-CPU + %d 2-CPU nodes", p.QuadNodes, p.DualNodes), n, 1)
	for i := range pl.Nodes {
		pl.Nodes[i].Capability = 4
		if i >= p.QuadNodes {
			pl.Nodes[i].Capability = 2
		}
		pl.Nodes[i].Cost = 1
	}
	return pl
}

// FromTrace converts jobs (in arrival order) as TraceReservationParams
// describe. The result is sorted by submit time by the caller's loader.
func FromTrace(jobs []model.Job, p TraceReservationParams, seed uint64) ([]model.Job, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	pick := sim.Stream(seed, "trace-reservations/pick")
	typ := sim.Stream(seed, "trace-reservations/type")
	arr := distuv.Exponential{Rate: 1 / p.Lambda, Src: sim.Source(seed, "trace-reservations/arrival")}
	out := make([]model.Job, 0, len(jobs))
	t := 0.0
	if len(jobs) > 0 {
		t = jobs[0].Submit
	}
	nodes := p.QuadNodes + p.DualNodes
	tasks := 0
	for _, j := range jobs {
		work := j.Runtime * float64(j.Procs)
		j.Procs, j.ReqProcs = 1, 1
		if pick.Float64() < p.Fraction {
			t += arr.Rand()
			j.Queue = TypeQuad + typ.IntN(reservationTypes)
			j.Submit = t
			m := NodeCPUs(j.Queue)
			dur := work / float64(m)
			win := dur / (1 - p.Flexibility)
			j.WindowStart = t + win/2
			j.WindowEnd = j.WindowStart + win
			j.Runtime, j.Estimate = dur, dur
			j.Level = [...]int{4, 2, 1}[j.Queue-TypeQuad]
		} else {
			j.Queue = TypeTask
			j.Site = tasks % nodes
			j.Partition = j.Site + 1
			m := 4
			if j.Site >= p.QuadNodes {
				m = 2
			}
			j.Runtime = work / float64(m)
			j.Estimate = j.Runtime
			tasks++
		}
		out = append(out, j)
	}
	return out, nil
}

// ReservationResources returns the resource set of seed 000's synthetic
// experiments: n single-processor resources whose capability levels are
// uniform on 1..levels (a request may use a resource whose level is at
// least its own), each with unit cost w = 1 (§3.1 simplifies w_j to 1).
func ReservationResources(n, levels int, seed uint64) (*model.Platform, error) {
	if n < 1 {
		return nil, fmt.Errorf("resources: need at least 1, got %d", n)
	}
	if levels < 1 {
		return nil, fmt.Errorf("levels: must be >= 1, got %d", levels)
	}
	r := sim.Stream(seed, "reservations/resource-level")
	p := model.Uniform(fmt.Sprintf("%d reservation resources", n), n, 1)
	for i := range p.Nodes {
		p.Nodes[i].Capability = 1 + r.IntN(levels)
		p.Nodes[i].Cost = 1
	}
	return p, nil
}
