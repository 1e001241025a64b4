package quote

import (
	"strings"
	"testing"
)

func TestClip(t *testing.T) {
	if got := Clip("abc"); got != `"abc"` {
		t.Errorf("short: %s", got)
	}
	long := strings.Repeat("é", 300)
	got := Clip(long)
	if !strings.HasPrefix(got, `"`+strings.Repeat("é", MaxRunes)+`"…`) || !strings.HasSuffix(got, "(600 bytes)") || len(got) > 200 {
		t.Errorf("long: %s", got)
	}
	if got := Clip(strings.Repeat("x", 1<<20)); len(got) > 120 {
		t.Errorf("1 MiB value quoted in %d bytes", len(got))
	}
}

func TestText(t *testing.T) {
	if got := Text("1e300"); got != "1e300" {
		t.Errorf("short: %s", got)
	}
	if got := Text("1" + strings.Repeat("0", 4000)); !strings.HasPrefix(got, "1000") || !strings.HasSuffix(got, "… (4001 bytes)") || len(got) > 100 {
		t.Errorf("long: %s", got)
	}
}
