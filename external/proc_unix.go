//go:build unix && !linux

package external

import "syscall"

// procAttr starts the scheduler in a process group of its own (killed
// whole at the end).
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
