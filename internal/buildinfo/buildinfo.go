// Package buildinfo names the code that produced a result: every store,
// summary, export and report records Identity, so results of different
// code are never mixed silently.
package buildinfo

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"runtime/debug"
	"sync"
)

// Info describes the running binary.
type Info struct {
	Module   string // module version ("(devel)" when built from a checkout)
	Revision string // VCS revision when stamped, else ""
	Modified bool   // the checkout had uncommitted changes
	Go       string // toolchain version
	ExeHash  string // SHA-256 of the running executable (hex), "" if unreadable
}

var (
	once sync.Once
	info Info
)

// Read returns the build information of the running binary (computed
// once per process).
func Read() Info {
	once.Do(func() {
		if bi, ok := debug.ReadBuildInfo(); ok {
			info.Module = bi.Main.Version
			info.Go = bi.GoVersion
			for _, s := range bi.Settings {
				switch s.Key {
				case "vcs.revision":
					info.Revision = s.Value
				case "vcs.modified":
					info.Modified = s.Value == "true"
				}
			}
		}
		if info.Module == "" {
			info.Module = "(devel)"
		}
		info.ExeHash = exeHash()
	})
	return info
}

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

// Identity is the code identity recorded with every result: the module
// version and VCS revision when the binary is stamped from a clean
// checkout ("v1.2.0+rev:abc123…"), else the SHA-256 of the executable
// ("exe:…", which also works under go run and go test).
func Identity() string {
	i := Read()
	if i.Revision != "" && !i.Modified {
		return i.Module + "+rev:" + i.Revision
	}
	if i.ExeHash != "" {
		return "exe:" + i.ExeHash[:16]
	}
	return "unknown"
}
