package external

import "syscall"

// procAttr starts the scheduler in a process group of its own (killed
// whole at the end) and asks the kernel to kill it if gridsched dies
// first (a killed sweep leaves no scheduler running).
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
