package gen

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/sim"
)

// GangParams describe the gang-job workload of seed 003 (§1, after
// Moschakis & Karatza): Poisson arrivals with rate lambda, exponential
// service times with mean 1/mu, independent of the size; a job has
// U{small_min..small_max} tasks with probability q, else
// U{large_min..large_max}. The paper's grids: q = 0.25 with λ ∈ {1.75,
// 2, 2.25, 2.5}; q = 0.5 with λ ∈ {2, 2.25, 2.5, 2.75}; q = 0.75 with
// λ ∈ {2.5, 3, 3.5, 4}; mean service 1.
//
// Units: lambda and mu are per hour (the paper's time unit, docs/cloud.md),
// but the jobs are written in seconds, as SWF defines its fields: submit
// time and runtime are the hours drawn × 3600. The cloud model converts
// back to hours at its boundary (cloud.Hours).
type GangParams struct {
	Lambda   float64 `yaml:"lambda" label:"arrival rate λ (jobs per hour)"`
	Mu       float64 `yaml:"mu" label:"service rate μ (per hour)"`
	Q        float64 `yaml:"q" label:"probability q of a small job"`
	SmallMin int     `yaml:"small_min"`
	SmallMax int     `yaml:"small_max"`
	LargeMin int     `yaml:"large_min"`
	LargeMax int     `yaml:"large_max"`
}

// SecondsPerHour converts the gang model's hours to SWF seconds.
const SecondsPerHour = 3600

// DefaultGangParams: λ = 2, μ = 1, q = 0.5, sizes 1–16 and 17–32.
func DefaultGangParams() GangParams {
	return GangParams{Lambda: 2, Mu: 1, Q: 0.5, SmallMin: 1, SmallMax: 16, LargeMin: 17, LargeMax: 32}
}

func (p *GangParams) validate() error {
	switch {
	case !(p.Lambda > 0) || math.IsInf(p.Lambda, 0):
		return fmt.Errorf("lambda: arrival rate must be positive, got %g", p.Lambda)
	case !(p.Mu > 0) || math.IsInf(p.Mu, 0):
		return fmt.Errorf("mu: service rate must be positive, got %g", p.Mu)
	case !(p.Q >= 0 && p.Q <= 1):
		return fmt.Errorf("q: %g is not a probability", p.Q)
	case p.SmallMin < 1 || p.SmallMax < p.SmallMin:
		return fmt.Errorf("small_min, small_max: need 1 <= small_min <= small_max, got %d, %d", p.SmallMin, p.SmallMax)
	case p.LargeMin < 1 || p.LargeMax < p.LargeMin:
		return fmt.Errorf("large_min, large_max: need 1 <= large_min <= large_max, got %d, %d", p.LargeMin, p.LargeMax)
	}
	return nil
}

// MeanSize is the expected number of tasks per job.
func (p *GangParams) MeanSize() float64 {
	return p.Q*float64(p.SmallMin+p.SmallMax)/2 + (1-p.Q)*float64(p.LargeMin+p.LargeMax)/2
}

// Gang generates gang jobs.
type Gang struct {
	shared model.Shared // the jobs' trace fields (few distinct values)
	p      GangParams
	arr    distuv.Exponential
	svc    distuv.Exponential
	sizeR  *rand.Rand
	t      float64
	id     int64
}

// NewGang validates p and returns a generator for seed.
func NewGang(p GangParams, seed uint64) (*Gang, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	return &Gang{
		p:     p,
		arr:   distuv.Exponential{Rate: p.Lambda, Src: sim.Source(seed, "gang/arrival")},
		svc:   distuv.Exponential{Rate: p.Mu, Src: sim.Source(seed, "gang/service")},
		sizeR: sim.Stream(seed, "gang/size"),
	}, nil
}

// Next returns the next job.
func (g *Gang) Next() model.Job {
	g.t += g.arr.Rand()
	lo, hi := g.p.LargeMin, g.p.LargeMax
	if g.sizeR.Float64() < g.p.Q {
		lo, hi = g.p.SmallMin, g.p.SmallMax
	}
	n := lo + g.sizeR.IntN(hi-lo+1)
	g.id++
	j := model.NewJob(g.id, g.t*SecondsPerHour, g.svc.Rand()*SecondsPerHour, n)
	tf := model.UnknownTraceFields
	tf.ReqProcs, tf.Status = n, 1
	j.TraceFields = g.shared.Trace(tf)
	return j
}
