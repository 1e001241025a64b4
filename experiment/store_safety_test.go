package experiment

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// storeWithRuns makes a store of the small spec with every run done.
func storeWithRuns(t *testing.T) (*Spec, string) {
	t.Helper()
	s := mustParse(t, small, "")
	path := filepath.Join(t.TempDir(), StoreFile)
	sweep(t, s, path, Options{Workers: 2})
	return s, path
}

// TestExportIsAtomic: runs.csv and aggregate.csv are published by rename
// (issue 18, item 8). At the moment of the rename the old file is still
// whole and the new one complete in a temporary file, so a kill at any
// moment leaves one or the other; a failing write leaves the old file and
// no temporary file.
func TestExportIsAtomic(t *testing.T) {
	_, path := storeWithRuns(t)
	dir := filepath.Dir(path)
	for _, f := range []string{RunsFile, AggregateFile, ProvenanceFile} {
		os.WriteFile(filepath.Join(dir, f), []byte("old\n"), 0o644)
	}
	renames := 0
	beforeRename = func(tmp, dst string) {
		renames++
		if b, _ := os.ReadFile(dst); string(b) != "old\n" {
			t.Errorf("%s changed before the rename: %q", dst, b)
		}
		head := "config_index,"
		if filepath.Base(dst) == ProvenanceFile {
			head = "{\n"
		}
		if b, _ := os.ReadFile(tmp); !strings.HasPrefix(string(b), head) || !strings.HasSuffix(string(b), "\n") {
			t.Errorf("temporary file of %s is not the complete export: %.40q", dst, b)
		}
	}
	defer func() { beforeRename = nil }()
	st, err := OpenExisting(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, _, err := Export(st, dir); err != nil {
		t.Fatal(err)
	}
	if renames != 3 {
		t.Fatalf("%d renames, want 3 (runs, aggregate, provenance)", renames)
	}
	// A write that fails half-way (a full disk) keeps the old file.
	target := filepath.Join(dir, RunsFile)
	before, _ := os.ReadFile(target)
	err = writeAtomic(target, func(f io.Writer) error {
		io.WriteString(f, "half a fi")
		return errors.New("no space left on device")
	})
	if err == nil || !strings.Contains(err.Error(), "no space left") {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(target); string(after) != string(before) {
		t.Fatal("a failed export changed the file")
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*-*"))
	if len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}

// TestLockNamesHolder: a second writer of one store is refused, told who
// holds it (issue 18, item 9); the lock is released at Unlock.
func TestLockNamesHolder(t *testing.T) {
	store := filepath.Join(t.TempDir(), "run", StoreFile)
	l, err := LockStore(store)
	if err != nil {
		t.Fatal(err)
	}
	_, err = LockStore(store)
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "pid "+strconv.Itoa(os.Getpid())) || !strings.Contains(err.Error(), store) {
		t.Fatalf("second lock: %v", err)
	}
	// Shards of one folder have stores of their own, and locks.
	other, err := LockStore(filepath.Join(filepath.Dir(store), "store-1-of-2.db"))
	if err != nil {
		t.Fatal(err)
	}
	other.Unlock()
	l.Unlock()
	l2, err := LockStore(store)
	if err != nil {
		t.Fatalf("after unlock: %v", err)
	}
	l2.Unlock()
}

// TestDeletedWALKeepsRuns: after a clean close store.db alone holds every
// run (issue 18, item 10); while a store is open, group commits are
// checkpointed, so store.db alone holds what was committed.
func TestDeletedWALKeepsRuns(t *testing.T) {
	_, path := storeWithRuns(t)
	for _, ext := range []string{"-wal", "-shm"} {
		os.Remove(path + ext)
	}
	st, err := OpenExisting(path)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := st.Rows()
	st.Close()
	if err != nil || len(rows) != 12 {
		t.Fatalf("%d runs after deleting the WAL, want 12 (%v)", len(rows), err)
	}

	// Open store: copy store.db alone after a group commit.
	old := CheckpointEvery
	CheckpointEvery = 0
	defer func() { CheckpointEvery = old }()
	s := mustParse(t, small, "")
	p2 := filepath.Join(t.TempDir(), StoreFile)
	st2, err := OpenStore(p2, s, false)
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	cs := s.Configs()
	if err := st2.InsertBatch([]Run{s.NewRun(&cs[0], 0), s.NewRun(&cs[1], 0)}, []map[string]float64{{"mean_wait": 1}, {"mean_wait": 2}}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p2)
	copyPath := filepath.Join(t.TempDir(), StoreFile)
	os.WriteFile(copyPath, b, 0o644)
	cp, err := OpenExisting(copyPath)
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Close()
	if rows, err := cp.Rows(); err != nil || len(rows) != 2 {
		t.Fatalf("store.db alone holds %d runs, want 2 (%v)", len(rows), err)
	}
}

// TestDamagedStoreSaysWhatToDo: a malformed store names the file and the
// ways out (issue 18, items 6 and 10).
func TestDamagedStoreSaysWhatToDo(t *testing.T) {
	s, path := storeWithRuns(t)
	b, _ := os.ReadFile(path)
	for i := 100; i < len(b); i += 3 {
		b[i] ^= 0x5a
	}
	os.WriteFile(path, b, 0o644)
	check := func(what string, err error) {
		t.Helper()
		if err == nil {
			t.Fatalf("%s: a damaged store was accepted", what)
		}
		for _, want := range []string{path, "damaged", "--out NEW", "gridsched merge"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %v lacks %q", what, err, want)
			}
		}
	}
	st, err := OpenStore(path, s, true)
	if err == nil {
		_, err = st.Rows()
		st.Close()
	}
	check("resume", err)
	os.WriteFile(path, []byte(strings.Repeat("not sqlite ", 500)), 0o644)
	_, err = OpenExisting(path)
	check("open", err)
}
