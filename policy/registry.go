package policy

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/internal/quote"
)

// Factory builds a fresh policy for one simulation. Node selection is a
// separate choice; nil means first-fit.
type Factory func(sel NodeSelector) engine.Policy

var registry = map[string]Factory{}
var descriptions = map[string]string{}

// Register adds a policy under name. It panics on a duplicate name: that
// is a programming error, found by any test.
func Register(name, description string, f Factory) {
	if _, dup := registry[name]; dup {
		panic("policy: duplicate registration of " + name)
	}
	registry[name] = f
	descriptions[name] = description
}

// New builds the policy registered under name.
func New(name string, sel NodeSelector) (engine.Policy, error) {
	if sel == nil {
		sel = FirstFit{}
	}
	f, ok := registry[name]
	if !ok {
		_, isAlias := aliases[name]
		if !isAlias && name != "classic" && !strings.Contains(name, ":") {
			return nil, fmt.Errorf("unknown policy %s (known: %v; or an alias with axes, e.g. easy:order=sjf,backfill=sjbf)", quote.Clip(name), Names())
		}
		return newFromSpec(name, sel)
	}
	return f(sel), nil
}

// Names lists the registered policies in alphabetical order.
func Names() []string {
	var ns []string
	for n := range registry {
		ns = append(ns, n)
	}
	for n := range aliases {
		if _, dup := registry[n]; !dup {
			ns = append(ns, n)
		}
	}
	sort.Strings(ns)
	return ns
}

// Describe returns the one-line description of a registered policy or
// alias.
func Describe(name string) string {
	if d, ok := descriptions[name]; ok {
		return d
	}
	return aliases[name].desc
}

func init() {
	Register("easy-per-event", "EASY backfilling consulted after every single event, completions before arrivals at an instant (CQSim's order): same-time completions are seen one at a time", func(sel NodeSelector) engine.Policy { return NewEASYPerEvent(sel) })
}

// queue is a waiting queue in arrival order (engine job index order).
type queue []*engine.Job

// insert adds j at its arrival position (requeued jobs keep their place).
func (q queue) insert(j *engine.Job) queue {
	n := len(q)
	if n == 0 || q[n-1].Index < j.Index {
		return append(q, j)
	}
	i, _ := q.find(j)
	return slices.Insert(q, i, j)
}

// find is j's position in q (where it would go, and whether it is there).
func (q queue) find(j *engine.Job) (int, bool) {
	return slices.BinarySearchFunc(q, j.Index, func(a *engine.Job, idx int32) int { return int(a.Index - idx) })
}

// remove deletes j if present.
func (q queue) remove(j *engine.Job) queue {
	i, ok := q.find(j)
	if !ok {
		return q
	}
	return slices.Delete(q, i, i+1)
}
