package experiment

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// The verdict engine reads its runs through Data: the configurations,
// each configuration's mean and deviation of a metric, and the
// statistics of the replications two configurations share. RowsData
// answers from a store's runs; the committed compact aggregates
// (aggfile.go) answer the same questions from the answers recorded when
// they were written, so the tables regenerate byte for byte without the
// store.

// Stat is a metric over one configuration's replications: their number,
// mean and sample standard deviation (0 with one replication).
type Stat struct {
	N        int
	Mean, SD float64
}

// PairStat is a metric over the replications two configurations share
// (runs with the same seed: the same spec seed and replication index,
// common random numbers): their number, the subject's and the base's
// means over them, and the mean and sample standard deviation of the
// per-replication differences subject − base.
type PairStat struct {
	N                int
	Mean, BaseMean   float64
	DiffMean, DiffSD float64
}

// DataConfig is one configuration of the runs: its index in the sweep,
// its name and its parameter values.
type DataConfig struct {
	Index  int
	ID     string
	Params map[string]string
}

// Data is what the verdict engine reads.
type Data interface {
	// Configs lists the configurations in sweep order.
	Configs() []DataConfig
	// Stat is metric over configuration cfg's runs (N = 0: none has it).
	Stat(cfg int, metric string) Stat
	// Pair is metric over the replications subject and base share (N = 0:
	// none).
	Pair(subject, base int, metric string) PairStat
}

// RowsData is Data over the runs of a store.
type RowsData struct {
	configs []DataConfig
	runs    map[int][]Row // each configuration's runs, in replication order

}

// NewRowsData indexes rows (a store's runs) for the verdict engine.
func NewRowsData(rows []Row) *RowsData {
	d := &RowsData{runs: map[int][]Row{}}
	for _, r := range rows {
		if _, ok := d.runs[r.ConfigIndex]; !ok {
			d.configs = append(d.configs, DataConfig{Index: r.ConfigIndex, ID: r.ConfigID, Params: r.Params})
		}
		d.runs[r.ConfigIndex] = append(d.runs[r.ConfigIndex], r)
	}
	sort.SliceStable(d.configs, func(i, j int) bool { return d.configs[i].Index < d.configs[j].Index })
	for _, rs := range d.runs {
		sort.SliceStable(rs, func(i, j int) bool { return rs[i].Rep < rs[j].Rep })
	}
	return d
}

// Configs lists the configurations that have runs.
func (d *RowsData) Configs() []DataConfig { return d.configs }

// Stat is metric over configuration cfg's runs.
func (d *RowsData) Stat(cfg int, metric string) Stat {
	var xs []float64
	for _, r := range d.runs[cfg] {
		if v, ok := r.Metrics[metric]; ok {
			xs = append(xs, v)
		}
	}
	return statOf(xs)
}

// Pair is metric over the runs of subject and base with the same seed.
func (d *RowsData) Pair(subject, base int, metric string) PairStat {
	bySeed := map[string]float64{}
	for _, r := range d.runs[base] {
		if v, ok := r.Metrics[metric]; ok {
			bySeed[r.Seed] = v
		}
	}
	var a, b, diff []float64
	for _, r := range d.runs[subject] {
		v, ok := r.Metrics[metric]
		w, paired := bySeed[r.Seed]
		if ok && paired {
			a, b, diff = append(a, v), append(b, w), append(diff, v-w)
		}
	}
	sa, sb, sd := statOf(a), statOf(b), statOf(diff)
	return PairStat{N: len(diff), Mean: sa.Mean, BaseMean: sb.Mean, DiffMean: sd.Mean, DiffSD: sd.SD}
}

func statOf(xs []float64) Stat {
	if len(xs) == 0 {
		return Stat{}
	}
	mean, sd, _ := CI95(xs)
	return Stat{N: len(xs), Mean: mean, SD: sd}
}

// t975 is the 0.975 quantile of Student's t with df degrees of freedom.
func t975(df float64) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(0.975)
}

// HalfWidth is the 95% CI half-width of the mean (NaN with fewer than 2
// replications).
func (s Stat) HalfWidth() float64 {
	if s.N < 2 {
		return math.NaN()
	}
	return t975(float64(s.N-1)) * s.SD / math.Sqrt(float64(s.N))
}

// diff is the difference subject − base of one metric at two
// configurations, with its 95% CI half-width (NaN: none).
type diff struct {
	present    bool // both configurations have the metric
	paired     bool // from the replications they share (paired t); else Welch
	exact      bool // paired, every replication's difference the same (sd 0)
	n, nBase   int  // replications: pairs (paired), or each side's (Welch)
	a, b, d, h float64
}

// compareAt compares metric at configurations subject and base: paired
// (a t-interval of the per-replication differences) when they share two
// or more replications, else Welch's unpaired interval.
func compareAt(data Data, subject, base int, metric string) diff {
	p := data.Pair(subject, base, metric)
	if p.N >= 2 {
		out := diff{present: true, paired: true, n: p.N, nBase: p.N, a: p.Mean, b: p.BaseMean, d: p.DiffMean,
			h: t975(float64(p.N-1)) * p.DiffSD / math.Sqrt(float64(p.N))}
		// A zero-width interval: every replication gives the same
		// difference (deterministic configurations), not a t interval of
		// independent draws; the row says so.
		out.exact = p.DiffSD == 0
		return out
	}
	sa, sb := data.Stat(subject, metric), data.Stat(base, metric)
	if sa.N == 0 || sb.N == 0 {
		return diff{}
	}
	if p.N == 1 && (sa.N < 2 || sb.N < 2) {
		// One shared replication: paired, without a CI.
		return diff{present: true, paired: true, n: 1, nBase: 1, a: p.Mean, b: p.BaseMean, d: p.DiffMean, h: math.NaN()}
	}
	out := diff{present: true, n: sa.N, nBase: sb.N, a: sa.Mean, b: sb.Mean, d: sa.Mean - sb.Mean, h: math.NaN()}
	if sa.N >= 2 && sb.N >= 2 {
		out.h = welchHalfWidth(sa, sb)
	}
	return out
}

// welchHalfWidth is the 95% half-width of the difference of two
// independent means, with Welch–Satterthwaite's degrees of freedom (0
// when both samples are constant).
func welchHalfWidth(a, b Stat) float64 {
	va, vb := a.SD*a.SD/float64(a.N), b.SD*b.SD/float64(b.N)
	if va+vb == 0 {
		return 0
	}
	df := (va + vb) * (va + vb) / (va*va/float64(a.N-1) + vb*vb/float64(b.N-1))
	return t975(df) * math.Sqrt(va+vb)
}

// rel is the relative effect (subject − base)/|base| and its
// half-width: 0 ± 0 when both sides are exactly 0 in every replication
// (no difference at all), NaN when the base is 0 otherwise (no relative
// size: see classify).
func (x diff) rel() (float64, float64) {
	if x.b == 0 {
		if x.d == 0 && x.h == 0 {
			return 0, 0
		}
		return math.NaN(), math.NaN()
	}
	return x.d / math.Abs(x.b), x.h / math.Abs(x.b)
}

// ratio is subject/base: what remains of the base (NaN unless the base
// is positive and the subject not negative).
func (x diff) ratio() float64 {
	if x.a >= 0 && x.b > 0 {
		return x.a / x.b
	}
	return math.NaN()
}

// test names the interval used: "paired t, n=30", "Welch, n=5+5",
// "exact (sd 0), n=2" (the same difference in every replication: a
// zero-width interval) or "n=1 (one replication, no CI)".
func (x diff) test() string {
	switch {
	case !x.present:
		return "–"
	case x.paired && x.n == 1:
		return "n=1 (one replication, no CI)"
	case x.exact:
		return "exact (sd 0), n=" + itoa(x.n)
	case x.paired:
		return "paired t, n=" + itoa(x.n)
	}
	return "Welch, n=" + itoa(x.n) + "+" + itoa(x.nBase)
}
