//go:build !unix

package testenv

import "time"

// CPUTime is not measured here (benchmarks report 0).
func CPUTime() time.Duration { return 0 }
