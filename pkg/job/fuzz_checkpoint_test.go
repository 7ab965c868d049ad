package job

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzReadCheckpoint: whatever the bytes of the file, ReadCheckpoint
// returns an error of one line, or a checkpoint that resuming can use
// (every evaluation has a theta of the bounds' length and exactly one of
// l and an error) and that, written again as JSON, reads back with the
// same evaluations. Never a panic. Seed corpus: the seeds below and
// testdata/fuzz/FuzzReadCheckpoint/; `make test` runs the target.
func FuzzReadCheckpoint(f *testing.F) {
	l := -120.5
	valid := Checkpoint{Format: CheckpointFormat, Version: CheckpointVersion, Status: "running",
		Settings:    CheckpointSettings{Kernel: "matern", Distance: "euclidean", Lower: []float64{0.01, 0.01, 0.01}, Upper: []float64{5, 5, 5}},
		Evaluations: []CheckpointEval{{Theta: []float64{1, 0.1, 0.5}, LogLik: &l}, {Theta: []float64{2, 0.1, 0.5}, Error: "not positive definite"}}}
	b, err := json.Marshal(valid)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	for _, s := range []string{
		`{"format":"exageostat fit checkpoint","version":1,"settings":{"lb":[1,2]},"evaluations":[{"theta":[1,2],"loglik":null}]}`,
		`{"format":"exageostat fit checkpoint","version":1,"settings":{"lb":[1]},"evaluations":[{"theta":[1,2],"loglik":3}]}`,
		`{"format":"exageostat fit checkpoint","version":2}`,
		`{"format":"exageostat fit checkpoint","version":1,"evaluations":[{"theta":[],"loglik":1e400}]}`,
		`{"format":"other"}`, `[]`, `null`, ``, `{"format":"exageostat fit checkpoint"`,
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(dir, "r.ckpt")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		c, _, err := ReadCheckpoint(p)
		if err != nil {
			if msg := err.Error(); msg == "" || strings.ContainsAny(msg, "\n\r") {
				t.Fatalf("error %q: want one line", msg)
			}
			return
		}
		for i, e := range c.Evaluations {
			if len(e.Theta) != len(c.Settings.Lower) || (e.LogLik == nil) == (e.Error == "") {
				t.Fatalf("evaluation %d accepted: theta %v for %d bounds, loglik %v, error %q", i, e.Theta, len(c.Settings.Lower), e.LogLik, e.Error)
			}
		}
		if got := len(c.records()); got != len(c.Evaluations) {
			t.Fatalf("%d records of %d evaluations", got, len(c.Evaluations))
		}
		again, err := json.Marshal(c)
		if err != nil {
			t.Fatalf("the checkpoint read does not write back: %v", err)
		}
		if err := os.WriteFile(p, again, 0o644); err != nil {
			t.Fatal(err)
		}
		c2, _, err := ReadCheckpoint(p)
		if err != nil || len(c2.Evaluations) != len(c.Evaluations) {
			t.Fatalf("written back, the checkpoint reads as %v evaluations, error %v; want %d", len(c2.Evaluations), err, len(c.Evaluations))
		}
	})
}
