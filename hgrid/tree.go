// Package hgrid is the hierarchical grid of seed 001 (Lu & Zhang, "Grid
// load balancing scheduling algorithm based on statistics thinking",
// Application Research of Computers 26(3), 2009): a grid resource manager
// dispatches jobs to domain resource managers, which dispatch to their
// sub-domains or compute nodes. It holds the tree (this file), the load
// indices and formulas (1)–(3) (load.go), the dispatchers — statistical
// load balancing, MinMin, ant colony, random, round-robin, least-loaded
// (dispatch.go) — and the grid policy that ties them to the engine with
// periodic load reports, the load monitor and manager failures
// (policy.go).
package hgrid

import (
	"errors"
	"fmt"
	"math"
	"os"

	"github.com/gridsched/gridsched/internal/yamlx"
	"github.com/gridsched/gridsched/model"
)

// NodeGroup is Count identical compute nodes.
type NodeGroup struct {
	Count  int     `yaml:"count" range:"[1,]"`
	PEs    int     `yaml:"pes" range:"[0,]"`    // processors per node (default 1)
	Speed  float64 `yaml:"speed" range:"[0,]"`  // relative speed (default 1): runtime = pure runtime / speed
	Memory float64 `yaml:"memory" range:"[0,]"` // memory per node, MB (default 1024 per processor)
}

// MinSpeed is the slowest node speed a tree may give: slower nodes make
// a run effectively endless (a speed of 1e-300 did not finish).
const MinSpeed = 0.001

// DomainSpec is a domain resource manager: either a leaf (a cluster, a
// LAN, a PC) managing Nodes directly, or an inner manager of Domains (a
// cluster of clusters). Bandwidth is a leaf's network capacity: a job
// moving between leaves a and b pays its pure migration cost divided by
// min(bandwidth_a, bandwidth_b) (seed 004 §2.5; default 1).
type DomainSpec struct {
	Name      string       `yaml:"name"`
	Nodes     []NodeGroup  `yaml:"nodes"`
	Domains   []DomainSpec `yaml:"domains"`
	Bandwidth float64      `yaml:"bandwidth" range:"[0,]"`
}

// TreeSpec is a hierarchical platform: the grid resource manager (the
// root) and its domain managers.
type TreeSpec struct {
	Name    string       `yaml:"name"`
	Domains []DomainSpec `yaml:"domains"`
}

// Domain is a manager of the built tree.
type Domain struct {
	ID       int
	Name     string
	Parent   *Domain
	Children []*Domain
	// Leaf managers: their nodes are First .. First+Count−1 of the
	// platform; Leaf is their index among the leaves (the site of the
	// seed-004 workload), −1 for inner managers and the root.
	First, Count int
	Leaf         int
	// Top is the index of the top-level manager this domain belongs to
	// (the managers the load monitor brings in and out); −1 for the root.
	Top       int
	PEs       int     // processors in the subtree
	MaxLeaf   int     // processors of the largest leaf in the subtree
	Bandwidth float64 // leaves
	Speed     float64 // leaves: the slowest node speed
}

// IsLeaf reports whether the manager runs nodes directly.
func (d *Domain) IsLeaf() bool { return d.Leaf >= 0 }

// Tree is a built hierarchy with its flat platform.
type Tree struct {
	Name     string
	Root     *Domain
	Domains  []*Domain // every manager, root first, depth-first
	Leaves   []*Domain
	Tops     []*Domain
	Platform *model.Platform
	Memory   []float64 // per node
	LeafOf   []int     // node → leaf index
}

// Build checks a spec and builds its tree.
func Build(s TreeSpec) (*Tree, error) {
	if len(s.Domains) == 0 {
		return nil, fmt.Errorf("domains: a grid needs at least one domain")
	}
	t := &Tree{Name: s.Name, Platform: &model.Platform{Name: s.Name}}
	t.Root = &Domain{Name: "grid", Leaf: -1, Top: -1}
	t.Domains = append(t.Domains, t.Root)
	for i := range s.Domains {
		if err := t.add(t.Root, &s.Domains[i], fmt.Sprintf("domains[%d]", i), i); err != nil {
			return nil, err
		}
	}
	for _, d := range t.Root.Children {
		t.Tops = append(t.Tops, d)
		t.Root.PEs += d.PEs
		t.Root.MaxLeaf = max(t.Root.MaxLeaf, d.MaxLeaf)
	}
	return t, nil
}

func (t *Tree) add(parent *Domain, s *DomainSpec, path string, top int) error {
	if s.Name == "" {
		s.Name = path
	}
	d := &Domain{ID: len(t.Domains), Name: s.Name, Parent: parent, Leaf: -1, Top: top}
	t.Domains = append(t.Domains, d)
	parent.Children = append(parent.Children, d)
	switch {
	case len(s.Nodes) > 0 && len(s.Domains) > 0:
		return fmt.Errorf("%s (%s): a domain manages either nodes or sub-domains, not both", path, s.Name)
	case len(s.Nodes) == 0 && len(s.Domains) == 0:
		return fmt.Errorf("%s (%s): a domain needs nodes or sub-domains", path, s.Name)
	case len(s.Domains) > 0:
		if s.Bandwidth != 0 {
			return fmt.Errorf("%s.bandwidth: only leaf domains (with nodes) have a bandwidth", path)
		}
		for i := range s.Domains {
			if err := t.add(d, &s.Domains[i], fmt.Sprintf("%s.domains[%d]", path, i), top); err != nil {
				return err
			}
			c := d.Children[i]
			d.PEs += c.PEs
			d.MaxLeaf = max(d.MaxLeaf, c.MaxLeaf)
		}
	default:
		d.Leaf = len(t.Leaves)
		t.Leaves = append(t.Leaves, d)
		d.First = len(t.Platform.Nodes)
		d.Bandwidth = s.Bandwidth
		if d.Bandwidth == 0 {
			d.Bandwidth = 1
		}
		if !(d.Bandwidth > 0) || math.IsInf(d.Bandwidth, 0) {
			return fmt.Errorf("%s.bandwidth: must be positive, got %g", path, s.Bandwidth)
		}
		d.Speed = math.Inf(1)
		for i, g := range s.Nodes {
			gp := fmt.Sprintf("%s.nodes[%d]", path, i)
			if g.Count < 1 {
				return fmt.Errorf("%s.count: need at least 1 node, got %d", gp, g.Count)
			}
			// Sizes are refused before a node is built (a group of 10^7
			// nodes, or of 2·10^9 processors each, would exhaust memory).
			if g.Count > model.MaxNodes-len(t.Platform.Nodes) {
				return fmt.Errorf("%s.count: %d nodes bring the tree over the limit of %d nodes (raise it with --max-nodes)", gp, g.Count, model.MaxNodes)
			}
			if g.PEs > model.MaxPEs {
				return fmt.Errorf("%s.pes: %d processors per node is over the limit of %d", gp, g.PEs, model.MaxPEs)
			}
			if g.Speed != 0 && !(g.Speed >= MinSpeed) {
				return fmt.Errorf("%s.speed: must be at least %g (slower nodes make a run effectively endless), got %g", gp, MinSpeed, g.Speed)
			}
			pes, speed, mem := g.PEs, g.Speed, g.Memory
			if pes == 0 {
				pes = 1
			}
			if speed == 0 {
				speed = 1
			}
			if mem == 0 {
				mem = 1024 * float64(pes)
			}
			switch {
			case pes < 1:
				return fmt.Errorf("%s.pes: must be >= 1, got %d", gp, g.PEs)
			case !(speed > 0) || math.IsInf(speed, 0):
				return fmt.Errorf("%s.speed: must be positive, got %g", gp, g.Speed)
			case !(mem > 0) || math.IsInf(mem, 0):
				return fmt.Errorf("%s.memory: must be positive, got %g", gp, g.Memory)
			}
			for k := 0; k < g.Count; k++ {
				n := model.NodeSpec{Name: fmt.Sprintf("%s-%d", s.Name, d.Count), PEs: pes, Speed: speed, Capability: 1, Cost: 1, Stability: 1}
				t.Platform.Nodes = append(t.Platform.Nodes, n)
				t.Memory = append(t.Memory, mem)
				t.LeafOf = append(t.LeafOf, d.Leaf)
				d.Count++
				d.PEs += pes
			}
			d.Speed = min(d.Speed, speed)
		}
		d.MaxLeaf = d.PEs
	}
	return nil
}

// LoadTree reads a tree from a YAML file (unknown keys are errors).
func LoadTree(path string) (*Tree, error) {
	doc, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var s TreeSpec
	sc := yamlx.Check(path, doc, &s)
	if len(sc.Issues) > 0 {
		return nil, errors.Join(sc.Issues...)
	}
	if err := yamlx.DecodeStrict(path, doc, &s); err != nil {
		return nil, err
	}
	t, err := Build(s)
	if err != nil {
		return nil, sc.Locate("", err) // at the value's line and column
	}
	return t, nil
}

// Paper109 is our reading of seed 001's simulation platform (§3: 109
// compute nodes "configured as in figure 1"; table 1, which listed them,
// is lost): three levels under the grid resource manager, in the spirit
// of figure 1 — a cluster of clusters, a LAN of PCs, a single cluster and
// a second cluster of clusters — with heterogeneous speeds. Speeds are
// multiplied by 1 + h·x, x spread evenly over [−1, 1] across the six
// leaves by their order (h = heterogeneity, 0 ≤ h < 1; the base speeds
// below are h = 0.5's reading of "heterogeneous").
//
//	grid
//	├── campus (cluster of clusters)
//	│   ├── c1: 16 nodes × 4 CPUs
//	│   └── c2: 16 nodes × 4 CPUs
//	├── lan: 25 PCs × 1 CPU
//	├── hpc: 32 nodes × 8 CPUs
//	└── lab (cluster of clusters)
//	    ├── l1: 12 nodes × 2 CPUs
//	    └── l2: 8 nodes × 2 CPUs
func Paper109(h float64) (TreeSpec, error) {
	if !(h >= 0 && h < 1) {
		return TreeSpec{}, fmt.Errorf("heterogeneity: must be in [0,1), got %g", h)
	}
	x := func(i int) float64 { return 1 + h*(-1+2*float64(i)/5) }
	leaf := func(name string, i, count, pes int, bw float64) DomainSpec {
		return DomainSpec{Name: name, Bandwidth: bw, Nodes: []NodeGroup{{Count: count, PEs: pes, Speed: x(i), Memory: 2048 * float64(pes)}}}
	}
	// Speed ranks: the LAN's PCs are the slowest, the HPC cluster the
	// fastest; the others in between.
	return TreeSpec{Name: fmt.Sprintf("paper109 (h=%g)", h), Domains: []DomainSpec{
		{Name: "campus", Domains: []DomainSpec{leaf("c1", 3, 16, 4, 1), leaf("c2", 2, 16, 4, 1)}},
		leaf("lan", 0, 25, 1, 0.5),
		leaf("hpc", 5, 32, 8, 2),
		{Name: "lab", Domains: []DomainSpec{leaf("l1", 1, 12, 2, 1), leaf("l2", 4, 8, 2, 1)}},
	}}, nil
}

// Paper109Single is the paper's literal setting as far as §3 gives it:
// 109 compute nodes of one CPU each (GridSim's sequential "gridlets"), in
// Paper109's six leaves (c1 16, c2 16, lan 25, hpc 32, l1 12, l2 8 nodes)
// with the same speeds (h = 0: all equal) and bandwidths.
func Paper109Single(h float64) (TreeSpec, error) {
	spec, err := Paper109(h)
	if err != nil {
		return spec, err
	}
	spec.Name = fmt.Sprintf("paper109-single (h=%g)", h)
	var one func(ds []DomainSpec)
	one = func(ds []DomainSpec) {
		for i := range ds {
			for g := range ds[i].Nodes {
				ds[i].Nodes[g].PEs = 1
				ds[i].Nodes[g].Memory = 2048
			}
			one(ds[i].Domains)
		}
	}
	one(spec.Domains)
	return spec, nil
}

// Open builds the tree a name gives: "paper109" or "paper109-single"
// (heterogeneity h, default 0.5) or a tree YAML file (h must then be nil:
// the file gives speeds).
func Open(tree string, h *float64) (*Tree, error) {
	if tree == "paper109-single" {
		het := 0.5
		if h != nil {
			het = *h
		}
		spec, err := Paper109Single(het)
		if err != nil {
			return nil, err
		}
		return Build(spec)
	}
	if tree != "" && tree != "paper109" {
		if h != nil {
			return nil, fmt.Errorf("heterogeneity: only for the paper109 tree (a file gives its own speeds)")
		}
		return LoadTree(tree)
	}
	het := 0.5
	if h != nil {
		het = *h
	}
	spec, err := Paper109(het)
	if err != nil {
		return nil, err
	}
	return Build(spec)
}
