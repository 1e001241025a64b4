package main

import (
	"testing"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/policy"
	"github.com/gridsched/gridsched/policytest"
)

// TestLargestFirst: the engine's invariants, on the fixtures and random
// cases every built-in policy passes.
func TestLargestFirst(t *testing.T) {
	policytest.Check(t, func() engine.Policy { return NewLargestFirst(policy.FirstFit{}) })
}
