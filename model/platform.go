package model

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/goccy/go-yaml"
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
	Count      int      `yaml:"count"`
	Prefix     string   `yaml:"prefix"`
	PEs        *int     `yaml:"pes"`
	Speed      *float64 `yaml:"speed"`
	Capability *int     `yaml:"capability"`
	Cost       *float64 `yaml:"cost"`
	Stability  *float64 `yaml:"stability"`
	Delay      *float64 `yaml:"delay"`
	MIPS       *float64 `yaml:"mips"`
}

// ParsePlatform decodes a platform YAML document. Unknown keys are errors;
// errors name the file (name), line and column.
func ParsePlatform(name string, data []byte) (*Platform, error) {
	var f platformFile
	dec := yaml.NewDecoder(bytes.NewReader(data), yaml.DisallowUnknownField(), yaml.Strict())
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%s: %s", name, yaml.FormatError(err, false, true))
	}
	if len(f.Groups) == 0 {
		return nil, fmt.Errorf("%s: platform has no node groups (key \"groups\")", name)
	}
	p := &Platform{Name: f.Name}
	if p.Name == "" {
		p.Name = name
	}
	for gi, g := range f.Groups {
		where := fmt.Sprintf("%s: groups[%d]", name, gi)
		if g.Count <= 0 {
			return nil, fmt.Errorf("%s.count: must be a positive integer, got %d", where, g.Count)
		}
		prefix := g.Prefix
		if prefix == "" {
			prefix = fmt.Sprintf("g%d-", gi)
		}
		n := defaultNode("", 1)
		if g.PEs != nil {
			n.PEs = *g.PEs
		}
		if n.PEs <= 0 {
			return nil, fmt.Errorf("%s.pes: must be a positive integer, got %d", where, n.PEs)
		}
		setF := func(dst *float64, src *float64, field string, lo float64, hi float64) error {
			if src == nil {
				return nil
			}
			if *src < lo || *src > hi {
				return fmt.Errorf("%s.%s: %g is outside [%g, %g]", where, field, *src, lo, hi)
			}
			*dst = *src
			return nil
		}
		const inf = 1e300
		if err := errors.Join(
			setF(&n.Speed, g.Speed, "speed", 1e-9, inf),
			setF(&n.Cost, g.Cost, "cost", 0, inf),
			setF(&n.Stability, g.Stability, "stability", 0, 1),
			setF(&n.Delay, g.Delay, "delay", 0, inf),
			setF(&n.MIPS, g.MIPS, "mips", 0, inf),
		); err != nil {
			return nil, err
		}
		if g.Capability != nil {
			if *g.Capability < 0 {
				return nil, fmt.Errorf("%s.capability: must be >= 0, got %d", where, *g.Capability)
			}
			n.Capability = *g.Capability
		}
		for i := 0; i < g.Count; i++ {
			n.Name = fmt.Sprintf("%s%d", prefix, i)
			p.Nodes = append(p.Nodes, n)
		}
	}
	return p, nil
}
