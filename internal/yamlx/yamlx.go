// Package yamlx holds the strict YAML handling shared by workload-model
// parameters and experiment specs: strict decoding, setting one value by a
// dotted path, and a schema check that reports every unknown key and
// every value of the wrong type at once, each with its line and column.
package yamlx

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// DecodeStrict decodes doc into v: unknown keys and wrong types are
// errors naming source, line and column. An empty doc changes nothing.
// Keys doc does not mention keep their values in v.
func DecodeStrict(source string, doc []byte, v any) (err error) {
	if len(bytes.TrimSpace(doc)) == 0 {
		return nil
	}
	if err := Guard(source, doc); err != nil {
		return err
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: the YAML decoder failed on this document (%v)", source, r)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(doc), yaml.DisallowUnknownField(), yaml.Strict())
	if err := dec.Decode(v); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("%s: %s", source, yaml.FormatError(err, false, true))
	}
	return nil
}

// DecodeLenient decodes doc into v ignoring unknown keys (after Guard):
// for checks that go on after the schema check reported them.
func DecodeLenient(doc []byte, v any) (err error) {
	if err := Guard("", doc); err != nil {
		return err
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the YAML decoder failed (%v)", r)
		}
	}()
	if err := yaml.NewDecoder(bytes.NewReader(doc)).Decode(v); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// PathDoc builds the YAML document that sets the dotted key to the YAML
// text value: "a.b", "3" gives "a:\n  b: 3\n".
func PathDoc(key, value string) []byte {
	keys := strings.Split(key, ".")
	var b strings.Builder
	for i, k := range keys {
		b.WriteString(strings.Repeat("  ", i) + k + ":")
		if i < len(keys)-1 {
			b.WriteString("\n")
		}
	}
	b.WriteString(" " + value + "\n")
	return []byte(b.String())
}

// SetOverride applies "key=value" (dotted key, YAML value) to v.
func SetOverride(v any, override string) error {
	k, val, ok := strings.Cut(override, "=")
	if !ok || k == "" {
		return fmt.Errorf("--param %q: want key=value", override)
	}
	return DecodeStrict("--param "+override, PathDoc(k, val), v)
}

// Flow formats a Go value as one-line YAML.
func Flow(v any) (string, error) {
	b, err := yaml.MarshalWithOptions(v, yaml.Flow(true))
	return strings.TrimSpace(string(b)), err
}

// Pos is a position in a YAML document.
type Pos struct{ Line, Column int }

// Issue is one problem found in a document.
type Issue struct {
	Source string
	Path   string // dotted path of the value
	Pos    Pos
	Msg    string
}

func (i *Issue) Error() string {
	if i.Pos.Line > 0 {
		return fmt.Sprintf("%s:%d:%d: %s: %s", i.Source, i.Pos.Line, i.Pos.Column, i.Path, i.Msg)
	}
	return fmt.Sprintf("%s: %s: %s", i.Source, i.Path, i.Msg)
}

// Schema is the result of Check: every problem, and where each path is.
type Schema struct {
	Source    string
	Issues    []error
	Positions map[string]Pos
}

// At returns an issue at path's position (or without one if unknown).
func (s *Schema) At(path, format string, args ...any) error {
	return &Issue{Source: s.Source, Path: path, Pos: s.Positions[path], Msg: fmt.Sprintf(format, args...)}
}

// Check walks doc against the type of v (a struct or pointer to one),
// reporting every unknown key and every scalar of the wrong kind, and
// recording the position of every path. A document that does not parse
// gives one issue.
func Check(source string, doc []byte, v any) *Schema {
	s := &Schema{Source: source, Positions: map[string]Pos{}}
	if err := Guard(source, doc); err != nil {
		s.Issues = append(s.Issues, err)
		return s
	}
	f, err := parser.ParseBytes(doc, 0)
	if err != nil {
		s.Issues = append(s.Issues, fmt.Errorf("%s: %s", source, yaml.FormatError(err, false, true)))
		return s
	}
	for _, d := range f.Docs {
		if d.Body != nil {
			s.walk(d.Body, reflect.TypeOf(v), "")
		}
	}
	return s
}

func pos(n ast.Node) Pos {
	if t := n.GetToken(); t != nil && t.Position != nil {
		return Pos{t.Position.Line, t.Position.Column}
	}
	return Pos{}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func (s *Schema) issue(n ast.Node, path, format string, args ...any) {
	s.Issues = append(s.Issues, &Issue{Source: s.Source, Path: path, Pos: pos(n), Msg: fmt.Sprintf(format, args...)})
}

// mappingValues returns the entries of a mapping node, or false.
func mappingValues(n ast.Node) ([]*ast.MappingValueNode, bool) {
	switch m := n.(type) {
	case *ast.MappingNode:
		return m.Values, true
	case *ast.MappingValueNode:
		return []*ast.MappingValueNode{m}, true
	}
	return nil, false
}

func keyText(k ast.MapKeyNode) string {
	s := strings.TrimSpace(k.String())
	return strings.Trim(s, `"'`)
}

// fieldsOf maps yaml names to fields, following inline structs.
func fieldsOf(t reflect.Type, into map[string]reflect.StructField) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("yaml")
		name, opts, _ := strings.Cut(tag, ",")
		if strings.Contains(opts, "inline") {
			fieldsOf(f.Type, into)
			continue
		}
		if name == "-" {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		into[name] = f
	}
}

// checkRange checks a numeric node against a range tag such as "[1,]",
// "(0,1)" or "[0,)": brackets are inclusive, parentheses exclusive, an
// empty bound is open.
func (s *Schema) checkRange(n ast.Node, path, tag string) {
	if tag == "" || len(tag) < 3 {
		return
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(n.String()), 64)
	if err != nil {
		return // the type check reports it
	}
	lo, hi, _ := strings.Cut(tag[1:len(tag)-1], ",")
	loInc, hiInc := tag[0] == '[', tag[len(tag)-1] == ']'
	bad := false
	if lo != "" {
		l, _ := strconv.ParseFloat(lo, 64)
		bad = bad || v < l || (!loInc && v == l)
	}
	if hi != "" {
		h, _ := strconv.ParseFloat(hi, 64)
		bad = bad || v > h || (!hiInc && v == h)
	}
	if bad {
		s.issue(n, path, "%s is out of range: want a value %s", strings.TrimSpace(n.String()), describeRange(tag))
	}
}

func describeRange(tag string) string {
	lo, hi, _ := strings.Cut(tag[1:len(tag)-1], ",")
	switch {
	case hi == "" && tag[0] == '[':
		return ">= " + lo
	case hi == "":
		return "> " + lo
	case lo == "" && tag[len(tag)-1] == ']':
		return "<= " + hi
	case lo == "":
		return "< " + hi
	}
	return "in " + tag
}

func (s *Schema) walk(n ast.Node, t reflect.Type, path string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if path != "" {
		s.Positions[path] = pos(n)
	}
	switch n.Type() {
	case ast.NullType, ast.AnchorType, ast.AliasType, ast.TagType:
		return
	}
	switch t.Kind() {
	case reflect.Interface:
		return
	case reflect.Struct:
		vals, ok := mappingValues(n)
		if !ok {
			s.issue(n, path, "want a mapping of keys, got %s", describe(n))
			return
		}
		fields := map[string]reflect.StructField{}
		fieldsOf(t, fields)
		for _, mv := range vals {
			k := keyText(mv.Key)
			f, ok := fields[k]
			if !ok {
				known := make([]string, 0, len(fields))
				for name := range fields {
					known = append(known, name)
				}
				sort.Strings(known)
				s.issue(mv.Key, join(path, k), "unknown key %q (known keys: %s)", k, strings.Join(known, ", "))
				continue
			}
			before := len(s.Issues)
			s.walk(mv.Value, f.Type, join(path, k))
			if len(s.Issues) == before {
				s.checkRange(mv.Value, join(path, k), f.Tag.Get("range"))
			}
		}
	case reflect.Map:
		vals, ok := mappingValues(n)
		if !ok {
			s.issue(n, path, "want a mapping, got %s", describe(n))
			return
		}
		for _, mv := range vals {
			s.walk(mv.Value, t.Elem(), join(path, keyText(mv.Key)))
		}
	case reflect.Slice:
		seq, ok := n.(*ast.SequenceNode)
		if !ok {
			s.issue(n, path, "want a list, got %s", describe(n))
			return
		}
		for i, v := range seq.Values {
			s.walk(v, t.Elem(), fmt.Sprintf("%s[%d]", path, i))
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if n.Type() != ast.IntegerType {
			s.issue(n, path, "want an integer, got %s", describe(n))
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if n.Type() != ast.IntegerType || strings.HasPrefix(strings.TrimSpace(n.String()), "-") {
			s.issue(n, path, "want a non-negative integer, got %s", describe(n))
		}
	case reflect.Float32, reflect.Float64:
		switch n.Type() {
		case ast.IntegerType, ast.FloatType:
		case ast.InfinityType, ast.NanType:
			s.issue(n, path, "want a finite number, got %s", strings.TrimSpace(n.String()))
		default:
			s.issue(n, path, "want a number, got %s", describe(n))
		}
	case reflect.Bool:
		if n.Type() != ast.BoolType {
			s.issue(n, path, "want true or false, got %s", describe(n))
		}
	case reflect.String:
		switch n.Type() {
		case ast.MappingType, ast.MappingValueType, ast.SequenceType:
			s.issue(n, path, "want a text value, got %s", describe(n))
		}
	}
}

func describe(n ast.Node) string {
	switch n.Type() {
	case ast.MappingType, ast.MappingValueType:
		return "a mapping"
	case ast.SequenceType:
		return "a list"
	case ast.StringType, ast.LiteralType:
		return fmt.Sprintf("text %q", strings.Trim(strings.TrimSpace(n.String()), `"'`))
	}
	return fmt.Sprintf("%s %s", strings.ToLower(strings.TrimSuffix(n.Type().String(), "Type")), strings.TrimSpace(n.String()))
}
