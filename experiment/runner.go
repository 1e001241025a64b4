package experiment

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gridsched/gridsched/system"
)

// Options control a sweep.
type Options struct {
	Workers int // simulations at once (default: GOMAXPROCS)
	Shard   int // this shard, 0-based
	Shards  int // number of shards (0 or 1: everything)
	// Progress, if set, is called after every finished run with the
	// number of runs done in this invocation and the number planned so
	// far (adaptive sweeps plan more as they go).
	Progress func(done, planned int)
	// Plan, if set, is called once before the first run starts with what
	// the sweep will do.
	Plan func(Plan)
	// Estimate, if set, is called once when the sample of runs spread
	// over the sweep has finished (a sweep of more runs than the sample
	// only), with the time the rest should take.
	Estimate func(Estimate)
}

// Plan is what a sweep will do: its configurations and replications (an
// adaptive sweep runs Min to Max replications per configuration), the
// runs of this shard already in the store and those to run now (for an
// adaptive sweep, those of its first round).
type Plan struct {
	Configs            int
	Adaptive           bool
	Replications       int // fixed count, or the adaptive minimum
	MaxReplications    int // the adaptive maximum (= Replications when fixed)
	Shard, Shards      int
	AlreadyDone, ToRun int
}

// Estimate is the run time a sweep should still need, projected from
// the wall time of its first Sampled runs, which are taken evenly spread
// over its runs (so over configurations of every size) and run first:
// Left = PerRun × runs not yet finished / Workers. For an adaptive
// sweep it covers the first round only.
type Estimate struct {
	Sampled, Left int           // runs in the sample; runs not finished when it ended
	Workers       int           // simulations at once
	PerRun        time.Duration // mean wall time of a sampled run
	Remaining     time.Duration // PerRun × Left / Workers
	Elapsed       time.Duration // wall time from the start of the round to the estimate
}

// SampleRuns is the size of the sample an estimate is made from: two
// runs per worker, at least 8.
func SampleRuns(workers int) int { return max(8, 2*workers) }

// newSweepCache makes a sweep's cache (tests observe it).
var newSweepCache = NewCache

// Summary tells what a sweep did.
type Summary struct {
	Configs, Ran, AlreadyDone int
	// Failed counts the runs of this invocation that failed for a reason
	// of their own (system.ErrRunFailed): recorded in the store, retried
	// by a resumed sweep.
	Failed int
}

// FailedRunsError is returned by a sweep in which some runs failed for a
// reason of their own (an external scheduler that crashed, …) after every
// other run was done and stored.
type FailedRunsError struct {
	Failures []Failure
}

func (e *FailedRunsError) Error() string {
	var b strings.Builder
	n := len(e.Failures)
	fmt.Fprintf(&b, "%d %s failed (recorded in the store; every other run is stored, and resuming the sweep retries the failed ones)", n, plural(n, "run", "runs"))
	for i, f := range e.Failures {
		if i == 5 {
			fmt.Fprintf(&b, "\n… and %d more", n-i)
			break
		}
		msg := f.Error
		if i > 0 {
			msg, _, _ = strings.Cut(msg, "\n")
		}
		fmt.Fprintf(&b, "\nrun %s: %s", f.Key, msg)
	}
	return b.String()
}

func (e *FailedRunsError) Unwrap() error { return system.ErrRunFailed }

// Sweep runs every run of the spec that belongs to this shard and is not
// in the store yet, committing each as it finishes.
func Sweep(s *Spec, st *Store, o Options) (Summary, error) {
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.Shards <= 1 {
		o.Shards, o.Shard = 1, 0
	}
	if o.Shard < 0 || o.Shard >= o.Shards {
		return Summary{}, fmt.Errorf("shard %d of %d: want 0 <= shard < shards", o.Shard, o.Shards)
	}
	nConfigs, _ := s.ConfigCount()
	sum := Summary{Configs: nConfigs}
	done, err := st.Done()
	if err != nil {
		return sum, err
	}
	cache := newSweepCache()
	gc := newGCTuner(o.Workers)
	defer gc.restore()
	ex := &executor{s: s, st: st, o: o, cache: cache, gc: gc}
	plan := Plan{Configs: nConfigs, Shard: o.Shard, Shards: o.Shards}
	if !s.Replications.Adaptive() {
		// Configurations are made one at a time (ConfigSeq): only the
		// runs still to do are held.
		var todo []Run
		i := 0
		for c := range s.ConfigSeq() {
			for rep := 0; rep < s.Replications.Count; rep++ {
				r := s.NewRun(&c, rep)
				if i%o.Shards == o.Shard {
					if done[r.Key] {
						sum.AlreadyDone++
					} else {
						todo = append(todo, r)
					}
				}
				i++
			}
		}
		if o.Plan != nil {
			plan.Replications, plan.MaxReplications = s.Replications.Count, s.Replications.Count
			plan.AlreadyDone, plan.ToRun = sum.AlreadyDone, len(todo)
			o.Plan(plan)
		}
		n, err := ex.run(todo)
		sum.Ran += n
		return sum, ex.failedErr(&sum, err)
	}
	// Adaptive: configurations are sharded whole; replications are added
	// in rounds, deciding only at the fixed checkpoints.
	var mine []*Config
	for c := range s.ConfigSeq() {
		if c.Index%o.Shards == o.Shard {
			mine = append(mine, &c)
		}
	}
	// The runs of this shard's configurations already stored.
	ours := make(map[string]bool, len(mine))
	for _, c := range mine {
		ours[c.Canonical()] = true
	}
	for k := range done {
		if i := strings.LastIndexByte(k, '#'); i >= 0 && ours[k[:i]] {
			sum.AlreadyDone++
		}
	}
	plan.Adaptive = true
	plan.Replications, plan.MaxReplications = s.Replications.Min, s.Replications.Max
	for {
		values, err := ex.metricValues(s.Replications.Metric)
		if err != nil {
			return sum, err
		}
		var todo []Run
		for _, c := range mine {
			need := s.needed(values[c.ID])
			for rep := 0; rep < need; rep++ {
				r := s.NewRun(c, rep)
				if done[r.Key] {
					continue
				}
				todo = append(todo, r)
			}
		}
		if o.Plan != nil && ex.rounds == 0 {
			plan.AlreadyDone, plan.ToRun = sum.AlreadyDone, len(todo)
			o.Plan(plan)
		}
		if len(todo) == 0 {
			break
		}
		n, err := ex.run(todo)
		sum.Ran += n
		if err != nil {
			return sum, err
		}
		for _, r := range todo {
			done[r.Key] = true // a failed run is retried by the next sweep, not this one
		}
	}
	return sum, ex.failedErr(&sum, nil)
}

// failedErr is the sweep's error: err, else the runs that failed.
func (ex *executor) failedErr(sum *Summary, err error) error {
	sum.Failed = len(ex.failures)
	if err != nil || len(ex.failures) == 0 {
		return err
	}
	return &FailedRunsError{Failures: ex.failures}
}

// checkpoints are the replication counts at which an adaptive sweep
// decides whether to stop: min, then ×1.5 (rounded up), capped at max.
func (s *Spec) checkpoints() []int {
	r := s.Replications
	var cps []int
	for n := r.Min; ; n = int(math.Ceil(float64(n) * 1.5)) {
		if n >= r.Max {
			return append(cps, r.Max)
		}
		cps = append(cps, n)
	}
}

// needed returns how many replications a configuration needs given the
// stored values of the stopping metric by replication (vals[rep], NaN =
// not stored): the first checkpoint whose replications are not all
// stored, or at which the precision target is not yet met... decided
// only on complete checkpoints, so the result does not depend on which
// runs happened to finish before an interruption.
func (s *Spec) needed(vals map[int]float64) int {
	r := s.Replications
	for _, cp := range s.checkpoints() {
		xs := make([]float64, 0, cp)
		for rep := 0; rep < cp; rep++ {
			v, ok := vals[rep]
			if !ok {
				return cp // run up to this checkpoint first
			}
			xs = append(xs, v)
		}
		mean, _, hw := CI95(xs)
		if cp >= r.Max || (mean != 0 && hw/math.Abs(mean) <= r.RelHalfWidth) || (mean == 0 && hw == 0) {
			return cp
		}
	}
	return r.Max
}

type executor struct {
	s        *Spec
	st       *Store
	o        Options
	cache    *Cache
	gc       *gcTuner
	donen    int
	planned  int
	rounds   int       // calls of run so far
	failures []Failure // runs that failed for a reason of their own
}

// sampleFirst reorders runs so that a sample of k runs evenly spread over
// them comes first (the rest keep their order). Which run is done when
// changes no result: runs are committed by key and exported in
// configuration order.
func sampleFirst(runs []Run, k int) []Run {
	n := len(runs)
	if k >= n {
		return runs
	}
	picked := make([]bool, n)
	out := make([]Run, 0, n)
	for j := 0; j < k; j++ {
		i := int((float64(j) + 0.5) * float64(n) / float64(k))
		picked[i] = true
		out = append(out, runs[i])
	}
	for i, r := range runs {
		if !picked[i] {
			out = append(out, r)
		}
	}
	return out
}

// sharersTogether moves the runs that share a generated workload
// (sharedKey) next to the first of them, after the first skip runs (the
// estimate's sample), which keep their place; the others keep their
// order. Then a generated workload is kept only while its few runs are
// in flight, not across the sweep.
func sharersTogether(runs []Run, skip int) []Run {
	rest := runs[skip:]
	groups := map[string][]Run{}
	var order []string
	for _, r := range rest {
		k := sharedKey(r)
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	out := append(make([]Run, 0, len(runs)), runs[:skip]...)
	for _, k := range order {
		out = append(out, groups[k]...)
	}
	return out
}

// metricValues returns, by configuration id, the stored values of metric
// by replication.
func (ex *executor) metricValues(metric string) (map[string]map[int]float64, error) {
	rows, err := ex.st.Rows()
	if err != nil {
		return nil, err
	}
	out := map[string]map[int]float64{}
	for _, r := range rows {
		if out[r.ConfigID] == nil {
			out[r.ConfigID] = map[int]float64{}
		}
		out[r.ConfigID][r.Rep] = r.Metrics[metric]
	}
	return out, nil
}

type result struct {
	run     Run
	metrics map[string]float64
	err     error
	took    time.Duration // wall time of the run (only for the estimate)
}

// run executes runs on the workers and commits each result as it comes.
// It stops starting new runs at the first error and returns it after the
// runs in flight are committed.
func (ex *executor) run(runs []Run) (int, error) {
	ex.planned += len(runs)
	// The first call of a sweep of more runs than the sample runs the
	// sample first and estimates the rest from it.
	sample := 0
	if ex.rounds == 0 && ex.o.Estimate != nil && len(runs) > SampleRuns(ex.o.Workers) {
		sample = SampleRuns(ex.o.Workers)
		runs = sampleFirst(runs, sample)
	}
	ex.rounds++
	runs = sharersTogether(runs, sample)
	ex.cache.expect(runs)
	inSample := make(map[string]bool, sample)
	for _, r := range runs[:sample] {
		inSample[r.Key] = true
	}
	var sampled int
	var sampleTime time.Duration
	start := time.Now()
	jobs := make(chan Run)
	// Buffered: a worker hands its result over and goes on with the next
	// run while the main goroutine commits (an fsync) instead of waiting
	// for it; the results that pile up meanwhile go into the next commit.
	results := make(chan result, 4*ex.o.Workers)
	var wg sync.WaitGroup
	for w := 0; w < ex.o.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range jobs {
				t0 := time.Now()
				m, err := ex.s.Execute(r, ex.cache)
				ex.cache.finished(r)
				results <- result{run: r, metrics: m, err: err, took: time.Since(t0)}
			}
		}()
	}
	stop := make(chan struct{})
	go func() {
		defer close(jobs)
		for _, r := range runs {
			select {
			case jobs <- r:
			case <-stop:
				return
			}
		}
	}()
	go func() { wg.Wait(); close(results) }()
	n := 0
	var first error
	fail := func(err error) {
		if first == nil {
			first = err
			close(stop)
		}
	}
	for res := range results {
		// Group commit: take every result already waiting.
		batch := []result{res}
	drain:
		for len(batch) < 256 {
			select {
			case more, ok := <-results:
				if !ok {
					break drain
				}
				batch = append(batch, more)
			default:
				break drain
			}
		}
		var runs []Run
		var ms []map[string]float64
		for _, b := range batch {
			if b.err != nil && errors.Is(b.err, system.ErrRunFailed) {
				// The run's own failure: recorded, and the sweep goes on.
				if err := ex.st.RecordFailure(b.run, b.err); err != nil {
					fail(err)
				}
				ex.failures = append(ex.failures, Failure{Key: b.run.Key, ConfigIndex: b.run.Config.Index, ConfigID: b.run.Config.ID, Rep: b.run.Rep, Seed: fmt.Sprint(b.run.Seed), Error: b.err.Error()})
				ex.donen++ // finished, if not well: the progress counts it
				if ex.o.Progress != nil {
					ex.o.Progress(ex.donen, ex.planned)
				}
				continue
			}
			if b.err != nil {
				fail(&RunError{Key: b.run.Key, Err: b.err})
				continue
			}
			runs = append(runs, b.run)
			ms = append(ms, b.metrics)
		}
		if len(runs) == 0 {
			continue
		}
		if err := ex.st.InsertBatch(runs, ms); err != nil {
			fail(err)
			continue
		}
		ex.gc.adjust()
		n += len(runs)
		ex.donen += len(runs)
		if ex.o.Progress != nil {
			ex.o.Progress(ex.donen, ex.planned)
		}
		if sample > 0 && sampled < sample {
			// Runs finished when the last sampled one did: those before it
			// in the batch (results arrive in the order runs finish).
			finished := ex.donen - len(runs)
			for _, b := range batch {
				if b.err != nil || sampled == sample {
					continue
				}
				finished++
				if inSample[b.run.Key] {
					sampled++
					sampleTime += b.took
				}
			}
			if sampled == sample {
				per := sampleTime / time.Duration(sample)
				left := ex.planned - finished
				ex.o.Estimate(Estimate{Sampled: sample, Left: left, Workers: ex.o.Workers, PerRun: per,
					Remaining: per * time.Duration(left) / time.Duration(ex.o.Workers), Elapsed: time.Since(start)})
			}
		}
	}
	return n, first
}

// RunError is a run that failed: its configuration could not be
// simulated (the sweep stops at the first).
type RunError struct {
	Key string
	Err error
}

func (e *RunError) Error() string { return "run " + e.Key + ": " + e.Err.Error() }
func (e *RunError) Unwrap() error { return e.Err }

// Agg is the aggregate of one metric over the replications of one
// configuration.
type Agg struct {
	ConfigIndex int
	ConfigID    string
	Params      map[string]string
	Metric      string
	N           int
	Mean, SD    float64
	HalfWidth   float64 // 95% CI half-width, Student's t with n−1 degrees of freedom
}

// Aggregate computes the aggregates of metrics, by configuration (in
// configuration order) then metric (in the given order).
func Aggregate(rows []Row, metrics []string) []Agg {
	type group struct {
		index  int
		id     string
		params map[string]string
		vals   map[string][]float64
	}
	groups := map[int]*group{}
	for _, r := range rows {
		g := groups[r.ConfigIndex]
		if g == nil {
			g = &group{index: r.ConfigIndex, id: r.ConfigID, params: r.Params, vals: map[string][]float64{}}
			groups[r.ConfigIndex] = g
		}
		for _, m := range metrics {
			if v, ok := r.Metrics[m]; ok { // a metric a run does not have is not a zero
				g.vals[m] = append(g.vals[m], v)
			}
		}
	}
	idx := make([]int, 0, len(groups))
	for i := range groups {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	var out []Agg
	for _, i := range idx {
		g := groups[i]
		for _, m := range metrics {
			if len(g.vals[m]) == 0 {
				continue
			}
			mean, sd, hw := CI95(g.vals[m])
			out = append(out, Agg{ConfigIndex: g.index, ConfigID: g.id, Params: g.params, Metric: m, N: len(g.vals[m]), Mean: mean, SD: sd, HalfWidth: hw})
		}
	}
	return out
}
