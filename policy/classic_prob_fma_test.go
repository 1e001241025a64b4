package policy

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
)

// TestProbArithmeticUnfused: compiled for arm64, where Go fuses a product
// and a sum into one multiply-add unless a conversion forces the
// rounding, the recurrence's steps (step, stepG) and the sum (decide,
// chanceSum) contain no fused instruction: their values stay CPython's,
// pyss's (docs/policies.md, "Cost per decision").
func TestProbArithmeticUnfused(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to compile with")
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "classic_prob.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	type span struct {
		name     string
		from, to int
	}
	var spans []span
	want := map[string]bool{"step": true, "stepG": true, "decide": true, "chanceSum": true}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && want[fd.Name.Name] {
			spans = append(spans, span{fd.Name.Name, fset.Position(fd.Pos()).Line, fset.Position(fd.End()).Line})
		}
	}
	if len(spans) != len(want) {
		t.Fatalf("found %d of the %d functions in classic_prob.go", len(spans), len(want))
	}
	cmd := exec.Command(goBin, "build", "-gcflags=-S", ".")
	cmd.Env = append(cmd.Environ(), "GOARCH=arm64", "GOOS=linux", "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go build for arm64: %v\n%s", err, out)
	}
	fused := regexp.MustCompile(`classic_prob\.go:(\d+)\)\s+F(N?)M(ADD|SUB)D\b`)
	all := regexp.MustCompile(`\s(FN?M(ADD|SUB)D)\b`)
	if !all.Match(out) {
		t.Fatal("no fused multiply-add anywhere in the arm64 listing: the check cannot see one")
	}
	for _, m := range fused.FindAllSubmatch(out, -1) {
		line, _ := strconv.Atoi(string(m[1]))
		for _, s := range spans {
			if line >= s.from && line <= s.to {
				t.Errorf("classic_prob.go:%d (in %s) compiles to a fused multiply-add on arm64", line, s.name)
			}
		}
	}
}
