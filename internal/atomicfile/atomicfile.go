// Package atomicfile writes files whole or not at all: into a temporary
// file of the destination's folder, synced, then renamed over the
// destination. A kill or a full disk at any moment leaves either the old
// file or the new one, never a part, and no temporary file behind.
package atomicfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Write writes path through write with permissions perm.
func Write(path string, perm os.FileMode, write func(io.Writer) error) error {
	return WriteHook(path, perm, write, nil)
}

// WriteHook is Write with a hook called with the temporary file and the
// destination just before the rename (tests kill or inspect there; nil:
// none).
func WriteHook(path string, perm os.FileMode, write func(io.Writer) error, beforeRename func(tmp, dst string)) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	err = write(tmp)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), perm)
	}
	if err == nil && beforeRename != nil {
		beforeRename(tmp.Name(), path)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// WriteFile writes data to path (mode perm).
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return Write(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
