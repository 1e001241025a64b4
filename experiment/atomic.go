package experiment

import (
	"io"

	"github.com/gridsched/gridsched/internal/atomicfile"
)

// beforeRename, when set (tests), is called with the temporary file and
// the destination just before the rename that publishes an export.
var beforeRename func(tmp, dst string)

// writeAtomic writes path through write: into a temporary file of the
// same folder, synced, then renamed over path (package atomicfile). A
// kill or a full disk at any moment leaves either the old file or the new
// one, never a part.
func writeAtomic(path string, write func(io.Writer) error) error {
	return atomicfile.WriteHook(path, 0o644, write, beforeRename)
}
