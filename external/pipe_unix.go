//go:build unix && !linux

package external

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// pipe makes a pipe whose ends are closed on exec (under the fork lock,
// as package os does where pipe2 is missing).
func pipe(p []int) error {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	if err := unix.Pipe(p); err != nil {
		return err
	}
	unix.CloseOnExec(p[0])
	unix.CloseOnExec(p[1])
	return nil
}
