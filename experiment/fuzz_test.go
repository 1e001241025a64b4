package experiment

import (
	"strings"
	"testing"

	"github.com/gridsched/gridsched/internal/testenv"
)

// FuzzSpec: a spec never panics the reader (a tag on a list once did,
// inside the YAML decoder); what it refuses names the file; what it
// accepts has a countable sweep within the limits (issue 18, item 7).
func FuzzSpec(f *testing.F) {
	f.Add([]byte(small))
	for _, n := range Builtin() {
		if b, err := BuiltinSource(n); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("name: x\npolicies: !foo bar\n"))
	f.Add([]byte("name: x\nzip:\n  a: &a [1,1]\n  b: [*a,*a]\n"))
	f.Add([]byte(readingsSpec))
	for _, sp := range testenv.IntegerSpellings { // every YAML integer spelling
		f.Add([]byte("name: x\nworkload: {model: lublin, jobs: " + sp.Text + "}\nplatform: {nodes: " + sp.Text + ", pes: " + sp.Text + "}\npolicies: [easy]\nreplications: {count: " + sp.Text + "}\nmetrics: [mean_wait]\ninstability: {delay: " + sp.Text + "}\n"))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("fuzz.yaml", data, "")
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.yaml") {
				t.Fatalf("error without the file: %v", err)
			}
			return
		}
		n, ok := s.ConfigCount()
		if !ok || n > MaxConfigs || n != len(s.Configs()) {
			t.Fatalf("accepted a sweep of %d configurations (%v)", n, ok)
		}
	})
}
