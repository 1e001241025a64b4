package external

import "golang.org/x/sys/unix"

// pipe makes a pipe whose ends are closed on exec.
func pipe(p []int) error { return unix.Pipe2(p, unix.O_CLOEXEC) }
