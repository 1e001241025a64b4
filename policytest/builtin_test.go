package policytest_test

import (
	"testing"

	"github.com/gridsched/gridsched/engine"
	"github.com/gridsched/gridsched/policy"
	"github.com/gridsched/gridsched/policytest"
	"github.com/gridsched/gridsched/system"
	_ "github.com/gridsched/gridsched/system/all" // every system's policies register in package policy
)

// TestEveryBuiltinPolicy runs the harness on every policy of package
// policy's registry: the classic ones and those the systems register (a
// policy added to the registry is checked without another line). The
// external scheduler is checked with the Python examples in package
// external's tests.
func TestEveryBuiltinPolicy(t *testing.T) {
	for _, name := range policy.Names() {
		t.Run(name, func(t *testing.T) {
			var o policytest.Options
			if s, ok := system.Owner(name); ok && s.Name == "reservation" {
				// Seed 000's model: one processor per job, on
				// single-processor resources (§2 of the paper).
				o.Adapt = policytest.SingleProcessor
			}
			policytest.Check(t, func() engine.Policy {
				p, err := policy.New(name, nil)
				if err != nil {
					t.Fatal(err)
				}
				return p
			}, o)
		})
	}
}
