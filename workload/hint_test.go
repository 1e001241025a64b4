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

	"github.com/gridsched/gridsched/model"
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

// TestEqualTraceFieldsShared: jobs whose pass-through fields are equal
// bit for bit share one TraceFields (a generated trace: few distinct
// values), jobs whose fields differ in one field do not, and every job reads back its own record's values; a
// trace whose first swfShareProbe records are mostly distinct stops
// sharing (two equal records after that get two copies).
func TestEqualTraceFieldsShared(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("; MaxProcs: 64\n")
	// id submit wait run alloc avgcpu usedmem reqprocs reqtime reqmem status user group exe queue part prec think
	for i := 1; i <= 300; i++ {
		fmt.Fprintf(&b, "%d %d -1 10 4 -1 -1 %d 100 -1 1 %d -1 -1 1 -1 -1 -1\n", i, i, 4+i%3, i%2)
	}
	b.WriteString("301 301 -1 10 4 -1 -1 4 100 -1 1 0 -1 -1 1 -1 -1 2.5\n")
	b.WriteString("302 302 -1 10 4 -1 -1 4 100 -1 1 0 -1 -1 1 -1 -1 -1\n")
	path := filepath.Join(dir, "shared.swf")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := LoadSWF(path, Rules{}, Transform{})
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Jobs) != 302 {
		t.Fatalf("%d jobs", len(w.Jobs))
	}
	distinct := map[*model.TraceFields]bool{}
	for i, j := range w.Jobs[:300] {
		distinct[j.TraceFields] = true
		if want := 4 + (i+1)%3; j.ReqProcs != want || j.User != (i+1)%2 {
			t.Fatalf("job %d: reqprocs %d user %d, want %d %d", j.ID, j.ReqProcs, j.User, want, (i+1)%2)
		}
	}
	if len(distinct) != 6 { // 3 requests × 2 users
		t.Fatalf("%d distinct TraceFields for 6 distinct values", len(distinct))
	}
	a, c := w.Jobs[300], w.Jobs[301]
	if a.TraceFields == c.TraceFields || a.Think != 2.5 || c.Think != -1 || c.TraceFields != w.Jobs[5].TraceFields {
		t.Fatalf("think time 2.5 and -1: %v %v, shared %v; job 302 shares job 6's fields: %v", a.Think, c.Think, a.TraceFields == c.TraceFields, c.TraceFields == w.Jobs[5].TraceFields)
	}

	// Mostly distinct: sharing stops after the probe.
	b.Reset()
	b.WriteString("; MaxProcs: 64\n")
	for i := 1; i <= swfShareProbe; i++ {
		fmt.Fprintf(&b, "%d %d %d 10 4 -1 -1 4 100 -1 1 1 -1 -1 1 -1 -1 -1\n", i, i, i) // distinct waits
	}
	for i := swfShareProbe + 1; i <= swfShareProbe+2; i++ {
		fmt.Fprintf(&b, "%d %d 7 10 4 -1 -1 4 100 -1 1 1 -1 -1 1 -1 -1 -1\n", i, i)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if w, err = LoadSWF(path, Rules{}, Transform{}); err != nil {
		t.Fatal(err)
	}
	n := len(w.Jobs)
	x, y := w.Jobs[n-2], w.Jobs[n-1]
	if x.TraceWait != 7 || y.TraceWait != 7 || x.TraceFields == y.TraceFields {
		t.Fatalf("after a distinct probe: waits %v %v, shared %v", x.TraceWait, y.TraceWait, x.TraceFields == y.TraceFields)
	}
}

// TestCapacityHintLargeHeader: a header's record count is trusted up to
// 2^16; past that the file's record lines bound it (a generated 10M-job
// trace with an honest header grew its job list by copying; a one-line
// file claiming 2^22 records reserved 235 MB), and a header above 2^22
// with no line count to check it against stays capped.
func TestCapacityHintLargeHeader(t *testing.T) {
	h := func(n string) swf.Header { return swf.Header{{Key: "MaxRecords", Value: n}} }
	called := 0
	lines := func(n int) func() int { return func() int { called++; return n } }
	cases := []struct {
		header string
		lines  int
		first  int
		want   int
		asked  bool
	}{
		{"1000", 7, 0, 1000, false},                   // small claims are trusted, no pass over the file
		{"65536", 7, 0, 65536, false},                 // up to 2^16
		{"4194304", 1, 0, 1, true},                    // a one-line file claiming 2^22
		{"100000", 0, 0, 100000, true},                // lines unknown: the claim, below 2^22
		{"10000000", 10_000_000, 0, 10_000_000, true}, // an honest large header
		{"10000000", 6_000_000, 0, 6_000_000, true},   // a header above the lines
		{"1000000000000", 5, 0, 5, true},              // an absurd claim
		{"10000000", 0, 0, 1 << 22, true},             // lines unknown: capped
		{"10000000", 9_000_000, 5_000_000, 5_000_000, true},
	}
	for _, c := range cases {
		called = 0
		if got := capacityHint(h(c.header), Transform{First: c.first}, lines(c.lines)); got != c.want || (called > 0) != c.asked {
			t.Errorf("header %s, %d lines, first %d: hint %d (lines asked %v), want %d (%v)", c.header, c.lines, c.first, got, called > 0, c.want, c.asked)
		}
	}
}
