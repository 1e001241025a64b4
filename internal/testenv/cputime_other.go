//go:build !unix

package testenv

import "time"

// CPUTime is not measured off Unix (0).
func CPUTime() time.Duration { return 0 }
