package experiment

import (
	"fmt"
	"os"
	"path/filepath"
)

// beforeRename, when set (tests), is called with the temporary file and
// the destination just before the rename that publishes an export.
var beforeRename func(tmp, dst string)

// writeAtomic writes path through write: into a temporary file of the
// same folder, synced, then renamed over path. A kill or a full disk at
// any moment leaves either the old file or the new one, never a part.
func writeAtomic(path string, write func(*os.File) error) error {
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
		err = os.Chmod(tmp.Name(), 0o644)
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
