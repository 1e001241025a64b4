//go:build !unix

package experiment

import "time"

// cpuTime is not measured here (BenchmarkSweepScaling reports 0).
func cpuTime() time.Duration { return 0 }
