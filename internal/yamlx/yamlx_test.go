package yamlx

import (
	"strings"
	"testing"
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
