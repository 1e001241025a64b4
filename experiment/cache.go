package experiment

import (
	"fmt"
	"sync"

	"github.com/gridsched/gridsched/model"
	"github.com/gridsched/gridsched/simulate"
	"github.com/gridsched/gridsched/workload"
)

// Cache loads each trace (with its transform, rules and platform) once
// and shares it between runs: simulations only read a loaded workload.
type Cache struct {
	mu      sync.Mutex
	entries map[string]*cacheEntry
}

type cacheEntry struct {
	once sync.Once
	w    *workload.Workload
	p    *model.Platform
	err  error
}

// NewCache returns an empty cache.
func NewCache() *Cache { return &Cache{entries: map[string]*cacheEntry{}} }

func (c *Cache) load(cfg *simulate.Config) (*workload.Workload, *model.Platform, error) {
	key := fmt.Sprintf("%s|%+v|%+v|%d|%s", cfg.WorkloadPath, cfg.Transform, cfg.Rules, cfg.Nodes, cfg.PlatformPath)
	c.mu.Lock()
	e, ok := c.entries[key]
	if !ok {
		e = &cacheEntry{}
		c.entries[key] = e
	}
	c.mu.Unlock()
	e.once.Do(func() {
		local := *cfg
		e.w, e.p, e.err = simulate.Load(&local)
	})
	return e.w, e.p, e.err
}
