//go:build !linux

package atomicfile

import (
	"errors"
	"os"
)

// openUnnamed: unnamed files are Linux's (O_TMPFILE); elsewhere the
// caller uses a named temporary file.
func openUnnamed(dir string, perm os.FileMode) (*os.File, bool) { return nil, false }

func link(f *os.File, dir, prefix string) (string, error) {
	return "", errors.New("no unnamed temporary files here")
}
