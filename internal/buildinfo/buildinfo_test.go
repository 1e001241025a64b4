package buildinfo

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strings"
	"testing"
)

// Under go test the binary carries no VCS stamp, so the identity is the
// executable's hash: the first 16 hex digits of its SHA-256.
func TestIdentityIsExecutableHashWhenUnstamped(t *testing.T) {
	p, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Skip(err)
	}
	sum := sha256.Sum256(b)
	want := "exe:" + hex.EncodeToString(sum[:])[:16]
	if i := Read(); i.Revision != "" && !i.Modified {
		t.Skipf("stamped binary (revision %s)", i.Revision)
	}
	if got := Identity(); got != want {
		t.Fatalf("Identity() = %q, want %q", got, want)
	}
	if got := Identity(); !strings.HasPrefix(got, "exe:") {
		t.Fatalf("second call %q", got)
	}
}
