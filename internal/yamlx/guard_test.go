package yamlx

import (
	"strings"
	"testing"
)

// TestGuard: what the YAML decoder of v1.19.2 panics on or cannot bound
// is refused first, with its position; plain documents, anchors and
// small aliases pass (issue 18, items 1 and 2).
func TestGuard(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"a: 1\nb: [1, 2]\nc: {d: x}\n", ""},
		{"a: &x [1, 2]\nb: *x\n", ""},
		{"a: !foo bar\n", "d.yaml:1:4: YAML tag !foo is not accepted here"},
		{"a:\n  - !!int 3\n", "d.yaml:2:5: YAML tag !!int is not accepted here"},
		{"a: *nope\n", "d.yaml:1:4: alias *nope refers to no anchor defined before it"},
		{"a: &a [1,1,1,1,1,1,1,1,1,1]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\n", "expands to more than 100000 values"},
		{"a: " + strings.Repeat("x", MaxDocBytes) + "\n", "over the limit of 1048576 bytes"},
	} {
		err := Guard("d.yaml", []byte(c.in))
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%.40q: %v, want %q", c.in, err, c.want)
		}
	}
	// The decoder no longer panics on a tagged list value.
	var v struct {
		L []string `yaml:"l"`
	}
	if err := DecodeStrict("d.yaml", []byte("l: !x foo\n"), &v); err == nil || !strings.Contains(err.Error(), "YAML tag !x") {
		t.Fatalf("%v", err)
	}
}
