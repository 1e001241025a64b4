package experiment

import (
	"fmt"
	"sync"

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
