package experiment

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gridsched/gridsched/gen"

	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/simulate"
	"github.com/gridsched/gridsched/system"
	"github.com/gridsched/gridsched/workload"
)

// Cache loads each trace (with its transform, rules and platform) once
// and shares it between runs: simulations only read a loaded workload.
type Cache struct {
	mu       sync.Mutex
	entries  map[string]*cacheEntry
	resolved map[int]*resolvedEntry
	admitted map[string]*admittedEntry // seed 000's admitted-by-both requests, by admittedKey
	// generated: the generated workloads the runs of a sweep share, by
	// sharedKey; users: how many of the sweep's runs not yet finished
	// have each key (expect, finished).
	generated map[string]*generatedEntry
	users     map[string]int
	// generations counts the workloads generated for runs, shared or
	// not (tests check that sharers generate once).
	generations atomic.Int64
	// own: every run generates its own workload, as outside a sweep
	// (tests compare a sweep with and without sharing).
	own bool
}

// generatedEntry is one generated workload (fitted to its platform),
// the platform and the generator's own platform (set on the run's config
// by generate); read only once made.
type generatedEntry struct {
	once          sync.Once
	w             *workload.Workload
	plat, cfgPlat *model.Platform
	err           error
}

// sharedKey names what a generated workload depends on: the
// replication's seed and every parameter of the configuration but the
// policy. The policies of one replication simulate the same jobs
// (common random numbers), so they share one generation instead of
// repeating it (issue 30: 21.5 % of the lublin-load sweep).
func sharedKey(r Run) string {
	var b strings.Builder
	b.WriteString(strconv.FormatUint(r.Seed, 10))
	for _, p := range r.Config.Params {
		if p.Key != "policy" {
			b.WriteString("|" + p.Key + "=" + FormatValue(p.Value))
		}
	}
	return b.String()
}

// expect tells the cache the runs a sweep is about to execute, so that
// a workload generated for one of them is kept until the last run that
// shares it has finished (finished), then dropped.
func (c *Cache) expect(runs []Run) {
	if c.own {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.users == nil {
		c.users, c.generated = map[string]int{}, map[string]*generatedEntry{}
	}
	for _, r := range runs {
		c.users[sharedKey(r)]++
	}
}

// finished tells the cache that run r (one of those expected) is done.
func (c *Cache) finished(r Run) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := sharedKey(r)
	if c.users[k] == 0 {
		return // not expected (the cache generates its own workloads)
	}
	if c.users[k]--; c.users[k] == 0 {
		delete(c.users, k)
		delete(c.generated, k)
	}
}

// generate is the generated workload of run r, made once for every
// expected run that shares it (sharedKey) and read only by them; a run
// the cache was not told of generates its own.
func (c *Cache) generate(r Run, res *resolvedEntry, cfg *simulate.Config) (*workload.Workload, *model.Platform, error) {
	key := sharedKey(r)
	c.mu.Lock()
	var e *generatedEntry
	if c.users[key] > 0 {
		if e = c.generated[key]; e == nil {
			e = &generatedEntry{}
			c.generated[key] = e
		}
	}
	c.mu.Unlock()
	if e == nil {
		c.generations.Add(1)
		return generate(res, cfg)
	}
	own := cfg.Platform
	e.once.Do(func() {
		c.generations.Add(1)
		e.w, e.plat, e.err = generate(res, cfg)
		e.cfgPlat = cfg.Platform
	})
	if e.err != nil {
		return nil, nil, e.err
	}
	if own != nil {
		return e.w, own, nil // this run's own platform (same shape as the shared one's)
	}
	cfg.Platform = e.cfgPlat // what generate set
	return e.w, e.plat, nil
}

// resolvedEntry is a configuration resolved once: its run config and,
// for a model workload, its decoded and checked parameters.
type resolvedEntry struct {
	once   sync.Once
	rc     *RunConfig
	model  *gen.Model
	params any
	// prepared: the systems' sections, prepared once (a hierarchy's
	// tree is built here; runs only read them).
	prepared system.Prepared
	err      error
}

// resolve returns the run config of c (and its model parameters),
// resolving it only once: YAML decoding per run would cost more than a
// small simulation.
func (c *Cache) resolve(s *Spec, cfg *Config) (*resolvedEntry, error) {
	c.mu.Lock()
	e, ok := c.resolved[cfg.Index]
	if !ok {
		e = &resolvedEntry{}
		c.resolved[cfg.Index] = e
	}
	c.mu.Unlock()
	e.once.Do(func() {
		e.rc, e.err = cfg.Resolve(s)
		if e.err == nil && e.rc.Workload.Model != "" {
			e.model, e.params, e.err = e.rc.modelParams()
		}
		if e.err == nil {
			e.prepared, e.err = e.rc.prepare(s)
		}
		if f, ok := e.params.(*gen.TraceReservationFile); ok && e.err == nil && f.Trace != "" {
			// Load the trace once per spec, not once per run.
			f.Trace = s.resolvePath(f.Trace, true)
			e.err = c.traceJobs(f)
		}
	})
	return e, e.err
}

// traceJobs sets f.Jobs to the trace f names, loaded once.
func (c *Cache) traceJobs(f *gen.TraceReservationFile) error {
	e := c.entry("trace-jobs|" + f.Trace)
	e.once.Do(func() {
		e.w, e.err = workload.Load(f.Trace, workload.Rules{}, workload.Transform{})
	})
	if e.err != nil {
		return e.err
	}
	f.Jobs = e.w.Jobs
	return nil
}

type cacheEntry struct {
	once sync.Once
	w    *workload.Workload
	p    *model.Platform
	err  error
}

// NewCache returns an empty cache.
func NewCache() *Cache {
	return &Cache{entries: map[string]*cacheEntry{}, resolved: map[int]*resolvedEntry{}}
}

// entry returns the cache entry of key, made empty on first use.
func (c *Cache) entry(key string) *cacheEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok {
		e = &cacheEntry{}
		c.entries[key] = e
	}
	return e
}

func (c *Cache) load(cfg *simulate.Config) (*workload.Workload, *model.Platform, error) {
	// The workload's fitting depends on the platform's size and node size
	// only: runs on different platforms of one shape share it.
	size, node := 0, 0
	if cfg.Platform != nil {
		size = cfg.Platform.TotalPEs()
		if len(cfg.Platform.Nodes) > 0 {
			node = cfg.Platform.Nodes[0].PEs
		}
	}
	key := fmt.Sprintf("%s|%+v|%+v|%d|%s|%v|%d|%d", cfg.WorkloadPath, cfg.Transform, cfg.Rules, cfg.Nodes, cfg.PlatformPath, cfg.WholeNodes, size, node)
	e := c.entry(key)
	e.once.Do(func() {
		local := *cfg
		e.w, e.p, e.err = simulate.Load(&local)
	})
	return e.w, e.p, e.err
}
