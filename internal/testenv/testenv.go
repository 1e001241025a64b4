// Package testenv locates test inputs shared outside the repository.
package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// TracesEnv names the environment variable that points at the folder of
// real traces. Its default is ../shared/traces relative to the module
// root.
const TracesEnv = "GRIDSCHED_TRACES"

// TracesDir returns the traces folder. It fails the test when the folder
// is missing: the integration tests are part of the contract, not optional.
func TracesDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv(TracesEnv)
	if dir == "" {
		root, err := moduleRoot()
		if err != nil {
			t.Fatal(err)
		}
		dir = filepath.Join(root, "..", "shared", "traces")
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Fatalf("traces folder %s not found (set %s): %v", dir, TracesEnv, err)
	}
	return dir
}

// Trace returns the path of one trace file, failing the test if absent.
func Trace(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join(TracesDir(t), name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("trace %s: %v", name, err)
	}
	return p
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", os.ErrNotExist
		}
		dir = parent
	}
}

// ReferenceEnv names the environment variable that points at the folder
// of reference facts (peers' schedules). Its default is
// ../shared/reference relative to the module root.
const ReferenceEnv = "GRIDSCHED_REFERENCE"

// ReferenceDir returns the reference folder, failing the test when it is
// missing.
func ReferenceDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv(ReferenceEnv)
	if dir == "" {
		root, err := moduleRoot()
		if err != nil {
			t.Fatal(err)
		}
		dir = filepath.Join(root, "..", "shared", "reference")
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Fatalf("reference folder %s not found (set %s): %v", dir, ReferenceEnv, err)
	}
	return dir
}
