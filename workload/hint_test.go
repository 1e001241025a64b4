package workload

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gridsched/gridsched/swf"
)

// TestLineHintSizesJobList: an SWF without MaxRecords gets its job list
// made once from the file's record lines (plain: exactly; gzip: from the
// trailer's size, an estimate: within 15 % above here, where lines
// grow longer through the file), so loading does not grow it by
// copying; blank lines and short junk do not inflate it; the jobs are
// those Read gives.
func TestLineHintSizesJobList(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("; Computer: test\n; MaxProcs: 64\n")
	const n = 5000
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%d %d 10 %d 4 -1 -1 4 %d -1 1 %d 1 -1 1 -1 -1 -1\n", i, i*7, 100+i%50, 200+i%90, i%13)
	}
	plain := filepath.Join(dir, "t.swf")
	os.WriteFile(plain, []byte(b.String()), 0o644)
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte(b.String()))
	zw.Close()
	gz := filepath.Join(dir, "t.swf.gz")
	os.WriteFile(gz, z.Bytes(), 0o644)
	sr, err := swf.NewReader(strings.NewReader(b.String()), "t.swf")
	if err != nil {
		t.Fatal(err)
	}
	ref, err := Read(sr, "t.swf", Rules{}, Transform{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path     string
		min, max int
	}{{plain, n, n}, {gz, n, n * 23 / 20}} {
		w, err := LoadSWF(c.path, Rules{}, Transform{})
		if err != nil {
			t.Fatal(err)
		}
		if got := cap(w.Jobs); got < c.min || got > c.max {
			t.Errorf("%s: job list capacity %d, want %d–%d", filepath.Base(c.path), got, c.min, c.max)
		}
		if !reflect.DeepEqual(w.Jobs, ref.Jobs) {
			t.Errorf("%s: jobs differ from Read's", filepath.Base(c.path))
		}
	}
	// One record, then a million blank lines: no million-job list.
	blank := filepath.Join(dir, "blank.swf")
	os.WriteFile(blank, []byte("1 0 10 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n"+strings.Repeat("\n", 1<<20)), 0o644)
	w, err := LoadSWF(blank, Rules{}, Transform{})
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Jobs) != 1 || cap(w.Jobs) > 2 {
		t.Errorf("blank lines: %d jobs, capacity %d", len(w.Jobs), cap(w.Jobs))
	}
	// First caps it.
	w, err = LoadSWF(plain, Rules{}, Transform{First: 100})
	if err != nil || len(w.Jobs) != 100 || cap(w.Jobs) != 100 {
		t.Errorf("first 100: %d jobs, capacity %d, %v", len(w.Jobs), cap(w.Jobs), err)
	}
}
