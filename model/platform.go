package model

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/gridsched/gridsched/internal/yamlx"
)

// NodeSpec describes one compute node. Later models add attributes here;
// every attribute has a neutral default so policies that ignore it behave
// as on a plain cluster.
type NodeSpec struct {
	Name       string  `yaml:"name"`
	PEs        int     `yaml:"pes"`        // processing elements (processors)
	Speed      float64 `yaml:"speed"`      // relative speed; a job's runtime is divided by the slowest speed it gets
	Capability int     `yaml:"capability"` // capability level (reservations, seed 000)
	Cost       float64 `yaml:"cost"`       // cost per time unit (reservations, seed 000)
	Stability  float64 `yaml:"stability"`  // probability p the node is stable (seed 002)
	Delay      float64 `yaml:"delay"`      // delay factor d of an unstable node (seed 002)
	MIPS       float64 `yaml:"mips"`       // MIPS rating (seed 002)
}

// Platform is a cluster: an ordered list of nodes. Node indices are
// positions in Nodes; first-fit node selection follows this order.
type Platform struct {
	Name  string
	Nodes []NodeSpec
}

// TotalPEs is the number of processors of the platform.
func (p *Platform) TotalPEs() int {
	n := 0
	for i := range p.Nodes {
		n += p.Nodes[i].PEs
	}
	return n
}

// Uniform returns a platform of n identical nodes with pes processors each
// and speed 1.
func Uniform(name string, n, pes int) *Platform {
	p := &Platform{Name: name, Nodes: make([]NodeSpec, n)}
	for i := range p.Nodes {
		p.Nodes[i] = defaultNode(fmt.Sprintf("n%d", i), pes)
	}
	return p
}

func defaultNode(name string, pes int) NodeSpec {
	return NodeSpec{Name: name, PEs: pes, Speed: 1, Capability: 1, Cost: 1, Stability: 1}
}

// DefaultPlatform is the built-in platform: 128 single-processor nodes.
func DefaultPlatform() *Platform { return Uniform("default-128", 128, 1) }

// platformFile is the YAML form of a platform:
//
//	name: my-cluster
//	groups:
//	  - count: 32
//	    pes: 4
//	  - count: 25
//	    pes: 2
//	    speed: 0.8
//
// Every group expands to count nodes with the group's attributes.
type platformFile struct {
	Name   string      `yaml:"name"`
	Groups []nodeGroup `yaml:"groups"`
}

type nodeGroup struct {
	Count      int      `yaml:"count" range:"[1,]"`
	Prefix     string   `yaml:"prefix"`
	PEs        *int     `yaml:"pes" range:"[1,]"`
	Speed      *float64 `yaml:"speed" range:"[0.001,]"` // slower nodes make a run effectively endless
	Capability *int     `yaml:"capability" range:"[0,]"`
	Cost       *float64 `yaml:"cost" range:"[0,]"`
	Stability  *float64 `yaml:"stability" range:"[0,1]"`
	Delay      *float64 `yaml:"delay" range:"[0,]"`
	MIPS       *float64 `yaml:"mips" range:"[0,]"`
}

// Size limits of a platform. A platform beyond them is refused before
// any node is built (2e9 nodes would exhaust memory); a user who really
// wants more raises them (the command line's --max-nodes).
const DefaultMaxNodes = 1 << 20

// MaxNodes and MaxPEs are the limits in force.
var (
	// MaxNodes is the largest number of nodes of a platform.
	MaxNodes = DefaultMaxNodes
	// MaxPEs is the largest number of processors of one node.
	MaxPEs = 1 << 20
)

// CheckNodes refuses a node count beyond MaxNodes (what names the count
// in the message).
func CheckNodes(what string, n int) error {
	if n > MaxNodes {
		return fmt.Errorf("%s: %d nodes is over the limit of %d (raise it with --max-nodes)", what, n, MaxNodes)
	}
	return nil
}

// ParsePlatform decodes a platform YAML document. Unknown keys, wrong
// types (a fraction for a count, a tagged value), values out of range
// (NaN included) and sizes beyond MaxNodes / MaxPEs are errors naming the
// file (name), line and column; every problem is reported at once.
func ParsePlatform(name string, data []byte) (*Platform, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("%s: the platform file is empty (want name: and groups:)", name)
	}
	schema := yamlx.Check(name, data, &platformFile{})
	if len(schema.Issues) > 0 {
		return nil, errors.Join(schema.Issues...)
	}
	var f platformFile
	if err := yamlx.DecodeStrict(name, data, &f); err != nil {
		return nil, err
	}
	if len(f.Groups) == 0 {
		return nil, fmt.Errorf("%s: platform has no node groups (key \"groups\")", name)
	}
	p := &Platform{Name: f.Name}
	if p.Name == "" {
		p.Name = name
	}
	var errs []error
	total := 0
	for gi, g := range f.Groups {
		path := fmt.Sprintf("groups[%d]", gi)
		if g.Count <= 0 {
			errs = append(errs, schema.At(path, "every group needs a count >= 1"))
			continue
		}
		if g.Count > MaxNodes-total {
			errs = append(errs, schema.At(path+".count", "%d nodes bring the platform over the limit of %d nodes (raise it with --max-nodes)", g.Count, MaxNodes))
			continue
		}
		total += g.Count
		if g.PEs != nil && *g.PEs > MaxPEs {
			errs = append(errs, schema.At(path+".pes", "%d processors per node is over the limit of %d", *g.PEs, MaxPEs))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	p.Nodes = make([]NodeSpec, 0, total)
	for gi, g := range f.Groups {
		prefix := g.Prefix
		if prefix == "" {
			prefix = fmt.Sprintf("g%d-", gi)
		}
		n := defaultNode("", 1)
		set := func(dst *float64, src *float64) {
			if src != nil {
				*dst = *src
			}
		}
		if g.PEs != nil {
			n.PEs = *g.PEs
		}
		set(&n.Speed, g.Speed)
		set(&n.Cost, g.Cost)
		set(&n.Stability, g.Stability)
		set(&n.Delay, g.Delay)
		set(&n.MIPS, g.MIPS)
		if g.Capability != nil {
			n.Capability = *g.Capability
		}
		for i := 0; i < g.Count; i++ {
			n.Name = fmt.Sprintf("%s%d", prefix, i)
			p.Nodes = append(p.Nodes, n)
		}
	}
	return p, nil
}
