package system_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNoSystemImports is issue 13's rule: no package of the run pipeline
// (simulate, experiment, report) nor the command line names a system's
// package; they reach the systems through the registry, and the command
// line imports system/all for the registrations. Checked on the source,
// tests excluded (they may import a system to test it).
func TestNoSystemImports(t *testing.T) {
	systems := []string{"cloud", "hgrid", "unstable", "reservation"}
	for _, dir := range []string{"simulate", "experiment", "report", "cli", "cmd/gridsched", "output", "metrics", "engine", "policy", "workload", "model"} {
		files, err := filepath.Glob(filepath.Join("..", dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", dir, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			file, err := parser.ParseFile(token.NewFileSet(), f, src, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, im := range file.Imports {
				path, _ := strconv.Unquote(im.Path.Value)
				for _, s := range systems {
					if path == "github.com/gridsched/gridsched/"+s {
						t.Errorf("%s imports %s: go through package system's registry", f, path)
					}
				}
			}
		}
	}
}
