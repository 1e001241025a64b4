package system_test

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestNoWritesThroughSharedJobFields: a model.Job's trace and model fields
// (model.TraceFields, model.ModelFields) sit behind pointers that jobs
// share, so assigning one through a job (j.Site = 3, j.Queue++,
// &j.User) changes every job sharing the value — it compiles, and it is
// wrong (model.Job's comment; issue 19). This type-checks every non-test
// package of the module and fails on any assignment, increment or
// address-of of such a field reached through the embedding (a promoted
// field of model.Job or engine.Job). Writing a TraceFields or ModelFields
// value of one's own (tf.Queue = x before attaching &tf) is fine.
// allowed lists the functions that fill fields in place on values the
// caller made private first (model.Job.Own).
func TestNoWritesThroughSharedJobFields(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the module (go list -export)")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs the go command")
	}
	allowed := map[string]string{
		"github.com/gridsched/gridsched/workload.fields": "its callers call Own first (CSV and JSON Lines readers)",
	}
	cmd := exec.Command("go", "list", "-deps", "-export", "-json=ImportPath,Dir,GoFiles,Export,Module,Standard", "./...")
	cmd.Dir = ".."
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	type pkg struct {
		ImportPath, Dir, Export string
		GoFiles                 []string
		Standard                bool
		Module                  *struct{ Path string }
	}
	exports := map[string]string{}
	var ours []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		exports[p.ImportPath] = p.Export
		if p.Module != nil && p.Module.Path == "github.com/gridsched/gridsched" {
			ours = append(ours, p)
		}
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		return os.Open(exports[path])
	})
	const modelPath = "github.com/gridsched/gridsched/model"
	checked := 0
	for _, p := range ours {
		var files []*ast.File
		for _, f := range p.GoFiles {
			af, err := parser.ParseFile(fset, filepath.Join(p.Dir, f), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, af)
		}
		info := &types.Info{Selections: map[*ast.SelectorExpr]*types.Selection{}}
		conf := types.Config{Importer: imp}
		if _, err := conf.Check(p.ImportPath, fset, files, info); err != nil {
			t.Fatalf("type-checking %s: %v", p.ImportPath, err)
		}
		checked++
		// shared reports whether e selects a TraceFields/ModelFields field
		// through an embedded pointer (a promoted field of a job).
		shared := func(e ast.Expr) bool {
			sel, ok := ast.Unparen(e).(*ast.SelectorExpr)
			if !ok {
				return false
			}
			s := info.Selections[sel]
			if s == nil || s.Kind() != types.FieldVal || len(s.Index()) < 2 {
				return false
			}
			// Walk the path: the last embedded step must be a
			// *TraceFields or *ModelFields of package model.
			typ := s.Recv()
			for _, i := range s.Index()[:len(s.Index())-1] {
				st, ok := deref(typ).Underlying().(*types.Struct)
				if !ok {
					return false
				}
				typ = st.Field(i).Type()
			}
			ptr, ok := typ.(*types.Pointer)
			if !ok {
				return false
			}
			n, ok := ptr.Elem().(*types.Named)
			return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == modelPath &&
				(n.Obj().Name() == "TraceFields" || n.Obj().Name() == "ModelFields")
		}
		for _, f := range files {
			var fn string
			ast.Inspect(f, func(n ast.Node) bool {
				var targets []ast.Expr
				switch n := n.(type) {
				case *ast.FuncDecl:
					fn = p.ImportPath + "." + n.Name.Name
				case *ast.AssignStmt:
					if n.Tok != token.DEFINE {
						targets = n.Lhs
					}
				case *ast.IncDecStmt:
					targets = []ast.Expr{n.X}
				case *ast.UnaryExpr:
					if n.Op == token.AND {
						targets = []ast.Expr{n.X}
					}
				}
				for _, e := range targets {
					if shared(e) {
						if _, ok := allowed[fn]; ok {
							continue
						}
						t.Errorf("%s: writes %s through a job's shared fields: attach a changed copy (model.Job)", fset.Position(e.Pos()), types.ExprString(e))
					}
				}
				return true
			})
		}
	}
	if checked < 20 {
		t.Fatalf("type-checked only %d packages of the module", checked)
	}
}

func deref(t types.Type) types.Type {
	if p, ok := t.(*types.Pointer); ok {
		return p.Elem()
	}
	return t
}
