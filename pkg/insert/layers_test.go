package insert

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The layering rules of issue 25 that a reviewer would otherwise check by
// hand, over the non-test Go source of pkg/ and cmd/:
//
//   - tile algorithms live in pkg/cholesky and pkg/solve: no loop over k
//     or kk (a tile step) that submits tasks elsewhere;
//   - tasks are declared through codelets: no runtime.Task literal outside
//     pkg/insert and pkg/runtime (the runtime's own micro-benchmark,
//     pkg/bench/runtime.go, aside).

// sourceFiles returns the non-test Go files under the repository's pkg/
// and cmd/, parsed, by path relative to the repository root.
func sourceFiles(t *testing.T) map[string]*ast.File {
	t.Helper()
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	out := map[string]*ast.File{}
	for _, dir := range []string{"pkg", "cmd"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			out[filepath.ToSlash(rel)] = f
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(out) < 100 {
		t.Fatalf("found %d source files under pkg/ and cmd/: not the repository", len(out))
	}
	return out
}

// submitters returns the names of the calls that submit a task: the
// methods of Tasks, a codelet's Insert and the runtime's Submit.
func submitters() map[string]bool {
	names := map[string]bool{"Insert": true, "Submit": true}
	ty := reflect.TypeOf(Tasks{})
	for i := 0; i < ty.NumMethod(); i++ {
		names[ty.Method(i).Name] = true
	}
	return names
}

// imports returns the names the file's imports are known by.
func imports(f *ast.File) map[string]bool {
	out := map[string]bool{}
	for _, im := range f.Imports {
		p := strings.Trim(im.Path.Value, `"`)
		name := p[strings.LastIndex(p, "/")+1:]
		if im.Name != nil {
			name = im.Name.Name
		}
		out[name] = true
	}
	return out
}

// submits reports whether n calls a method that submits a task (on a
// value, not a package: mat.Dot is no task), or passes an inserter (an
// argument named ts, the house's name for an insert.Tasks) to a helper.
func submits(n ast.Node, names, pkgs map[string]bool) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || found {
			return !found
		}
		for _, a := range call.Args {
			if id, ok := a.(*ast.Ident); ok && id.Name == "ts" {
				found = true
				return false
			}
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || !names[sel.Sel.Name] {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); ok && pkgs[id.Name] {
			return true
		}
		found = true
		return false
	})
	return found
}

// stepVar returns the loop variable of a for or range statement when it is
// k or kk.
func stepVar(n ast.Node) string {
	var id ast.Expr
	switch s := n.(type) {
	case *ast.ForStmt:
		if as, ok := s.Init.(*ast.AssignStmt); ok && len(as.Lhs) == 1 {
			id = as.Lhs[0]
		}
	case *ast.RangeStmt:
		id = s.Key
	}
	if v, ok := id.(*ast.Ident); ok && (v.Name == "k" || v.Name == "kk") {
		return v.Name
	}
	return ""
}

// TestTiledLoopsOnlyInCholeskyAndSolve fails on a loop over k or kk that
// submits tasks outside pkg/cholesky and pkg/solve: the approximate
// computations, prediction, Fisher, MLOE/MMOM, cross-validation,
// conditional draws and simulation compose those two packages.
func TestTiledLoopsOnlyInCholeskyAndSolve(t *testing.T) {
	names := submitters()
	for path, f := range sourceFiles(t) {
		if strings.HasPrefix(path, "pkg/cholesky/") || strings.HasPrefix(path, "pkg/solve/") {
			continue
		}
		pkgs := imports(f)
		ast.Inspect(f, func(n ast.Node) bool {
			v := stepVar(n)
			if v == "" {
				return true
			}
			var body *ast.BlockStmt
			switch s := n.(type) {
			case *ast.ForStmt:
				body = s.Body
			case *ast.RangeStmt:
				body = s.Body
			}
			if submits(body, names, pkgs) {
				t.Errorf("%s: a loop over %s submits tasks: a tile algorithm belongs in pkg/cholesky or pkg/solve", path, v)
			}
			return true
		})
	}
}

// TestTaskLiteralsOnlyInInsertAndRuntime fails on a runtime.Task literal
// outside pkg/insert and pkg/runtime (and the runtime's micro-benchmark):
// every kind is a Codelet.
func TestTaskLiteralsOnlyInInsertAndRuntime(t *testing.T) {
	for path, f := range sourceFiles(t) {
		if strings.HasPrefix(path, "pkg/insert/") || strings.HasPrefix(path, "pkg/runtime/") || path == "pkg/bench/runtime.go" {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			if sel, ok := lit.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "Task" {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == "runtime" {
					t.Errorf("%s: a runtime.Task literal: declare the kind as an insert.Codelet", path)
				}
			}
			return true
		})
	}
}
