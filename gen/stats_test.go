package gen

import (
	"math"
	"math/bits"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/sim"
)

// Statistical tests: each generator follows its model. Samples of 20,000
// with a fixed seed; a Kolmogorov–Smirnov or chi-square test at
// significance 0.001 (so a correct generator fails with probability
// 0.1% per test for a random seed; with the fixed seeds here, never).
const (
	sampleN = 20000
	alphaKS = 0.001
)

// ksStat is the one-sample Kolmogorov–Smirnov statistic of x against cdf.
func ksStat(x []float64, cdf func(float64) float64) float64 {
	return KS(x, cdf) / math.Sqrt(float64(len(x)))
}

// ksCritical is the asymptotic critical value of D at significance a.
func ksCritical(n int, a float64) float64 {
	return math.Sqrt(-math.Log(a/2)/2) / math.Sqrt(float64(n))
}

// ksPasses reports whether x is consistent with cdf at alphaKS.
func ksPasses(t *testing.T, what string, x []float64, cdf func(float64) float64) bool {
	t.Helper()
	d, c := ksStat(x, cdf), ksCritical(len(x), alphaKS)
	t.Logf("%s: KS D = %.4f, critical %.4f (n = %d)", what, d, c, len(x))
	return d <= c
}

func requireKS(t *testing.T, what string, x []float64, cdf func(float64) float64) {
	t.Helper()
	if !ksPasses(t, what, x, cdf) {
		t.Errorf("%s does not follow its distribution", what)
	}
}

// requireChi2 checks observed counts against expected probabilities.
func requireChi2(t *testing.T, what string, obs []float64, probs []float64) {
	t.Helper()
	total := 0.0
	for _, o := range obs {
		total += o
	}
	var o2, e2 []float64
	for i, p := range probs {
		if p == 0 {
			if obs[i] != 0 {
				t.Errorf("%s: %g observations in a category of probability 0 (%d)", what, obs[i], i)
			}
			continue
		}
		o2 = append(o2, obs[i])
		e2 = append(e2, p*total)
	}
	chi := stat.ChiSquare(o2, e2)
	pv := distuv.ChiSquared{K: float64(len(o2) - 1)}.Survival(chi)
	t.Logf("%s: chi2 = %.2f, df = %d, p = %.4f", what, chi, len(o2)-1, pv)
	if pv < alphaKS {
		t.Errorf("%s: observed frequencies differ from the model (p = %g)", what, pv)
	}
}

// twoStageCDF is the CDF of the two-stage uniform on log2(size).
func twoStageCDF(s *LublinSet) func(float64) float64 {
	return func(x float64) float64 {
		switch {
		case x <= s.ULow:
			return 0
		case x <= s.UMed:
			return s.UProb * (x - s.ULow) / (s.UMed - s.ULow)
		case x <= s.UHi:
			return s.UProb + (1-s.UProb)*(x-s.UMed)/(s.UHi-s.UMed)
		}
		return 1
	}
}

// hyperGammaCDF is the CDF of ln(runtime) for a job of n nodes: the
// mixture truncated at the cap (draws above it are redrawn).
func hyperGammaCDF(s *LublinSet, n int) func(float64) float64 {
	p := mixWeight(s, n)
	g1 := distuv.Gamma{Alpha: s.A1, Beta: 1 / s.B1}
	g2 := distuv.Gamma{Alpha: s.A2, Beta: 1 / s.B2}
	f := func(x float64) float64 { return p*g1.CDF(x) + (1-p)*g2.CDF(x) }
	top := f(lublinRuntimeCap)
	return func(x float64) float64 { return min(1, f(x)/top) }
}

// TestLublinSizeExponent: log2(size) is the two-stage uniform (Lublin &
// Feitelson 2003 §4.2; facts §2a step 4).
func TestLublinSizeExponent(t *testing.T) {
	r := sim.Stream(1, "test")
	s := LublinTypeless
	x := make([]float64, sampleN)
	for i := range x {
		x[i] = sizeExponent(r, &s)
	}
	requireKS(t, "two-stage uniform of log2(size)", x, twoStageCDF(&s))
}

// pow2Mass is the probability that a non-rounded exponent x gives a size
// round(2^x) that is a power of two above 1.
func pow2Mass(s *LublinSet) float64 {
	cdf := twoStageCDF(s)
	m := 0.0
	for k := 1; float64(k) <= s.UHi+1; k++ {
		lo := math.Log2(math.Exp2(float64(k)) - 0.5)
		hi := math.Log2(math.Exp2(float64(k)) + 0.5)
		m += cdf(hi) - cdf(lo)
	}
	return m
}

// TestLublinSizes: serial and power-of-two fractions, end to end. One u
// decides both (facts §2a step 4): P(serial) = SerialProb; P(size is a
// power of two > 1) = Pow2Prob + (1 − SerialProb − Pow2Prob) × P(a
// non-rounded exponent lands on a power of two).
func TestLublinSizes(t *testing.T) {
	g, err := NewLublin(DefaultLublinParams(), 3)
	if err != nil {
		t.Fatal(err)
	}
	s := LublinTypeless
	var serial, pow2, other float64
	for i := 0; i < sampleN; i++ {
		n := g.Next().Procs
		switch {
		case n == 1:
			serial++
		case bits.OnesCount(uint(n)) == 1:
			pow2++
		default:
			other++
		}
	}
	pp := s.Pow2Prob + (1-s.SerialProb-s.Pow2Prob)*pow2Mass(&s)
	requireChi2(t, "serial / power-of-two / other sizes", []float64{serial, pow2, other}, []float64{s.SerialProb, pp, 1 - s.SerialProb - pp})
}

// TestLublinRuntime: ln(runtime) follows the hyper-gamma whose weight
// depends on the size (Lublin & Feitelson 2003 §5; facts §2a step 5),
// checked for a serial and a 64-node job, whose weights differ (0.7746 vs
// 0.4344). TestWrongParameterIsCaught shows the test can fail.
func TestLublinRuntime(t *testing.T) {
	g, _ := NewLublin(DefaultLublinParams(), 4)
	for _, n := range []int{1, 64} {
		x := make([]float64, sampleN)
		for i := range x {
			x[i] = g.logRuntime(0, n)
		}
		requireKS(t, "ln(runtime) of "+itoa(n)+"-node jobs", x, hyperGammaCDF(&LublinTypeless, n))
	}
	// The weight really depends on the size: 64-node runtimes do not
	// follow the serial jobs' distribution.
	x := make([]float64, sampleN)
	for i := range x {
		x[i] = g.logRuntime(0, 64)
	}
	if ksPasses(t, "64-node runtimes against the serial distribution", x, hyperGammaCDF(&LublinTypeless, 1)) {
		t.Error("runtime does not depend on size")
	}
}

func itoa(n int) string { return string(rune('0'+n/10%10)) + string(rune('0'+n%10)) }

// TestWrongParameterIsCaught: a generator with a deliberately wrong
// parameter (a1 10% too large) fails the runtime test.
func TestWrongParameterIsCaught(t *testing.T) {
	p := DefaultLublinParams()
	p.Typeless.A1 *= 1.1
	g, _ := NewLublin(p, 4)
	x := make([]float64, sampleN)
	for i := range x {
		x[i] = g.logRuntime(0, 1)
	}
	if ksPasses(t, "runtimes with a1 × 1.1 against the published model", x, hyperGammaCDF(&LublinTypeless, 1)) {
		t.Error("the KS test did not notice a wrong a1")
	}
}

// TestLublinInterArrival: ln(inter-arrival) at rush hour is Γ(aarr·ARAR,
// barr) truncated at 13 (facts §2a step 2a).
func TestLublinInterArrival(t *testing.T) {
	s := LublinTypeless
	st := newLublinStream(&s, sim.Source(5, "test"), 1)
	x := make([]float64, sampleN)
	for i := range x {
		x[i] = st.logInterArrival()
	}
	g := distuv.Gamma{Alpha: s.AArr * s.ARAR, Beta: 1 / s.BArr}
	top := g.CDF(lublinArrivalCap)
	requireKS(t, "ln(inter-arrival)", x, func(v float64) float64 { return min(1, g.CDF(v)/top) })
	// The daily cycle: weights average 1 and peak in the working day.
	sum, peak := 0.0, 0
	for i, w := range st.weights {
		sum += w
		if w > st.weights[peak] {
			peak = i
		}
	}
	if math.Abs(sum/lublinBuckets-1) > 1e-12 || peak < 16 || peak > 36 {
		t.Errorf("daily cycle: mean weight %g, peak bucket %d (want 1 and a daytime bucket)", sum/lublinBuckets, peak)
	}
}

// TestGridModel: every attribute of seed 004 §2 follows its distribution.
func TestGridModel(t *testing.T) {
	p := DefaultGridParams()
	p.Alpha = 1.5
	p.S = 3
	p.E1, p.E2 = 1, 4
	p.B1d, p.B2d = 2, 6
	p.D1, p.D2 = 5, 50
	g, err := NewGrid(p, 6)
	if err != nil {
		t.Fatal(err)
	}
	jobs := make([]model.Job, sampleN)
	for i := range jobs {
		jobs[i] = g.Next()
	}
	// §2.2: site probabilities q·α^i over the random order.
	counts := make([]float64, len(p.Sites))
	var e, b, d, ia []float64
	var serial, pow2, parallel float64
	for i, j := range jobs {
		counts[j.Site]++
		if j.Partition != j.Site+1 {
			t.Fatalf("job %d: partition %d for site %d", j.ID, j.Partition, j.Site)
		}
		ef := j.Estimate / j.Runtime
		e = append(e, ef)
		b = append(b, (j.Deadline-j.Submit)/(j.Runtime*ef))
		d = append(d, j.MigrationCost)
		if i > 0 {
			ia = append(ia, j.Submit-jobs[i-1].Submit)
		}
		switch {
		case j.Procs == 1:
			serial++
		default:
			parallel++
			if bits.OnesCount(uint(j.Procs)) == 1 {
				pow2++
			}
		}
	}
	requireChi2(t, "submission sites (α = 1.5)", counts, g.Probabilities())
	want := SiteProbabilities(len(p.Sites), 1.5, g.Order())
	for i := 1; i < len(g.Order()); i++ {
		if r := want[g.Order()[i]] / want[g.Order()[i-1]]; math.Abs(r-1.5) > 1e-12 {
			t.Errorf("ratio of consecutive positions %g, want α = 1.5", r)
		}
	}
	// §2.3–2.5: uniform factors.
	requireKS(t, "estimate factor e ~ U[1,4]", e, uniformCDF(1, 4))
	requireKS(t, "deadline factor B ~ U[2,6]", b, uniformCDF(2, 6))
	requireKS(t, "pure migration cost ~ U[5,50]", d, uniformCDF(5, 50))
	// §2.2: inter-arrival Γ(8.17, 3.96) stretched by s = 3.
	gam := distuv.Gamma{Alpha: p.ArrShape, Beta: 1 / (p.ArrScale * p.S)}
	requireKS(t, "inter-arrival Γ(8.17, 3.96·s)", ia, gam.CDF)
	// §2.1: p1 = 0.21 serial; among parallel, p2 = 0.89 rounded to a power
	// of two, plus the non-rounded ones that land on one.
	set := LublinSet{ULow: p.ULow, UMed: p.UMed, UHi: p.UHi, UProb: p.UProb}
	pp := p.Pow2Prob + (1-p.Pow2Prob)*pow2Mass(&set)
	requireChi2(t, "serial fraction", []float64{serial, parallel}, []float64{p.SerialProb, 1 - p.SerialProb})
	requireChi2(t, "power-of-two fraction of parallel jobs", []float64{pow2, parallel - pow2}, []float64{pp, 1 - pp})
	// Per-site runtime and migration cost between sites.
	p.Sites[2] = 4
	p.Links = [][]float64{}
	for range p.Sites {
		row := make([]float64, len(p.Sites))
		for k := range row {
			row[k] = 2
		}
		p.Links = append(p.Links, row)
	}
	j := jobs[0]
	if p.SiteRuntime(&j, 2) != j.Runtime/4 || p.MigrationCost(&j, 1, 2) != j.MigrationCost/2 || p.MigrationCost(&j, 2, 2) != 0 {
		t.Error("per-site runtime or migration cost")
	}
}

// TestGangModel: Poisson arrivals, exponential service, sizes uniform on
// 1–16 with probability q and on 17–32 otherwise (seed 003 §1); the
// times are written in seconds (SWF), the rates are per hour.
func TestGangModel(t *testing.T) {
	p := DefaultGangParams()
	p.Q, p.Lambda, p.Mu = 0.25, 2.25, 0.8
	g, _ := NewGang(p, 7)
	var ia, svc []float64
	sizes := make([]float64, 33)
	last := 0.0
	for i := 0; i < sampleN; i++ {
		j := g.Next()
		// SWF seconds; the rates are per hour.
		ia = append(ia, (j.Submit-last)/SecondsPerHour)
		last = j.Submit
		svc = append(svc, j.Runtime/SecondsPerHour)
		sizes[j.Procs]++
	}
	requireKS(t, "gang inter-arrival ~ Exp(λ = 2.25)", ia, distuv.Exponential{Rate: 2.25}.CDF)
	requireKS(t, "gang service ~ Exp(μ = 0.8)", svc, distuv.Exponential{Rate: 0.8}.CDF)
	probs := make([]float64, 33)
	for k := 1; k <= 32; k++ {
		if k <= 16 {
			probs[k] = 0.25 / 16
		} else {
			probs[k] = 0.75 / 16
		}
	}
	requireChi2(t, "gang sizes", sizes, probs)
	if m := p.MeanSize(); m != 0.25*8.5+0.75*24.5 {
		t.Errorf("mean size %g", m)
	}
}

// TestReservationModel: seed 000 §3.1: exponential request intervals
// (mean λ), book-ahead U[1,20], window U[5,50], duration (1 − flexibility)
// × window, levels uniform on 1–5.
func TestReservationModel(t *testing.T) {
	p := DefaultReservationParams()
	p.Lambda = 6
	p.Flexibility = 0.3
	p.Background, p.Resources = 50, 10
	g, _ := NewReservations(p, 8)
	var ia, book, win []float64
	levels := make([]float64, 6)
	last := 0.0
	for i := 0; i < sampleN+50; i++ {
		j := g.Next()
		if i < 50 {
			if j.Queue != TypeTask || j.Submit != 0 || j.Runtime < 5 || j.Runtime > 50 || j.Partition != 1+i%10 {
				t.Fatalf("background task %+v", j)
			}
			continue
		}
		if j.Queue != TypeReservation {
			t.Fatalf("job %d: queue %d", j.ID, j.Queue)
		}
		ia = append(ia, j.Submit-last)
		last = j.Submit
		book = append(book, j.WindowStart-j.Submit)
		w := j.WindowEnd - j.WindowStart
		win = append(win, w)
		if flex := (w - j.Runtime) / w; math.Abs(flex-0.3) > 1e-9 {
			t.Fatalf("flexibility %g", flex)
		}
		levels[j.Level]++
	}
	requireKS(t, "request interval ~ Exp(mean 6)", ia, distuv.Exponential{Rate: 1.0 / 6}.CDF)
	requireKS(t, "book-ahead ~ U[1,20]", book, uniformCDF(1, 20))
	requireKS(t, "window ~ U[5,50]", win, uniformCDF(5, 50))
	requireChi2(t, "capability levels", levels, []float64{0, 0.2, 0.2, 0.2, 0.2, 0.2})
}

// TestTraceReservations (seed 000 §3.1, OSC): about 10% become
// reservations of three types; book-ahead is half the window; a job of
// t seconds on n CPUs lasts t·n/m on an m-CPU node (reservations: m of
// their type, careless 2; tasks: m of the node they are assigned to,
// round-robin over 3 4-CPU then 2 2-CPU nodes).
func TestTraceReservations(t *testing.T) {
	var jobs []model.Job
	for i := 0; i < sampleN; i++ {
		j := model.NewJob(int64(i+1), float64(i*10), float64(100+i%50), 1+i%8)
		jobs = append(jobs, j)
	}
	p := TraceReservationParams{Fraction: 0.1, Lambda: 300, Flexibility: 0.5, QuadNodes: 3, DualNodes: 2}
	out, err := FromTrace(jobs, p, 9)
	if err != nil {
		t.Fatal(err)
	}
	types := make([]float64, 5)
	var ia []float64
	last := -1.0
	tasks := 0
	for i, j := range out {
		work := jobs[i].Runtime * float64(jobs[i].Procs)
		if j.Procs != 1 {
			t.Fatalf("job %d uses %d processors, want one node", j.ID, j.Procs)
		}
		types[j.Queue]++
		if j.Queue == TypeTask {
			m := []float64{4, 4, 4, 2, 2}[tasks%5]
			if j.Site != tasks%5 || math.Abs(j.Runtime-work/m) > 1e-9 || j.Estimate != j.Runtime {
				t.Fatalf("task %d (the %dth): node %d, runtime %g, want node %d, %g", j.ID, tasks, j.Site, j.Runtime, tasks%5, work/m)
			}
			tasks++
			continue
		}
		if last >= 0 {
			ia = append(ia, j.Submit-last)
		}
		last = j.Submit
		m, level := 2.0, 1
		switch j.Queue {
		case TypeQuad:
			m, level = 4, 4
		case TypeDual:
			level = 2
		}
		dur := work / m
		win := j.WindowEnd - j.WindowStart
		if math.Abs(win-2*dur) > 1e-9 || math.Abs(j.WindowStart-j.Submit-win/2) > 1e-9 || j.Estimate != dur || j.Runtime != dur || j.Level != level {
			t.Fatalf("reservation %+v: window %g, duration %g, level %d", j, win, dur, level)
		}
	}
	requireChi2(t, "reservation types", types, []float64{0.9, 0, 0.1 / 3, 0.1 / 3, 0.1 / 3})
	requireKS(t, "reservation intervals ~ Exp(mean 300)", ia, distuv.Exponential{Rate: 1.0 / 300}.CDF)
	pl := p.Platform()
	if len(pl.Nodes) != 5 || pl.Nodes[2].Capability != 4 || pl.Nodes[3].Capability != 2 || pl.Nodes[4].Cost != 1 {
		t.Fatalf("platform %+v", pl.Nodes)
	}
}

// TestReservationResources: resource capability levels are uniform on
// 1..5 (seed 000 §3.1).
func TestReservationResources(t *testing.T) {
	p, err := ReservationResources(sampleN, 5, 10)
	if err != nil {
		t.Fatal(err)
	}
	levels := make([]float64, 6)
	for _, n := range p.Nodes {
		levels[n.Capability]++
		if n.Cost != 1 || n.PEs != 1 {
			t.Fatalf("%+v", n)
		}
	}
	requireChi2(t, "resource capability levels", levels, []float64{0, 0.2, 0.2, 0.2, 0.2, 0.2})
	if _, err := ReservationResources(0, 5, 1); err == nil {
		t.Error("0 resources accepted")
	}
}

// TestTraceReservationsFirstRequests (seed 000 §3.1, parameter 3: "我们
// 选取前 reqNumber 个到来的预留请求作为实验的考察对象", the first reqNumber
// requests to arrive): with Requests = N the output keeps exactly the
// first N requests of the unlimited conversion, identical to them, and
// the same tasks.
func TestTraceReservationsFirstRequests(t *testing.T) {
	var jobs []model.Job
	for i := 0; i < 5000; i++ {
		jobs = append(jobs, model.NewJob(int64(i+1), float64(i*10), float64(100+i%50), 1+i%8))
	}
	p := TraceReservationParams{Fraction: 0.1, Lambda: 300, QuadNodes: 3, DualNodes: 2}
	all, err := FromTrace(jobs, p, 9)
	if err != nil {
		t.Fatal(err)
	}
	p.Requests = 100
	some, err := FromTrace(jobs, p, 9)
	if err != nil {
		t.Fatal(err)
	}
	var want []model.Job
	n := 0
	for _, j := range all {
		if j.Queue != TypeTask {
			if n++; n > 100 {
				continue
			}
		}
		want = append(want, j)
	}
	if n < 300 {
		t.Fatalf("only %d requests in all: the case tests nothing", n)
	}
	if diff := cmp.Diff(want, some, cmpopts.EquateNaNs()); diff != "" {
		t.Errorf("first 100 requests (-want +got):\n%s", diff)
	}
	p.Requests = -1
	if _, err := FromTrace(jobs, p, 9); err == nil || !strings.Contains(err.Error(), "requests") {
		t.Errorf("requests -1: %v, want an error naming requests", err)
	}
}
