package main

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// quick is the package's one `reproduce --quick`, shared by the tests
// that read it (the figures and the browser test): it is the costliest
// thing the tests do (minutes on a loaded 2-core machine), and running it
// once keeps `go test ./...` inside its time limit there (issue 18, item
// 11).
var quick struct {
	once          sync.Once
	dir, out, res string
	err           error
}

// quickReproduction returns the folder `reproduce --quick` wrote (run
// once, from the repository root) and what it printed. Tests may add
// files to the folder but must not change what is there.
func quickReproduction(t *testing.T) (out, res string) {
	t.Helper()
	quick.once.Do(func() {
		if quick.dir, quick.err = os.MkdirTemp("", "gridsched-quick-"); quick.err != nil {
			return
		}
		quick.out = filepath.Join(quick.dir, "quick")
		root, _ := filepath.Abs(filepath.Join("..", ".."))
		wd, _ := os.Getwd()
		os.Chdir(root)
		defer os.Chdir(wd)
		quick.res, quick.err = run("reproduce", "--quick", "--quiet", "--out", quick.out)
	})
	if quick.err != nil {
		t.Fatal(quick.err)
	}
	return quick.out, quick.res
}

func TestMain(m *testing.M) {
	code := m.Run()
	if quick.dir != "" {
		os.RemoveAll(quick.dir)
	}
	os.Exit(code)
}
