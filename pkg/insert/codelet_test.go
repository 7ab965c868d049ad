package insert

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/kind"
	"github.com/exageostat/exageostat/pkg/runtime"
)

// declaredCodelets returns the names of the package-level variables of
// this package's source initialised with a &Codelet[...]{...} literal.
func declaredCodelets(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, sp := range g.Specs {
				vs := sp.(*ast.ValueSpec)
				for i, v := range vs.Values {
					u, ok := v.(*ast.UnaryExpr)
					if !ok {
						continue
					}
					if lit, ok := u.X.(*ast.CompositeLit); ok {
						if ix, ok := lit.Type.(*ast.IndexExpr); ok {
							if id, ok := ix.X.(*ast.Ident); ok && id.Name == "Codelet" {
								out = append(out, vs.Names[i].Name)
							}
						}
					}
				}
			}
		}
	}
	return out
}

// TestCodeletsListed: every codelet this package declares is in Codelets,
// once, each kind is declared by one codelet, and each kind is a kind of
// package kind with a phase (or the copy into the runtime).
func TestCodeletsListed(t *testing.T) {
	decl := declaredCodelets(t)
	all := Codelets()
	if len(decl) != len(all) {
		t.Errorf("%d codelets declared (%v), %d listed in Codelets", len(decl), decl, len(all))
	}
	seen := map[string]bool{}
	for _, cl := range all {
		if seen[cl.Name()] {
			t.Errorf("kind %s declared twice", cl.Name())
		}
		seen[cl.Name()] = true
		if kind.Phase(cl.Name()) == "other" && cl.Name() != kind.Copy {
			t.Errorf("kind %q has no phase in package kind", cl.Name())
		}
		if cl.ModelKey() != cl.Name() {
			t.Errorf("kind %s has the performance-model key %q", cl.Name(), cl.ModelKey())
		}
	}
}

// TestDeviceKinds: the kinds with a device implementation are those that
// cuBLAS and cuSOLVER provide (seed 000's Cholesky kernels and gemv), read
// from the codelets.
func TestDeviceKinds(t *testing.T) {
	want := []string{kind.Potrf, kind.Trmm, kind.Syrk, kind.Gemm, kind.Gemv}
	if got := DeviceKinds(); !slices.Equal(got, want) {
		t.Fatalf("DeviceKinds() = %v, want %v", got, want)
	}
}

// scaleArgs and scaleCL are the example of the Codelet documentation: a
// kind declared outside this package's list.
type scaleArgs struct {
	n     int
	alpha float64
}

func (a scaleArgs) flops() float64 { return float64(a.n) }

func (a scaleArgs) cpu(_ kernels.Impl, c runtime.Context) error {
	x := c.Vector(0)
	for i := range x {
		x[i] *= a.alpha
	}
	return nil
}

var scaleCL = &Codelet[scaleArgs]{Kind: "scale", Modes: []runtime.Mode{runtime.RW}, Flops: scaleArgs.flops, CPU: scaleArgs.cpu,
	Model: "scale-v1"}

// keys records the performance-model keys of the tasks a runtime ran.
type keys struct {
	mu sync.Mutex
	k  map[string]int
}

func (h *keys) Record(_, kind string, _ int, _ float64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.k[kind]++
}
