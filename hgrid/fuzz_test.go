package hgrid

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gridsched/gridsched/internal/testenv"
	"github.com/gridsched/gridsched/model"
)

// FuzzLoadTree: a tree file never panics the reader; what it refuses
// names the file; what it accepts is within the caps (nodes, processors
// per node) with finite speeds of at least MinSpeed (issue 25).
func FuzzLoadTree(f *testing.F) {
	f.Add([]byte("domains:\n  - name: a\n    nodes: [{count: 2, pes: 4, speed: 0.5}]\n  - name: b\n    domains: [{name: c, nodes: [{count: 1}]}]\n"))
	f.Add([]byte("domains:\n  - name: a\n    nodes: [{count: 10000000}]\n"))
	f.Add([]byte("domains: !x []\n"))
	for _, sp := range testenv.IntegerSpellings { // every YAML integer spelling
		f.Add([]byte("domains:\n  - name: a\n    nodes: [{count: " + sp.Text + ", pes: " + sp.Text + ", speed: " + sp.Text + "}]\n    bandwidth: " + sp.Text + "\n"))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "fuzz.yaml")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		tr, err := LoadTree(p)
		if err != nil {
			if !strings.Contains(err.Error(), "fuzz.yaml") {
				t.Fatalf("error without the file: %v", err)
			}
			return
		}
		if n := len(tr.Platform.Nodes); n == 0 || n > model.MaxNodes {
			t.Fatalf("accepted %d nodes", n)
		}
		for _, nd := range tr.Platform.Nodes {
			if nd.PEs < 1 || nd.PEs > model.MaxPEs || !(nd.Speed >= MinSpeed) || math.IsInf(nd.Speed, 0) {
				t.Fatalf("accepted node %+v", nd)
			}
		}
	})
}
