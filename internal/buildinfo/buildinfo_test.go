package buildinfo

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gridsched/gridsched"
)

// TestSourcesCoverModule: every Go file of the module that is compiled
// into gridsched (not a test, not under scripts/ or testdata/) is among
// the embedded sources the identity hashes, with its current content: a
// package in a folder deeper than the embed patterns reach would make
// a code change invisible.
func TestSourcesCoverModule(t *testing.T) {
	root := filepath.Join("..", "..")
	embedded, err := SourceFiles(gridsched.Sources)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, f := range embedded {
		have[f] = true
	}
	n := 0
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "scripts" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil && rel != "." {
				return filepath.SkipDir // a module of its own (examples/extension)
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		n++
		if !have[rel] {
			t.Errorf("%s is compiled but not embedded: widen the //go:embed patterns of sources.go", rel)
			return nil
		}
		disk, _ := os.ReadFile(p)
		emb, _ := fs.ReadFile(gridsched.Sources, rel)
		if string(disk) != string(emb) {
			t.Errorf("%s: embedded copy differs from the file", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 50 {
		t.Fatalf("only %d Go files found", n)
	}
}

// TestIdentityFollowsCodeNotDocs: the identity changes with a compiled
// file, a dependency's checksum, the toolchain or a build setting, and
// not with the VCS stamp (a new commit that changed only documentation);
// a dependency replaced by a local folder falls back to the executable's
// hash.
func TestIdentityFollowsCodeNotDocs(t *testing.T) {
	src := fstest.MapFS{
		"go.mod":           {Data: []byte("module m\n")},
		"go.sum":           {Data: []byte("")},
		"engine/a.go":      {Data: []byte("package engine\n")},
		"engine/a_test.go": {Data: []byte("package engine\n// a test\n")},
		"scripts/x/m.go":   {Data: []byte("package main\n")},
	}
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Deps: []*debug.Module{{Path: "d", Version: "v1", Sum: "h1:x"}},
		Settings: []debug.BuildSetting{{Key: "-trimpath", Value: "true"}, {Key: "vcs.revision", Value: "aaa"}}}
	exe := func(h string) func() string { return func() string { return h } }
	base := codeIdentity(bi, true, src, exe("0123456789abcdef0123"))
	if !strings.HasPrefix(base, "src:") || len(base) != 20 {
		t.Fatalf("identity %q", base)
	}
	same := func(what string, id string, want bool) {
		t.Helper()
		if (id == base) != want {
			t.Errorf("%s: identity %s, base %s, want same=%v", what, id, base, want)
		}
	}
	// A new commit (another VCS stamp), a test or a script: the same.
	bi2 := *bi
	bi2.Settings = []debug.BuildSetting{{Key: "-trimpath", Value: "true"}, {Key: "vcs.revision", Value: "bbb"}, {Key: "vcs.modified", Value: "true"}}
	same("new revision", codeIdentity(&bi2, true, src, exe("ffff456789abcdef0123")), true)
	src2 := fstest.MapFS{}
	for k, v := range src {
		src2[k] = v
	}
	src2["engine/a_test.go"] = &fstest.MapFile{Data: []byte("package engine\n// another test\n")}
	src2["scripts/x/m.go"] = &fstest.MapFile{Data: []byte("package main\n// changed\n")}
	same("test and script edits", codeIdentity(bi, true, src2, exe("")), true)
	// A compiled file, go.sum, a dependency, the toolchain, a setting: changed.
	src2["engine/a.go"] = &fstest.MapFile{Data: []byte("package engine\n// changed\n")}
	same("code edit", codeIdentity(bi, true, src2, exe("")), false)
	src3 := fstest.MapFS{}
	for k, v := range src {
		src3[k] = v
	}
	src3["go.sum"] = &fstest.MapFile{Data: []byte("d v2 h1:y\n")}
	same("go.sum", codeIdentity(bi, true, src3, exe("")), false)
	bi3 := *bi
	bi3.Deps = []*debug.Module{{Path: "d", Version: "v2", Sum: "h1:y"}}
	same("dependency", codeIdentity(&bi3, true, src, exe("")), false)
	bi4 := *bi
	bi4.GoVersion = "go1.27"
	same("toolchain", codeIdentity(&bi4, true, src, exe("")), false)
	bi5 := *bi
	bi5.Settings = []debug.BuildSetting{{Key: "-ldflags", Value: "-X main.x=1"}}
	same("build flag", codeIdentity(&bi5, true, src, exe("")), false)
	// A local replacement: the executable's hash.
	bi6 := *bi
	bi6.Deps = []*debug.Module{{Path: "d", Version: "v1", Replace: &debug.Module{Path: "../d"}}}
	if got := codeIdentity(&bi6, true, src, exe("0123456789abcdef0123")); got != "exe:0123456789abcdef" {
		t.Errorf("local replacement: %q", got)
	}
	// A module of one's own that builds gridsched with its policies
	// (package cli): its code is in no embedded source, so the executable.
	bi7 := *bi
	bi7.Main = debug.Module{Path: "example.com/mygridsched", Version: "(devel)"}
	if got := codeIdentity(&bi7, true, src, exe("0123456789abcdef0123")); got != "exe:0123456789abcdef" {
		t.Errorf("another main module: %q", got)
	}
	bi7.Main.Path = modulePath
	same("gridsched's own main module", codeIdentity(&bi7, true, src, exe("")), true)
}

// TestIdentityOfThisBinary: the running test binary has a source
// identity (its dependencies all have checksums), the same on every
// call; SetForTest overrides it and restores it; Version names it and
// the toolchain even without a VCS stamp.
func TestIdentityOfThisBinary(t *testing.T) {
	id := Identity()
	if !strings.HasPrefix(id, "src:") || Identity() != id {
		t.Fatalf("Identity() = %q", id)
	}
	restore := SetForTest("src:0000000000000000")
	if Identity() != "src:0000000000000000" {
		t.Fatal("override not applied")
	}
	restore()
	if Identity() != id {
		t.Fatal("override not restored")
	}
	v := Version()
	if !strings.HasPrefix(v, "gridsched ") || !strings.Contains(v, runtime.Version()) || !strings.Contains(v, "code identity "+id) {
		t.Fatalf("Version() = %q", v)
	}
	if h := ExeHash(); len(h) != 64 {
		t.Errorf("executable hash %q", h)
	}
}
