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
//
// Requests > 0 makes the workload finite: the background, then exactly
// that many requests (§3.1's reqNumber). BackgroundCover > 0 (needs
// Requests and Resources) sizes the background from the requests
// instead of Background: round-robin rounds of tasks until every
// resource's queue holds at least BackgroundCover × the request horizon
// (the latest window end) of work, so that a task runs on every resource
// whenever a window opens, as §3.1 has it ("在每个非预留队列中生成足够多
// 的……非预留任务,使得在每个预留任务开始执行时,在各个资源上都有正在运行的
// 非预留任务": each queue holds enough tasks that, whenever a reservation
// starts, a non-reserved task is running on every resource).
// DurationAt > 0 fixes the durations at that flexibility's,
// (1 − duration_at) × the drawn window, and widens the window to
// duration / (1 − flexibility) (the reading of the OSC experiment, whose
// durations come from the trace); 0 keeps the drawn window and shrinks
// the duration to (1 − flexibility) × window.
// RequestsAtStart submits every request at time 0 (its window unchanged):
// the reading of figure 13 where all reservations are booked before the
// resource fails.
type ReservationParams struct {
	Lambda          float64 `yaml:"lambda" label:"mean interval λ between requests (s)"`
	BookAheadMin    float64 `yaml:"bookahead_min"`
	BookAheadMax    float64 `yaml:"bookahead_max"`
	WindowMin       float64 `yaml:"window_min"`
	WindowMax       float64 `yaml:"window_max"`
	Flexibility     float64 `yaml:"flexibility" label:"flexibility of a reservation (share of its window)"`
	Levels          int     `yaml:"levels"`
	Background      int     `yaml:"background"`
	Resources       int     `yaml:"resources" label:"resources (resNumber)"`
	TaskMin         float64 `yaml:"task_min"`
	TaskMax         float64 `yaml:"task_max"`
	Requests        int     `yaml:"requests" label:"requests (reqNumber)"`
	BackgroundCover float64 `yaml:"background_cover"`
	RequestsAtStart bool    `yaml:"requests_at_start" label:"every request submitted at time 0"`
	DurationAt      float64 `yaml:"duration_at" label:"durations fixed at flexibility"`
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
	case !(p.DurationAt >= 0 && p.DurationAt < 1):
		return fmt.Errorf("duration_at: must be in [0,1), got %g", p.DurationAt)
	case p.Requests < 0:
		return fmt.Errorf("requests: must be >= 0, got %d", p.Requests)
	case p.Requests > MaxJobs:
		return fmt.Errorf("requests: %d is over the limit of %d jobs (raise it with --max-jobs)", p.Requests, MaxJobs)
	case p.Background > MaxJobs:
		return fmt.Errorf("background: %d is over the limit of %d jobs (raise it with --max-jobs)", p.Background, MaxJobs)
	case p.Resources > model.MaxNodes:
		return fmt.Errorf("resources: %d is over the limit of %d nodes (raise it with --max-nodes)", p.Resources, model.MaxNodes)
	case !(p.BackgroundCover >= 0) || math.IsInf(p.BackgroundCover, 0):
		return fmt.Errorf("background_cover: must be >= 0, got %g", p.BackgroundCover)
	case p.BackgroundCover > 0 && p.Requests == 0:
		return fmt.Errorf("background_cover: needs requests > 0 (the horizon is the requests' latest window end)")
	case p.BackgroundCover > 0 && p.TaskMax <= 0:
		return fmt.Errorf("background_cover: needs task_max > 0")
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
	requests          int
	pre               []model.Job                // background_cover: the whole workload, drawn up front
	shared            model.Shared               // the jobs' trace fields (one per resource and type)
	sites             map[int]*model.ModelFields // a task's model fields, one per resource
}

// NewReservations validates p and returns a generator for seed.
func NewReservations(p ReservationParams, seed uint64) (*Reservations, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	g := &Reservations{
		p:     p,
		arr:   distuv.Exponential{Rate: 1 / p.Lambda, Src: sim.Source(seed, "reservations/arrival")},
		bookR: sim.Stream(seed, "reservations/bookahead"), winR: sim.Stream(seed, "reservations/window"),
		levR: sim.Stream(seed, "reservations/level"), taskR: sim.Stream(seed, "reservations/task"),
	}
	if p.BackgroundCover > 0 {
		if p.Resources < 1 {
			return nil, fmt.Errorf("background_cover: needs resources > 0 (set resources, or the experiment's platform.nodes)")
		}
		g.sizeBackground()
	}
	return g, nil
}

// sizeBackground draws the requests first (their streams are their own,
// so they are the requests the unsized generator would give), then
// round-robin rounds of tasks until every resource holds BackgroundCover
// × the horizon of work, and keeps the workload in g.pre.
func (g *Reservations) sizeBackground() {
	reqs := make([]model.Job, g.p.Requests)
	horizon := 0.0
	for i := range reqs {
		reqs[i] = g.request()
		horizon = max(horizon, reqs[i].WindowEnd)
	}
	need := g.p.BackgroundCover * horizon
	work := make([]float64, g.p.Resources)
	var tasks []model.Job
	for {
		short := false
		for r := range work {
			if work[r] < need {
				short = true
			}
		}
		if !short {
			break
		}
		for range work {
			j := g.task()
			work[j.Site] += j.Runtime
			tasks = append(tasks, j)
		}
	}
	g.p.Background = len(tasks)
	g.pre = append(tasks, reqs...)
	for i := range g.pre {
		g.pre[i].ID = int64(i + 1)
	}
}

// Done reports whether a finite workload (requests > 0) is exhausted.
func (g *Reservations) Done() bool {
	return g.p.Requests > 0 && g.requests >= g.p.Requests
}

// Background is the number of background tasks (sized or given).
func (g *Reservations) Background() int { return g.p.Background }

// Next returns the next job.
func (g *Reservations) Next() model.Job {
	if g.pre != nil {
		j := g.pre[g.id]
		g.id++
		if j.Queue != TypeTask {
			g.requests++
		}
		return j
	}
	if g.tasks < g.p.Background {
		j := g.task()
		g.id++
		j.ID = g.id
		return j
	}
	j := g.request()
	g.id++
	j.ID = g.id
	g.requests++
	return j
}

func (g *Reservations) task() model.Job {
	j := model.NewJob(0, 0, uniform(g.taskR, g.p.TaskMin, g.p.TaskMax), 1)
	j.Estimate = j.Runtime
	tf := model.UnknownTraceFields
	tf.Queue = TypeTask
	if g.p.Resources > 0 {
		site := g.tasks % g.p.Resources
		m, ok := g.sites[site]
		if !ok {
			v := model.UnknownModelFields
			v.Site = site
			m = &v
			if g.sites == nil {
				g.sites = map[int]*model.ModelFields{}
			}
			g.sites[site] = m
		}
		j.ModelFields = m
		tf.Partition = site + 1
	}
	j.TraceFields = g.shared.Trace(tf)
	g.tasks++
	return j
}

func (g *Reservations) request() model.Job {
	g.t += g.arr.Rand()
	book := uniform(g.bookR, g.p.BookAheadMin, g.p.BookAheadMax)
	win := uniform(g.winR, g.p.WindowMin, g.p.WindowMax)
	dur := (1 - g.p.Flexibility) * win
	if g.p.DurationAt > 0 {
		dur = (1 - g.p.DurationAt) * win
		win = dur / (1 - g.p.Flexibility)
	}
	j := model.NewJob(0, g.t, dur, 1)
	if g.p.RequestsAtStart {
		j.Submit = 0
	}
	j.Estimate = dur
	tf := model.UnknownTraceFields
	tf.Queue = TypeReservation
	j.TraceFields = g.shared.Trace(tf)
	m := model.UnknownModelFields
	m.WindowStart = g.t + book
	m.WindowEnd = m.WindowStart + win
	m.Level = 1 + g.levR.IntN(g.p.Levels)
	j.ModelFields = &m
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
//
// Background says when the non-reserved tasks are queued: "start" (the
// default) queues every task at the trace's first submit time on its
// node, as the synthetic set-up queues its tasks at 0 (§3.1: "其余的非预留
// 任务平均分配到各个节点上", the other, non-reserved tasks are evenly
// distributed over the nodes); "trace" keeps their trace submit times
// (the reservations then arrive within days of a 677-day trace, and the
// nodes are almost idle while they run).
type TraceReservationParams struct {
	Fraction    float64 `yaml:"fraction" label:"share of jobs made reservations"`
	Lambda      float64 `yaml:"lambda" label:"mean interval λ between requests (s)"`
	Flexibility float64 `yaml:"flexibility" label:"flexibility of a reservation (share of its window)"`
	QuadNodes   int     `yaml:"quad_nodes"`
	DualNodes   int     `yaml:"dual_nodes"`
	Background  string  `yaml:"background"`
	// Requests: keep only the first Requests reservation requests to
	// arrive (0: all). §3.1 defines reqNumber as "我们选取前 reqNumber 个到
	// 来的预留请求作为实验的考察对象" (we take the first reqNumber requests
	// to arrive as the objects of the experiment) and the OSC section never
	// gives it; the jobs picked as requests after the first Requests are
	// left out (they become neither requests nor tasks, so the background
	// is the same for every Requests).
	Requests int `yaml:"requests" label:"requests (reqNumber)"`
}

// DefaultTraceReservationParams: 10% reservations, λ = 240 s,
// flexibility 0, OSC's 32 4-CPU and 25 2-CPU nodes.
func DefaultTraceReservationParams() TraceReservationParams {
	return TraceReservationParams{Fraction: 0.1, Lambda: 240, QuadNodes: 32, DualNodes: 25, Background: "start"}
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
	case p.Requests < 0:
		return fmt.Errorf("requests: must be >= 0 (0: all), got %d", p.Requests)
	case p.Background != "start" && p.Background != "trace" && p.Background != "":
		return fmt.Errorf("background: want start or trace, got %q", p.Background)
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
	t0 := t
	nodes := p.QuadNodes + p.DualNodes
	tasks, requests := 0, 0
	for _, j := range jobs {
		// The input's trace and model fields are shared with it: changed
		// copies are attached (model.Job).
		tf, mf := *j.TraceFields, *j.ModelFields
		work := j.Runtime * float64(j.Procs)
		j.Procs, tf.ReqProcs = 1, 1
		if pick.Float64() < p.Fraction {
			t += arr.Rand()
			kind := TypeQuad + typ.IntN(reservationTypes)
			if requests++; p.Requests > 0 && requests > p.Requests {
				continue
			}
			tf.Queue = kind
			j.Submit = t
			m := NodeCPUs(tf.Queue)
			dur := work / float64(m)
			win := dur / (1 - p.Flexibility)
			mf.WindowStart = t + win/2
			mf.WindowEnd = mf.WindowStart + win
			j.Runtime, j.Estimate = dur, dur
			mf.Level = [...]int{4, 2, 1}[tf.Queue-TypeQuad]
		} else {
			tf.Queue = TypeTask
			if p.Background != "trace" {
				j.Submit = t0
			}
			mf.Site = tasks % nodes
			tf.Partition = mf.Site + 1
			m := 4
			if mf.Site >= p.QuadNodes {
				m = 2
			}
			j.Runtime = work / float64(m)
			j.Estimate = j.Runtime
			tasks++
		}
		j.TraceFields, j.ModelFields = &tf, &mf
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
