package yamlx

import (
	"fmt"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// Limits on a YAML document before it is decoded. The decoder of
// goccy/go-yaml v1.19.2 (the newest release the module proxy serves)
// panics on a tag over a list-valued key, and expands aliases without a
// bound, so every document is checked here first.
const (
	// MaxDocBytes is the largest document accepted (specs, platforms,
	// model parameters and trees are a few kilobytes).
	MaxDocBytes = 1 << 20
	// MaxNodes bounds the number of nodes a document has once every
	// alias is expanded (a "billion laughs" bomb is refused).
	MaxNodes = 100_000
)

// Guard parses doc and refuses what the schemas never expect: any YAML
// tag (!foo, !!str), a document over MaxDocBytes, and aliases that expand
// to more than MaxNodes nodes. Errors name source, line and column.
func Guard(source string, doc []byte) error {
	return guardDoc(source, doc, false)
}

// guardDoc is Guard; with allowTags, tags pass (Check reports each one
// at its value's path, with the document's other problems).
func guardDoc(source string, doc []byte, allowTags bool) (err error) {
	if len(doc) > MaxDocBytes {
		return fmt.Errorf("%s: the document is %d bytes, over the limit of %d bytes", source, len(doc), MaxDocBytes)
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: the YAML parser failed on this document (%v)", source, r)
		}
	}()
	f, err := parser.ParseBytes(doc, 0)
	if err != nil {
		return fmt.Errorf("%s: %s", source, yaml.FormatError(err, false, true))
	}
	g := guard{source: source, anchors: map[string]int{}, allowTags: allowTags}
	for _, d := range f.Docs {
		if d.Body != nil {
			g.total += g.size(d.Body, 0)
		}
		if g.err != nil {
			return g.err
		}
	}
	return nil
}

type guard struct {
	source    string
	anchors   map[string]int // expanded size of each anchored node
	total     int
	err       error
	allowTags bool
}

func (g *guard) fail(n ast.Node, format string, args ...any) int {
	if g.err == nil {
		p := pos(n)
		g.err = fmt.Errorf("%s:%d:%d: %s", g.source, p.Line, p.Column, fmt.Sprintf(format, args...))
	}
	return MaxNodes + 1
}

// size is the number of nodes n stands for with aliases expanded.
func (g *guard) size(n ast.Node, depth int) int {
	if g.err != nil || n == nil {
		return 0
	}
	if depth > 1000 {
		return g.fail(n, "the document nests deeper than 1000 levels")
	}
	s := 1
	switch v := n.(type) {
	case *ast.TagNode:
		if !g.allowTags {
			return g.fail(n, "%s", tagMessage(v))
		}
		s += g.size(v.Value, depth+1)
	case *ast.DocumentNode:
		s += g.size(v.Body, depth+1)
	case *ast.MappingNode:
		for _, mv := range v.Values {
			s += g.size(mv, depth+1)
		}
	case *ast.MappingValueNode:
		s += g.size(v.Key, depth+1) + g.size(v.Value, depth+1)
	case *ast.MappingKeyNode:
		s += g.size(v.Value, depth+1)
	case *ast.SequenceNode:
		for _, e := range v.Values {
			s += g.size(e, depth+1)
		}
	case *ast.AnchorNode:
		s += g.size(v.Value, depth+1)
		if v.Name != nil {
			g.anchors[v.Name.String()] = s
		}
	case *ast.AliasNode:
		name := ""
		if v.Value != nil {
			name = v.Value.String()
		}
		a, ok := g.anchors[name]
		if !ok {
			return g.fail(n, "alias *%s refers to no anchor defined before it", name)
		}
		s += a
	case *ast.LiteralNode, *ast.StringNode, *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode,
		*ast.NullNode, *ast.InfinityNode, *ast.NanNode, *ast.CommentGroupNode, *ast.CommentNode:
	case *ast.MergeKeyNode:
	default:
		// Directives and anything else the schemas never use.
		return g.fail(n, "unexpected YAML construct (%s)", n.Type())
	}
	if s > MaxNodes || g.total+s > MaxNodes {
		return g.fail(n, "the document expands to more than %d values (aliases of aliases?)", MaxNodes)
	}
	return s
}

func tagMessage(t *ast.TagNode) string {
	return fmt.Sprintf("YAML tag %s is not accepted here: write the value without a tag", t.Start.Value)
}
