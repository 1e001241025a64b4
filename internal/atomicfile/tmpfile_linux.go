package atomicfile

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// openUnnamed opens an unnamed file in dir (O_TMPFILE): it vanishes if
// the process dies before link gives it a name. It returns nil when the
// file system cannot (the caller then uses a named temporary file).
func openUnnamed(dir string, perm os.FileMode) (*os.File, bool) {
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, uint32(perm.Perm()))
	if err != nil {
		return nil, false
	}
	return os.NewFile(uintptr(fd), filepath.Join(dir, "(unnamed)")), true
}

// link gives the unnamed file f a fresh name prefix+random in dir
// (through /proc: linking the descriptor itself needs a privilege).
func link(f *os.File, dir, prefix string) (string, error) {
	proc := "/proc/self/fd/" + strconv.Itoa(int(f.Fd()))
	for range 100 {
		name := filepath.Join(dir, prefix+strconv.FormatUint(rand.Uint64()%1e10, 10))
		err := unix.Linkat(unix.AT_FDCWD, proc, unix.AT_FDCWD, name, unix.AT_SYMLINK_FOLLOW)
		if err == nil {
			return name, nil
		}
		if err != unix.EEXIST {
			return "", fmt.Errorf("naming the temporary file: %w", err)
		}
	}
	return "", fmt.Errorf("naming the temporary file: 100 names taken")
}
