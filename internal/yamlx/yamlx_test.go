package yamlx

import (
	"strconv"
	"strings"
	"testing"

	"github.com/gridsched/gridsched/internal/testenv"
)

type inner struct {
	N int     `yaml:"n"`
	X float64 `yaml:"x"`
}

type outer struct {
	Name  string           `yaml:"name"`
	In    inner            `yaml:"in"`
	List  []inner          `yaml:"list"`
	Grid  map[string][]any `yaml:"grid"`
	Flag  bool             `yaml:"flag"`
	Seed  uint64           `yaml:"seed"`
	Embed `yaml:",inline"`
}

type Embed struct {
	E string `yaml:"e"`
}

// TestCheckReportsEverything: one pass finds every unknown key and every
// wrong type, each at its line and column.
func TestCheckReportsEverything(t *testing.T) {
	doc := `name: x
in:
  n: three
  y: 2
list:
  - n: 1
  - x: [1]
grid:
  a.b: [1, 2]
flag: 1
seed: -4
e: ok
`
	s := Check("spec.yaml", []byte(doc), &outer{})
	var got []string
	for _, e := range s.Issues {
		got = append(got, e.Error())
	}
	want := []string{
		`spec.yaml:3:6: in.n: want an integer, got text "three"`,
		`spec.yaml:4:3: in.y: unknown key "y" (known keys: n, x)`,
		`spec.yaml:7:8: list[1].x: want a number, got a list`,
		`spec.yaml:10:7: flag: want true or false, got integer 1`,
		`spec.yaml:11:7: seed: want a non-negative integer, got integer -4`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("issues:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if p := s.Positions["grid.a.b"]; p.Line != 9 {
		t.Errorf("position of grid.a.b: %+v", p)
	}
}

func TestSetOverride(t *testing.T) {
	v := outer{Name: "keep", In: inner{N: 1, X: 2}}
	if err := SetOverride(&v, "in.x=5"); err != nil || v.In.X != 5 || v.In.N != 1 || v.Name != "keep" {
		t.Fatalf("%v %+v", err, v)
	}
	if err := SetOverride(&v, "in.z=5"); err == nil || !strings.Contains(err.Error(), `unknown field "z"`) {
		t.Fatalf("%v", err)
	}
}

type ranged struct {
	Count int      `yaml:"count" range:"[1,]"`
	Frac  float64  `yaml:"frac" range:"(0,1)"`
	Scale *float64 `yaml:"scale" range:"(0,]"`
	Names []string `yaml:"names"`
	Keep  int      `yaml:"keep"`
	Extra string   `yaml:"extra"`
	Min   int      `yaml:"min" range:"[2,]"`
}

// TestDecodeLenientReplacesWrongTypes: after Check, DecodeLenient reads
// every value of the wrong type or out of range as a neutral value of its
// field (the lowest its range allows, the middle of an open range, "" in
// a list),
// keeps every other value, and ignores unknown keys; Replaced says which
// paths were replaced (issue 18, item 4).
func TestDecodeLenientReplacesWrongTypes(t *testing.T) {
	doc := `count: "x"
frac: [1]
scale: no
names: [a, {b: 1}, c]
keep: 7
typo: 1
extra: {a: 1}
min: 0
`
	s := Check("d.yaml", []byte(doc), &ranged{})
	if len(s.Issues) != 7 {
		t.Fatalf("issues: %v", s.Issues)
	}
	var v ranged
	if err := s.DecodeLenient(&v); err != nil {
		t.Fatal(err)
	}
	if v.Count != 1 || v.Frac != 0.5 || v.Scale == nil || *v.Scale != 1 || strings.Join(v.Names, ",") != "a,,c" || v.Keep != 7 || v.Extra != "" || v.Min != 2 {
		t.Errorf("decoded %+v (scale %v)", v, v.Scale)
	}
	for path, want := range map[string]bool{"count": true, "names[1]": true, "names[1].b": true, "names[0]": false, "keep": false, "extra": true, "typo": false, "min": true} {
		if s.Replaced(path) != want {
			t.Errorf("Replaced(%q) = %v", path, !want)
		}
	}
	// A document of the wrong shape as a whole cannot be decoded.
	s = Check("d.yaml", []byte("[1, 2]\n"), &ranged{})
	if err := s.DecodeLenient(&v); err == nil {
		t.Error("a list decoded as a struct")
	}
}

// TestCheckReportsTags (issue 18, item 4): a YAML tag is one issue among
// the others, at its value's path, line and column, wherever it stands (a
// scalar, a list-valued key, a value of any type, an anchored value);
// under an unknown key only the key is reported. DecodeLenient then
// decodes the rest without the tags (the decoder of v1.19.2 panics on a
// tagged list value).
func TestCheckReportsTags(t *testing.T) {
	doc := "name: !!str x\nin: {n: !t 3, x: 1}\nlist: !x [a]\ngrid:\n  a.b: [1, !!int 2]\n  c: &k !y [3]\n  d: *k\nflag: 1\nbad: !z [1]\n"
	var v outer
	sc := Check("d.yaml", []byte(doc), &v)
	var got []string
	for _, e := range sc.Issues {
		got = append(got, e.Error())
	}
	msg := strings.Join(got, "\n")
	for _, want := range []string{
		"d.yaml:1:7: name: YAML tag !!str is not accepted here",
		"d.yaml:2:9: in.n: YAML tag !t is not accepted here",
		"d.yaml:3:7: list: YAML tag !x is not accepted here",
		"d.yaml:5:12: grid.a.b[1]: YAML tag !!int is not accepted here",
		"d.yaml:6:9: grid.c: YAML tag !y is not accepted here",
		"d.yaml:8:7: flag: want true or false",
		`d.yaml:9:1: bad: unknown key "bad"`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("missing %q in:\n%s", want, msg)
		}
	}
	if len(got) != 7 {
		t.Errorf("%d issues, want 7 (the tag under an unknown key is not one):\n%s", len(got), msg)
	}
	if err := sc.DecodeLenient(&v); err != nil {
		t.Fatal(err)
	}
	if v.In.X != 1 || len(v.Grid["a.b"]) != 2 || len(v.Grid["d"]) != 1 {
		t.Errorf("decoded %+v", v)
	}
}

// TestRangeCheckEverySpelling: a range tag sees the value, not its text:
// -0x4, -0o4, -0b100 and -4 are all out of [1,]; 0x0 out of (0,1); an
// in-range value in any spelling is accepted and decodes to its decimal
// value; a too-large integer is out of range, not a decoder error.
func TestRangeCheckEverySpelling(t *testing.T) {
	for _, sp := range testenv.IntegerSpellings {
		for _, c := range []struct{ doc string }{{"count: " + sp.Text + "\n"}, {"frac: " + sp.Text + "\n"}, {"min: " + sp.Text + "\n"}} {
			dec, _ := strconv.ParseFloat(sp.Decimal, 64)
			var bad bool
			switch {
			case strings.HasPrefix(c.doc, "count"):
				bad = dec < 1
			case strings.HasPrefix(c.doc, "frac"):
				bad = !(dec > 0 && dec < 1)
			default:
				bad = dec < 2
			}
			s := Check("d.yaml", []byte(c.doc), &ranged{})
			if bad != (len(s.Issues) == 1) || len(s.Issues) > 1 {
				t.Errorf("%q: issues %v, want out of range %v", c.doc, s.Issues, bad)
				continue
			}
			if bad {
				msg := s.Issues[0].Error()
				if !strings.HasPrefix(msg, "d.yaml:1:") || !strings.Contains(msg, "is out of range") {
					t.Errorf("%q: %s", c.doc, msg)
				}
				if sp.Text != sp.Decimal && strings.TrimPrefix(sp.Text, "+") != sp.Decimal && !strings.Contains(msg, "(= "+sp.Decimal+")") {
					t.Errorf("%q: the message does not give the decimal value: %s", c.doc, msg)
				}
				continue
			}
			var v ranged
			if err := DecodeStrict("d.yaml", []byte(c.doc), &v); err != nil {
				t.Errorf("%q: %v", c.doc, err)
			}
			if got := float64(v.Count + v.Min); got != dec {
				t.Errorf("%q decoded as %v, want %v", c.doc, got, dec)
			}
		}
	}
	s := Check("d.yaml", []byte("keep: 9223372036854775808\n"), &ranged{})
	if len(s.Issues) != 1 || !strings.Contains(s.Issues[0].Error(), "d.yaml:1:7: keep: 9223372036854775808 is too large for an integer") {
		t.Errorf("too large: %v", s.Issues)
	}
	s = Check("d.yaml", []byte("seed: -0x1\n"), &outer{})
	if len(s.Issues) != 1 || !strings.Contains(s.Issues[0].Error(), "want a non-negative integer") {
		t.Errorf("negative hex seed: %v", s.Issues)
	}
}
