package job

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/exageostat/exageostat/pkg/config"
)

// FuzzReadFitResult: whatever the bytes of the file, ReadFitResult returns
// bad input in one line starting with the file, or a result that predict
// can use: ApplyTo gives a prediction configuration that validates. Seed
// corpus: testdata/fuzz/FuzzReadFitResult/ (where `go test` finds it);
// `make test` runs the target for a few seconds.
func FuzzReadFitResult(f *testing.F) {
	for _, s := range []string{
		`{"kernel":"matern","distance":"euclidean","parameters":["sigma2","beta","nu"],"theta":[1,0.1,0.5],"loglik":-120.5,"nugget":0,"steps":[{"n":1,"theta":[1,0.1,0.5],"loglik":null}]}`,
		`{"kernel":"powexp","distance":"great-circle","theta":[1,100,1.5],"nugget":0.01}`,
		`{"theta":[1,0.1,0.5]}`,
		`{"theta":[1,0.1,0.5],"nugget":-1}`,
		`{"kernel":"matern","theta":[1,0.1`,
		`{"kernel":"gauss","theta":[1,0.1,0.5]}`,
		`{"theta":"1,0.1,0.5"}`,
		`[1,2,3]`,
		`null`,
		``,
		`{"theta":[1,0.1,0.5],"distance":"manhattan"}`,
		`{"theta":[1e400,0.1,0.5]}`,
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(dir, "r.json")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		r, err := ReadFitResult(p)
		if err != nil {
			msg := err.Error()
			if strings.ContainsAny(msg, "\n\r") || !strings.HasPrefix(msg, p+": ") || !IsInput(err) {
				t.Fatalf("error %q (%T): want one line of bad input starting with the file", msg, err)
			}
			return
		}
		pc := config.DefaultPredict()
		pc.Data, pc.At, pc.Out = "d.csv", "a.csv", filepath.Join(dir, "p.csv")
		if err := r.ApplyTo(&pc, p, func(string) bool { return false }); err != nil {
			t.Fatalf("ApplyTo: %v", err)
		}
		if err := pc.Validate(); err != nil {
			t.Fatalf("a result read without error gives an invalid prediction: %v", err)
		}
	})
}
