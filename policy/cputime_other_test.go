//go:build !unix

package policy_test

import "time"

// cpuTime is not measured off Unix (the benchmark's CPU metrics read 0).
func cpuTime() time.Duration { return 0 }
