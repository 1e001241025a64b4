//go:build unix

package testenv

import (
	"syscall"
	"time"
)

// CPUTime is the CPU time (user + sys) of this process so far, for
// benchmarks on a machine shared with other work.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
