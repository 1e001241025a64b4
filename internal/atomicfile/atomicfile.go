// Package atomicfile writes files whole or not at all: into a temporary
// file of the destination's folder, synced, then renamed over the
// destination. A failed write (an error, a full disk) leaves the old file
// and no temporary file. A killed writer leaves the old file too; on
// Linux the temporary file has no name while it is written (O_TMPFILE)
// and gets one only for the instant before the rename, so a kill leaves
// nothing behind either (elsewhere, or on a file system without
// O_TMPFILE, a named temporary file ".NAME-*" may be left).
package atomicfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// unnamed says whether to try an unnamed temporary file first (tests
// switch it off to check the named fallback).
var unnamed = true

// Write writes path through write with permissions perm. write may
// stream (a workload of millions of jobs); nothing of it is visible at
// path until write has returned nil and the data are synced.
func Write(path string, perm os.FileMode, write func(io.Writer) error) error {
	return WriteHook(path, perm, write, nil)
}

// WriteHook is Write with a hook called with the temporary file and the
// destination just before the rename (tests kill or inspect there; nil:
// none).
func WriteHook(path string, perm os.FileMode, write func(io.Writer) error, beforeRename func(tmp, dst string)) (err error) {
	dir := filepath.Dir(path)
	var f *os.File
	anonymous := false
	if unnamed {
		f, anonymous = openUnnamed(dir, perm)
	}
	if f == nil {
		if f, err = os.CreateTemp(dir, "."+filepath.Base(path)+"-*"); err != nil {
			return err
		}
	}
	tmp := "" // the temporary file's name, once it has one
	if !anonymous {
		tmp = f.Name()
	}
	defer func() {
		if err != nil {
			f.Close()
			if tmp != "" {
				os.Remove(tmp)
			}
			err = fmt.Errorf("%s: %w", path, err)
		}
	}()
	if err = write(f); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Chmod(perm); err != nil {
		return err
	}
	if anonymous {
		if tmp, err = link(f, dir, "."+filepath.Base(path)+"-"); err != nil {
			// No /proc to name it through: copy it to a named file.
			if f, tmp, err = named(f, path, perm); err != nil {
				return err
			}
		}
	}
	if err = f.Close(); err != nil {
		return err
	}
	if beforeRename != nil {
		beforeRename(tmp, path)
	}
	return os.Rename(tmp, path)
}

// WriteFile writes data to path (mode perm).
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return Write(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// named copies the unnamed file f (closing it) into a named temporary
// file for path, synced, and returns that file and its name.
func named(f *os.File, path string, perm os.FileMode) (*os.File, string, error) {
	defer f.Close()
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return f, "", err
	}
	g, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+"-*")
	if err != nil {
		return f, "", err
	}
	if _, err = io.Copy(g, f); err == nil {
		if err = g.Sync(); err == nil {
			err = g.Chmod(perm)
		}
	}
	return g, g.Name(), err
}
