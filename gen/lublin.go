package gen

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/sim"
)

// LublinSet is one parameter set of the Lublin–Feitelson model (facts
// §2a; the constants of m_lublin99.c).
type LublinSet struct {
	SerialProb float64 `yaml:"serial_prob"` // P(job uses 1 node)
	Pow2Prob   float64 `yaml:"pow2_prob"`   // with u ≤ serial+pow2 the size exponent is rounded
	ULow       float64 `yaml:"ulow"`        // two-stage uniform of log2(size): low end
	UMed       float64 `yaml:"umed"`        // breakpoint
	UHi        float64 `yaml:"uhi"`         // high end = log2(system size)
	UProb      float64 `yaml:"uprob"`       // weight of [ULow, UMed]
	A1         float64 `yaml:"a1"`          // gamma #1 of ln(runtime): shape
	B1         float64 `yaml:"b1"`          // gamma #1: scale
	A2         float64 `yaml:"a2"`          // gamma #2: shape
	B2         float64 `yaml:"b2"`          // gamma #2: scale
	PA         float64 `yaml:"pa"`          // weight of gamma #1 = pa·nodes + pb, clamped to [0,1]
	PB         float64 `yaml:"pb"`
	AArr       float64 `yaml:"aarr"` // gamma of ln(inter-arrival) at rush hour: shape (× ARAR)
	BArr       float64 `yaml:"barr"` // scale
	ARAR       float64 `yaml:"arar"` // arrive-rush-to-all ratio
	ANum       float64 `yaml:"anum"` // gamma whose CDF shapes the daily cycle: shape
	BNum       float64 `yaml:"bnum"` // scale
}

// The three published parameter sets.
var (
	LublinTypeless = LublinSet{0.244, 0.576, 0.8, 4.5, 7, 0.86, 4.2, 0.94, 312, 0.03, -0.0054, 0.78, 10.2303, 0.4871, 1.0225, 8.1737, 3.9631}
	LublinBatch    = LublinSet{0.2927, 0.6686, 1.2, 5.0, 7, 0.875, 6.57, 0.823, 639.1, 0.0156, -0.003, 0.6986, 6.0415, 0.8531, 1.0519, 6.1271, 5.2740}
	LublinInteract = LublinSet{0.1541, 0.625, 1.0, 3.0, 5.5, 0.705, 3.8351, 0.6605, 7.073, 0.6856, -0.0118, 0.9156, 6.5510, 0.6621, 0.9797, 8.9186, 3.6680}
)

// Constants of the reference code.
const (
	lublinRuntimeCap = 12   // ln(runtime) ≤ 12 (runtime ≤ 162,754 s)
	lublinArrivalCap = 13   // ln(inter-arrival) ≤ 13
	lublinBuckets    = 48   // half-hour buckets per day
	lublinBucketLen  = 1800 // seconds
	lublinDayStart   = 11   // cyclic day start, in buckets as the code loops
)

// LublinParams configures the generator.
type LublinParams struct {
	// Nodes is the system size; 0 keeps the sets' UHi (128 nodes). When
	// set, UHi = log2(Nodes) and UMed = UHi − 2.5 (the code's guidance)
	// in every set, unless the set was given explicitly.
	Nodes int `yaml:"nodes"`
	// JobTypes: two arrival streams, interactive (SWF queue 0) and batch
	// (queue 1), each with its own set; false: the typeless set, every job
	// queue 0.
	JobTypes bool `yaml:"job_types"`
	// ArrivalScale multiplies every inter-arrival time (< 1: more load).
	ArrivalScale float64    `yaml:"arrival_scale" label:"inter-arrival time scale factor"`
	Typeless     *LublinSet `yaml:"typeless"`
	Batch        *LublinSet `yaml:"batch"`
	Interactive  *LublinSet `yaml:"interactive"`
}

// DefaultLublinParams: typeless, 128 nodes, the published sets.
func DefaultLublinParams() LublinParams {
	t, b, i := LublinTypeless, LublinBatch, LublinInteract
	return LublinParams{ArrivalScale: 1, Typeless: &t, Batch: &b, Interactive: &i}
}

func (p *LublinParams) defaults() {
	if p.ArrivalScale == 0 {
		p.ArrivalScale = 1
	}
	pick := func(given *LublinSet, def LublinSet) *LublinSet {
		s := def
		if given != nil {
			s = *given
		}
		// Nodes sets the system size of every set whose size bounds are
		// still the published ones.
		if p.Nodes > 0 && s.UHi == def.UHi && s.UMed == def.UMed {
			s.UHi = math.Log2(float64(p.Nodes))
			s.UMed = s.UHi - 2.5
		}
		return &s
	}
	p.Typeless = pick(p.Typeless, LublinTypeless)
	p.Batch = pick(p.Batch, LublinBatch)
	p.Interactive = pick(p.Interactive, LublinInteract)
}

// Validate names the first parameter out of range.
func (s *LublinSet) validate(name string) error {
	prob := map[string]float64{"serial_prob": s.SerialProb, "pow2_prob": s.Pow2Prob, "uprob": s.UProb}
	for _, k := range []string{"serial_prob", "pow2_prob", "uprob"} {
		if v := prob[k]; !(v >= 0 && v <= 1) {
			return fmt.Errorf("%s.%s: %g is not a probability", name, k, v)
		}
	}
	if s.SerialProb+s.Pow2Prob > 1 {
		return fmt.Errorf("%s: serial_prob + pow2_prob = %g exceeds 1", name, s.SerialProb+s.Pow2Prob)
	}
	if !(s.ULow <= s.UMed && s.UMed <= s.UHi && s.ULow >= 0) {
		return fmt.Errorf("%s: need 0 <= ulow <= umed <= uhi, got %g, %g, %g", name, s.ULow, s.UMed, s.UHi)
	}
	pos := []struct {
		k string
		v float64
	}{{"a1", s.A1}, {"b1", s.B1}, {"a2", s.A2}, {"b2", s.B2}, {"aarr", s.AArr}, {"barr", s.BArr}, {"arar", s.ARAR}, {"anum", s.ANum}, {"bnum", s.BNum}}
	for _, x := range pos {
		if !(x.v > 0) || math.IsInf(x.v, 0) {
			return fmt.Errorf("%s.%s: must be positive, got %g", name, x.k, x.v)
		}
	}
	return nil
}

func (p *LublinParams) validate() error {
	if p.Nodes < 0 {
		return fmt.Errorf("nodes: must be >= 0, got %d", p.Nodes)
	}
	if !(p.ArrivalScale > 0) || math.IsInf(p.ArrivalScale, 0) {
		return fmt.Errorf("arrival_scale: must be positive, got %g", p.ArrivalScale)
	}
	for _, x := range []struct {
		n string
		s *LublinSet
	}{{"typeless", p.Typeless}, {"batch", p.Batch}, {"interactive", p.Interactive}} {
		if err := x.s.validate(x.n); err != nil {
			return err
		}
	}
	return nil
}

// lublinStream is one arrival stream with the state m_lublin99.c keeps
// across calls.
type lublinStream struct {
	set     *LublinSet
	weights [lublinBuckets]float64
	bucket  int
	points  float64
	oldRem  float64
	next    float64 // time of the pending arrival
	gamma   distuv.Gamma
	scale   float64
}

func newLublinStream(set *LublinSet, src rand.Source, scale float64) *lublinStream {
	s := &lublinStream{set: set, scale: scale}
	cycle := distuv.Gamma{Alpha: set.ANum, Beta: 1 / set.BNum}
	sum := 0.0
	for i := lublinDayStart; i < lublinDayStart+lublinBuckets; i++ {
		w := cycle.CDF(float64(i)+0.5) - cycle.CDF(float64(i)-0.5)
		s.weights[(i-1+lublinBuckets)%lublinBuckets] = w
		sum += w
	}
	mean := sum / lublinBuckets
	for i := range s.weights {
		s.weights[i] /= mean
	}
	s.gamma = distuv.Gamma{Alpha: set.AArr * set.ARAR, Beta: 1 / set.BArr, Src: src}
	s.advance()
	return s
}

// logInterArrival draws ln(inter-arrival) at rush-hour rate, capped.
func (s *lublinStream) logInterArrival() float64 {
	for {
		if g := s.gamma.Rand(); g <= lublinArrivalCap {
			return g
		}
	}
}

// advance computes the next arrival time (facts §2a step 2).
func (s *lublinStream) advance() {
	s.points += math.Exp(s.logInterArrival()) * s.scale / lublinBucketLen
	elapsed := 0.0
	for s.points > s.weights[s.bucket] {
		s.points -= s.weights[s.bucket]
		s.bucket = (s.bucket + 1) % lublinBuckets
		elapsed += lublinBucketLen
	}
	rem := s.points / s.weights[s.bucket]
	elapsed += lublinBucketLen * (rem - s.oldRem)
	s.oldRem = rem
	s.next += elapsed
}

// Lublin generates Lublin–Feitelson jobs.
type Lublin struct {
	p           LublinParams
	streams     [2]*lublinStream // 0 interactive (or typeless), 1 batch
	sizeR       *rand.Rand
	run1, run2  [2]distuv.Gamma
	runR        *rand.Rand
	id          int64
	systemNodes int
	shared      model.Shared // the jobs' trace fields (few distinct values)
}

// NewLublin validates p and returns a generator for seed.
func NewLublin(p LublinParams, seed uint64) (*Lublin, error) {
	p.defaults()
	if err := p.validate(); err != nil {
		return nil, err
	}
	g := &Lublin{p: p, sizeR: sim.Stream(seed, "lublin/size"), runR: sim.Stream(seed, "lublin/runtime-mix")}
	sets := [2]*LublinSet{p.Interactive, p.Batch}
	if !p.JobTypes {
		sets = [2]*LublinSet{p.Typeless, nil}
	}
	runSrc := sim.Source(seed, "lublin/runtime")
	for i, s := range sets {
		if s == nil {
			continue
		}
		g.streams[i] = newLublinStream(s, sim.Source(seed, fmt.Sprintf("lublin/arrival-%d", i)), p.ArrivalScale)
		g.run1[i] = distuv.Gamma{Alpha: s.A1, Beta: 1 / s.B1, Src: runSrc}
		g.run2[i] = distuv.Gamma{Alpha: s.A2, Beta: 1 / s.B2, Src: runSrc}
	}
	g.systemNodes = int(math.Round(math.Exp2(sets[0].UHi)))
	if sets[1] != nil {
		g.systemNodes = max(g.systemNodes, int(math.Round(math.Exp2(sets[1].UHi))))
	}
	return g, nil
}

// Nodes is the system size the parameters describe (2^UHi).
func (g *Lublin) Nodes() int { return g.systemNodes }

// sizeExponent draws x from the two-stage uniform on log2(size).
func sizeExponent(r *rand.Rand, s *LublinSet) float64 {
	if r.Float64() <= s.UProb {
		return s.ULow + r.Float64()*(s.UMed-s.ULow)
	}
	return s.UMed + r.Float64()*(s.UHi-s.UMed)
}

// size draws a job size (facts §2a step 4): one u decides serial and
// power of two.
func (g *Lublin) size(s *LublinSet) int {
	u := g.sizeR.Float64()
	if u <= s.SerialProb {
		return 1
	}
	x := sizeExponent(g.sizeR, s)
	if u <= s.SerialProb+s.Pow2Prob {
		x = math.Round(x)
	}
	// Clamp as the GridSim port does (the C code can exceed a non-integer UHi).
	return max(1, min(int(math.Round(math.Exp2(x))), int(math.Round(math.Exp2(s.UHi)))))
}

// mixWeight is the probability of gamma #1 for a job of n nodes.
func mixWeight(s *LublinSet, n int) float64 {
	return min(1, max(0, s.PA*float64(n)+s.PB))
}

// logRuntime draws ln(runtime) for a job of n nodes of type t, capped.
func (g *Lublin) logRuntime(t int, n int) float64 {
	s := g.streams[t].set
	p := mixWeight(s, n)
	for {
		var l float64
		if g.runR.Float64() < p {
			l = g.run1[t].Rand()
		} else {
			l = g.run2[t].Rand()
		}
		if l <= lublinRuntimeCap {
			return l
		}
	}
}

// Next returns the next job.
func (g *Lublin) Next() model.Job {
	t := 0
	if g.streams[1] != nil && g.streams[1].next < g.streams[0].next {
		t = 1
	}
	st := g.streams[t]
	at := math.Floor(st.next)
	st.advance()
	n := g.size(st.set)
	run := max(1, math.Floor(math.Exp(g.logRuntime(t, n))))
	g.id++
	j := model.NewJob(g.id, at, run, n)
	tf := model.UnknownTraceFields
	tf.ReqProcs, tf.Status, tf.Queue = n, 1, t
	j.TraceFields = g.shared.Trace(tf)
	return j
}
