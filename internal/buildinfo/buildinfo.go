// Package buildinfo names the code that produced a result: every store,
// summary, export and report records Identity, so results of different
// code are never mixed silently.
//
// The identity is a hash of what decides the results: the module's Go
// sources as compiled (embedded by the root package, tests and scripts
// left out), go.mod and go.sum, the toolchain version, the target
// (GOOS/GOARCH and its variant) and the build settings other than the
// VCS stamp, and every dependency's version and checksum. So a
// documentation-only commit, a rebuild, another checkout path or a
// binary stamped with a revision keep the identity, and a change to any
// compiled file, dependency, toolchain or build flag changes it. Where a
// dependency is replaced by a local folder (no checksum vouches for its
// code), the identity is the hash of the executable instead.
package buildinfo

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync"

	"github.com/gridsched/gridsched"
)

// Info describes the running binary.
type Info struct {
	Module   string // module version ("(devel)" when built from a checkout)
	Revision string // VCS revision when stamped, else ""
	Time     string // VCS commit time when stamped, else ""
	Modified bool   // the checkout had uncommitted changes
	Go       string // toolchain version
	Target   string // GOOS/GOARCH
	// Code is the code identity (Identity): "src:" and 16 hex digits of
	// the hash of the sources, dependencies, toolchain and settings, or
	// "exe:" and 16 hex digits of the executable's SHA-256.
	Code string
}

var (
	once sync.Once
	info Info
	// exe is the executable's SHA-256, read only when needed (a 30 MB
	// binary takes a noticeable moment).
	exe = sync.OnceValue(exeHash)
	// override replaces the code identity (SetForTest).
	override struct {
		sync.Mutex
		id string
	}
)

// Read returns the build information of the running binary (computed
// once per process).
func Read() Info {
	once.Do(func() {
		bi, ok := debug.ReadBuildInfo()
		if ok {
			info.Module = bi.Main.Version
			info.Go = bi.GoVersion
			for _, s := range bi.Settings {
				switch s.Key {
				case "vcs.revision":
					info.Revision = s.Value
				case "vcs.time":
					info.Time = s.Value
				case "vcs.modified":
					info.Modified = s.Value == "true"
				}
			}
		}
		if info.Module == "" {
			info.Module = "(devel)"
		}
		if info.Go == "" {
			info.Go = runtime.Version()
		}
		info.Target = runtime.GOOS + "/" + runtime.GOARCH
		info.Code = codeIdentity(bi, ok, gridsched.Sources, exe)
	})
	return info
}

// modulePath is gridsched's module.
const modulePath = "github.com/gridsched/gridsched"

// codeIdentity hashes the sources in src (the module's files as
// compiled), the toolchain, target and build settings (VCS stamps left
// out) and the dependencies of bi. A dependency without a checksum (a
// local replacement), another main module (a gridsched of one's own,
// built by package cli) or missing build information makes it fall back
// to the executable's hash.
func codeIdentity(bi *debug.BuildInfo, ok bool, src fs.FS, exe func() string) string {
	fallback := func() string {
		if h := exe(); h != "" {
			return "exe:" + h[:16]
		}
		return "unknown"
	}
	if !ok {
		return fallback()
	}
	if bi.Main.Path != "" && bi.Main.Path != modulePath {
		// A module of its own built this binary (package cli's Main
		// with its policies): its code is compiled in, and neither the
		// embedded sources nor a checksum cover it.
		return fallback()
	}
	h := sha256.New()
	fmt.Fprintf(h, "gridsched code identity v1\ngo %s\ntarget %s/%s\n", bi.GoVersion, runtime.GOOS, runtime.GOARCH)
	for _, s := range bi.Settings {
		if !strings.HasPrefix(s.Key, "vcs") {
			fmt.Fprintf(h, "setting %q=%q\n", s.Key, s.Value)
		}
	}
	for _, d := range bi.Deps {
		m := d
		if d.Replace != nil {
			m = d.Replace
		}
		if m.Sum == "" {
			return fallback() // a local replacement: no checksum covers its code
		}
		fmt.Fprintf(h, "dep %s %s %s\n", m.Path, m.Version, m.Sum)
	}
	files, err := SourceFiles(src)
	if err != nil || len(files) == 0 {
		return fallback()
	}
	for _, f := range files {
		b, err := fs.ReadFile(src, f)
		if err != nil {
			return fallback()
		}
		fmt.Fprintf(h, "file %s %d\n", f, len(b))
		h.Write(b)
	}
	return "src:" + hex.EncodeToString(h.Sum(nil))[:16]
}

// SourceFiles lists, sorted, the files of src the identity covers: Go
// files other than tests, testdata and scripts (programs of their own,
// not linked into gridsched), plus go.mod and go.sum.
func SourceFiles(src fs.FS) ([]string, error) {
	var out []string
	err := fs.WalkDir(src, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p == "scripts" || d.Name() == "testdata" {
				return fs.SkipDir
			}
			return nil
		}
		if p == "go.mod" || p == "go.sum" || strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// ExeHash is the SHA-256 (hex) of the running executable, "" if it
// cannot be read.
func ExeHash() string { return exe() }

func exeHash() string {
	p, err := os.Executable()
	if err != nil {
		return ""
	}
	f, err := os.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Identity is the code identity recorded with every result (see the
// package comment): "src:" and 16 hex digits, or "exe:" and 16 hex
// digits of the executable's SHA-256.
func Identity() string {
	override.Lock()
	id := override.id
	override.Unlock()
	if id != "" {
		return id
	}
	return Read().Code
}

// SetForTest makes Identity return id until the returned function is
// called: tests simulate a code change with it. Only tests call it.
func SetForTest(id string) (restore func()) {
	override.Lock()
	old := override.id
	override.id = id
	override.Unlock()
	return func() {
		override.Lock()
		override.id = old
		override.Unlock()
	}
}

// Version is the human description of the build: "gridsched VERSION
// (revision R[, modified], TIME; GO TARGET), code identity ID".
func Version() string { return Build() + ", code identity " + Identity() }

// Build is Version without the code identity: "gridsched VERSION
// (revision R[, modified], TIME; GO TARGET)".
func Build() string {
	i := Read()
	var parts []string
	if i.Revision != "" {
		r := "revision " + i.Revision
		if i.Modified {
			r += " (modified)"
		}
		parts = append(parts, r)
		if i.Time != "" {
			parts = append(parts, i.Time)
		}
	} else {
		parts = append(parts, "no VCS stamp: built by go run, go test, -buildvcs=false or from a git worktree")
	}
	parts = append(parts, i.Go+" "+i.Target)
	return fmt.Sprintf("gridsched %s (%s)", i.Module, strings.Join(parts, "; "))
}
