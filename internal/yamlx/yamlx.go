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
	"math"
	"reflect"
	"regexp"
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
		return fmt.Errorf("%s", positioned(source, yaml.FormatError(err, false, true)))
	}
	return nil
}

// positioned writes the decoder's "[line:column] message" as
// "source:line:column: message", the form of every other error.
func positioned(source, msg string) string {
	if m := decoderPos.FindStringSubmatch(msg); m != nil {
		return source + ":" + m[1] + ":" + m[2] + ": " + msg[len(m[0]):]
	}
	return source + ": " + msg
}

var decoderPos = regexp.MustCompile(`^\[(\d+):(\d+)\] `)

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
	Kind   IssueKind
}

// IssueKind says what kind of problem an Issue is.
type IssueKind uint8

const (
	Semantic   IssueKind = iota // found by a check after decoding (At)
	UnknownKey                  // a key the type does not have
	WrongType                   // a value of the wrong type (replaced for DecodeLenient)
	OutOfRange                  // a number outside its field's range tag (replaced too)
)

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

	file  *ast.File // the parsed document (nil: it did not parse)
	fixes []func()  // put a neutral value where a value had the wrong type
}

// At returns an issue at path's position (or without one if unknown).
func (s *Schema) At(path, format string, args ...any) error {
	return &Issue{Source: s.Source, Path: path, Pos: s.Positions[path], Msg: fmt.Sprintf(format, args...)}
}

// Locate places an error found after decoding: when its text starts with
// a dotted path of the document ("groups[0].count: …"; under, if not
// empty, is prepended: a section's key), it becomes an Issue at that
// path's line and column; else at under's position, else it names the
// source.
func (s *Schema) Locate(under string, err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if head, rest, ok := strings.Cut(msg, ": "); ok {
		// "key: …", or "key1, key2: …" (at the first key).
		first, _, _ := strings.Cut(head, ", ")
		prefix := ""
		if under != "" {
			prefix = under + "."
		}
		if p, ok := s.Positions[prefix+first]; ok && !strings.ContainsAny(first, " ") {
			return &Issue{Source: s.Source, Path: prefix + head, Pos: p, Msg: rest}
		}
	}
	if p, ok := s.Positions[under]; ok && under != "" {
		return &Issue{Source: s.Source, Path: under, Pos: p, Msg: msg}
	}
	return fmt.Errorf("%s: %w", s.Source, err)
}

// Check walks doc against the type of v (a struct or pointer to one),
// reporting every unknown key and every scalar of the wrong kind, and
// recording the position of every path. A document that does not parse
// gives one issue.
func Check(source string, doc []byte, v any) *Schema {
	s := &Schema{Source: source, Positions: map[string]Pos{}}
	if err := guardDoc(source, doc, true); err != nil {
		s.Issues = append(s.Issues, err)
		return s
	}
	f, err := parser.ParseBytes(doc, 0)
	if err != nil {
		s.Issues = append(s.Issues, errors.New(positioned(source, yaml.FormatError(err, false, true))))
		return s
	}
	s.file = f
	for _, d := range f.Docs {
		if d.Body != nil && s.walk(d.Body, reflect.TypeOf(v), "") {
			s.file = nil // the document itself has the wrong shape
		}
	}
	return s
}

// DecodeLenient decodes the document Check walked into v, ignoring
// unknown keys and reading every value of the wrong type or out of its
// range as a neutral value of its field's type instead (the lowest value
// its range allows, or 0, false, "", absent), so the checks that follow
// decoding still run and find the document's other problems in the same
// pass, without the consequences of the bad value (a count: "x" read as
// 0 would look like a missing count). Their errors at a replaced path (or
// under it) repeat what Check said: see Replaced.
func (s *Schema) DecodeLenient(v any) (err error) {
	if s.file == nil {
		return fmt.Errorf("%s: the document did not parse", s.Source)
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: the YAML decoder failed (%v)", s.Source, r)
		}
	}()
	for _, fix := range s.fixes {
		fix()
	}
	s.fixes = nil
	for _, d := range s.file.Docs {
		if d.Body == nil {
			continue
		}
		if err := yaml.NodeToValue(d.Body, v); err != nil {
			return fmt.Errorf("%s: %s", s.Source, yaml.FormatError(err, false, true))
		}
	}
	return nil
}

// Replaced reports whether path is, or lies under, a value Check found of
// the wrong type or out of range (DecodeLenient read a neutral value
// there instead).
func (s *Schema) Replaced(path string) bool {
	for _, e := range s.Issues {
		var is *Issue
		if !errors.As(e, &is) || is.Kind != WrongType && is.Kind != OutOfRange {
			continue
		}
		if path == is.Path || strings.HasPrefix(path, is.Path+".") || strings.HasPrefix(path, is.Path+"[") {
			return true
		}
	}
	return false
}

// neutral is the YAML text of the value DecodeLenient reads in place of a
// value of the wrong type: the lowest value the range tag allows (the
// middle of an open interval), 0, false, "", {} (a mapping) or null.
func neutral(t reflect.Type, rng string) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		v := 0.0
		if len(rng) >= 3 {
			lo, hi, _ := strings.Cut(rng[1:len(rng)-1], ",")
			l, errL := strconv.ParseFloat(lo, 64)
			h, errH := strconv.ParseFloat(hi, 64)
			switch {
			case errL == nil && rng[0] == '[':
				v = l
			case errL == nil && errH == nil:
				v = (l + h) / 2
			case errL == nil:
				v = l + 1
			case errH == nil:
				v = min(0, h-1)
			}
		}
		if k := t.Kind(); k != reflect.Float32 && k != reflect.Float64 {
			v = math.Ceil(v)
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	case reflect.Bool:
		return "false"
	case reflect.String:
		return `""`
	case reflect.Struct, reflect.Map:
		// An empty mapping: a section of the wrong type reads as present
		// with nothing set, so checks of what needs the section (a
		// policy that needs a hierarchy) do not report it missing.
		return "{}"
	}
	return "null"
}

// replaceLater records that the value in a slot (set) had the wrong type
// or was out of range: DecodeLenient puts neutral(t, rng) there.
func (s *Schema) replaceLater(set func(ast.Node), t reflect.Type, rng string) {
	text := neutral(t, rng)
	s.fixes = append(s.fixes, func() {
		f, err := parser.ParseBytes([]byte(text), 0)
		if err != nil || len(f.Docs) == 0 || f.Docs[0].Body == nil {
			n, _ := parser.ParseBytes([]byte("null"), 0)
			set(n.Docs[0].Body)
			return
		}
		set(f.Docs[0].Body)
	})
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

func (s *Schema) issue(kind IssueKind, n ast.Node, path, format string, args ...any) {
	s.Issues = append(s.Issues, &Issue{Source: s.Source, Path: path, Pos: pos(n), Msg: fmt.Sprintf(format, args...), Kind: kind})
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

// Number is the value of a YAML number node whatever its spelling:
// decimal, hexadecimal (0x1F), octal (0o17, and 017 as YAML 1.1 reads
// it), binary (0b101), with underscores (1_000) or a sign; false for a
// node that is not a number. Every range check reads numbers through it,
// so no spelling passes a check that its decimal form fails (the text
// "-0x4" is not a number to strconv.ParseFloat, which once let it
// through every range tag).
func Number(n ast.Node) (float64, bool) {
	switch v := n.(type) {
	case *ast.IntegerNode:
		switch x := v.Value.(type) {
		case int64:
			return float64(x), true
		case uint64:
			return float64(x), true
		case int:
			return float64(x), true
		}
	case *ast.FloatNode:
		return v.Value, true
	}
	return 0, false
}

// checkRange checks a numeric node against a range tag such as "[1,]",
// "(0,1)" or "[0,)": brackets are inclusive, parentheses exclusive, an
// empty bound is open. It reports whether the value is out of range. The
// value is the node's own (Number), whatever its spelling.
func (s *Schema) checkRange(n ast.Node, path, tag string) bool {
	if tag == "" || len(tag) < 3 {
		return false
	}
	v, ok := Number(n)
	if !ok {
		return false // the type check reports it
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
		s.issue(OutOfRange, n, path, "%s is out of range: want a value %s", spelled(n, v), describeRange(tag))
	}
	return bad
}

// spelled is a number's text, with its decimal value when it is spelled
// otherwise ("-0x4 (= -4)").
func spelled(n ast.Node, v float64) string {
	text := strings.TrimSpace(n.String())
	dec := strconv.FormatFloat(v, 'g', -1, 64)
	if strings.TrimPrefix(text, "+") == dec {
		return text
	}
	if _, err := strconv.ParseFloat(text, 64); err == nil && !strings.Contains(text, "_") && !looksOctal(text) {
		return text // 1.50, 1e3: plain decimal spellings
	}
	return text + " (= " + dec + ")"
}

// looksOctal: YAML 1.1's octal spelling (a leading 0 and more digits).
func looksOctal(text string) bool {
	t := strings.TrimLeft(text, "+-")
	return len(t) > 1 && t[0] == '0' && t[1] >= '0' && t[1] <= '9'
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

// walk checks n against t and reports whether n itself has the wrong type
// (the caller, which holds n's slot, records its replacement).
func (s *Schema) walk(n ast.Node, t reflect.Type, path string) (wrong bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if path != "" {
		s.Positions[path] = pos(n)
	}
	switch v := n.(type) {
	case *ast.TagNode:
		// A tag is reported at its value's path like a value of the
		// wrong type, and replaced (the decoder of v1.19.2 panics on
		// some tags): the document's other problems are still found.
		s.issue(WrongType, n, path, "%s", tagMessage(v))
		return true
	case *ast.AnchorNode:
		s.untag(v, path, true)
		return false
	}
	switch n.Type() {
	case ast.NullType, ast.AliasType:
		return false
	}
	wrongType := func(format string, args ...any) {
		s.issue(WrongType, n, path, format, args...)
		wrong = true
	}
	switch t.Kind() {
	case reflect.Interface:
		s.untag(n, path, true)
		return
	case reflect.Struct:
		vals, ok := mappingValues(n)
		if !ok {
			wrongType("want a mapping of keys, got %s", describe(n))
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
				s.issue(UnknownKey, mv.Key, join(path, k), "unknown key %q (known keys: %s)", k, strings.Join(known, ", "))
				s.untag(mv, join(path, k), false) // the key is the report
				continue
			}
			before := len(s.Issues)
			if s.walk(mv.Value, f.Type, join(path, k)) {
				s.replaceLater(func(v ast.Node) { mv.Value = v }, f.Type, f.Tag.Get("range"))
			}
			if len(s.Issues) == before && s.checkRange(mv.Value, join(path, k), f.Tag.Get("range")) {
				s.replaceLater(func(v ast.Node) { mv.Value = v }, f.Type, f.Tag.Get("range"))
			}
		}
	case reflect.Map:
		vals, ok := mappingValues(n)
		if !ok {
			wrongType("want a mapping, got %s", describe(n))
			return
		}
		for _, mv := range vals {
			if s.walk(mv.Value, t.Elem(), join(path, keyText(mv.Key))) {
				s.replaceLater(func(v ast.Node) { mv.Value = v }, t.Elem(), "")
			}
		}
	case reflect.Slice:
		seq, ok := n.(*ast.SequenceNode)
		if !ok {
			wrongType("want a list, got %s", describe(n))
			return
		}
		for i, v := range seq.Values {
			if s.walk(v, t.Elem(), fmt.Sprintf("%s[%d]", path, i)) {
				s.replaceLater(func(v ast.Node) { seq.Values[i] = v }, t.Elem(), "")
			}
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if n.Type() != ast.IntegerType {
			wrongType("want an integer, got %s", describe(n))
		} else if in, ok := n.(*ast.IntegerNode); ok {
			if u, big := in.Value.(uint64); big && u > math.MaxInt64 {
				s.issue(OutOfRange, n, path, "%s is too large for an integer (at most %d)", strings.TrimSpace(n.String()), int64(math.MaxInt64))
				wrong = true
			}
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if n.Type() != ast.IntegerType || isNegative(n) {
			wrongType("want a non-negative integer, got %s", describe(n))
		}
	case reflect.Float32, reflect.Float64:
		switch n.Type() {
		case ast.IntegerType, ast.FloatType:
		case ast.InfinityType, ast.NanType:
			wrongType("want a finite number, got %s", strings.TrimSpace(n.String()))
		default:
			wrongType("want a number, got %s", describe(n))
		}
	case reflect.Bool:
		if n.Type() != ast.BoolType {
			wrongType("want true or false, got %s", describe(n))
		}
	case reflect.String:
		switch n.Type() {
		case ast.MappingType, ast.MappingValueType, ast.SequenceType:
			wrongType("want a text value, got %s", describe(n))
		}
	}
	return wrong
}

// untag removes every YAML tag below n (the walk does not check types
// there: anchored values, values of any type, unknown keys' values),
// keeping the tagged value; with report, each tag is an issue at its
// value's path.
func (s *Schema) untag(n ast.Node, path string, report bool) {
	// fix returns what goes in a slot holding c (c without its tags).
	var fix func(c ast.Node, path string) ast.Node
	fix = func(c ast.Node, path string) ast.Node {
		for {
			t, ok := c.(*ast.TagNode)
			if !ok {
				break
			}
			if report {
				s.issue(WrongType, t, path, "%s", tagMessage(t))
			}
			c = t.Value
			if c == nil {
				nul, _ := parser.ParseBytes([]byte("null"), 0)
				return nul.Docs[0].Body
			}
		}
		switch v := c.(type) {
		case *ast.MappingNode:
			for _, mv := range v.Values {
				mv.Value = fix(mv.Value, join(path, keyText(mv.Key)))
			}
		case *ast.MappingValueNode:
			v.Value = fix(v.Value, join(path, keyText(v.Key)))
		case *ast.SequenceNode:
			for i := range v.Values {
				v.Values[i] = fix(v.Values[i], fmt.Sprintf("%s[%d]", path, i))
			}
		case *ast.AnchorNode:
			v.Value = fix(v.Value, path)
		}
		return c
	}
	switch v := n.(type) {
	case *ast.MappingValueNode:
		// An entry: its value (the key's own path).
		v.Value = fix(v.Value, path)
	default:
		fix(n, path)
	}
}

// isNegative reports whether a number node is below zero (any spelling;
// -0x0 is not).
func isNegative(n ast.Node) bool {
	if in, ok := n.(*ast.IntegerNode); ok {
		if v, ok := in.Value.(int64); ok {
			return v < 0
		}
		return false
	}
	return strings.HasPrefix(strings.TrimSpace(n.String()), "-")
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
