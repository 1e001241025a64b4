package policy

import (
	"fmt"
	"slices"
	"sort"

	"github.com/gridsched/gridsched/engine"
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
	f, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("unknown policy %q (known: %v)", name, Names())
	}
	if sel == nil {
		sel = FirstFit{}
	}
	return f(sel), nil
}

// Names lists the registered policies in alphabetical order.
func Names() []string {
	var ns []string
	for n := range registry {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return ns
}

// Describe returns the one-line description of a registered policy.
func Describe(name string) string { return descriptions[name] }

func init() {
	Register("fcfs", "first come, first served: start jobs in arrival order, never out of order", func(sel NodeSelector) engine.Policy { return NewFCFS(sel) })
	Register("easy", "EASY backfilling (Lifka 1995; Mu'alem & Feitelson 2001): only the queue head holds a reservation; decides once every job ending at an instant has released its processors", func(sel NodeSelector) engine.Policy { return NewEASY(sel) })
	Register("easy-per-event", "EASY backfilling consulted after every single event, completions before arrivals at an instant (CQSim's order): same-time completions are seen one at a time", func(sel NodeSelector) engine.Policy { return NewEASYPerEvent(sel) })
	Register("conservative", "conservative backfilling (Mu'alem & Feitelson 2001): every job holds a reservation, compressed when jobs end early", func(sel NodeSelector) engine.Policy { return NewConservative(sel) })
}

// queue is a waiting queue in arrival order (engine job index order).
type queue []*engine.Job

// insert adds j at its arrival position (requeued jobs keep their place).
func (q queue) insert(j *engine.Job) queue {
	n := len(q)
	if n == 0 || q[n-1].Index < j.Index {
		return append(q, j)
	}
	i, _ := slices.BinarySearchFunc(q, j.Index, func(a *engine.Job, idx int32) int { return int(a.Index - idx) })
	return slices.Insert(q, i, j)
}

// remove deletes j if present.
func (q queue) remove(j *engine.Job) queue {
	i, ok := slices.BinarySearchFunc(q, j.Index, func(a *engine.Job, idx int32) int { return int(a.Index - idx) })
	if !ok {
		return q
	}
	return slices.Delete(q, i, i+1)
}
