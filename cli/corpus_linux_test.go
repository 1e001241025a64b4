//go:build linux

package cli

import "syscall"

// limitAddressSpace caps the process's address space (RLIMIT_AS): an
// input that makes gridsched allocate more fails the corpus with "out of
// memory" instead of passing on a machine with enough memory. It reports
// whether the cap is in force: a mapping of more than the cap is refused.
func limitAddressSpace(bytes uint64) bool {
	lim := syscall.Rlimit{Cur: bytes, Max: bytes}
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &old); err == nil && old.Max < bytes {
		lim = syscall.Rlimit{Cur: old.Max, Max: old.Max}
	}
	if syscall.Setrlimit(syscall.RLIMIT_AS, &lim) != nil {
		return false
	}
	b, err := syscall.Mmap(-1, 0, int(bytes), syscall.PROT_READ, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err == nil {
		syscall.Munmap(b)
		return false
	}
	return true
}
