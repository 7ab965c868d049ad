package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestBenchCholeskyAutoNB: without --nb, bench cholesky uses fit's tile
// size, tile.AutoNB(N) (N = 1000: 176), and prints the one it used; with
// --nb, that one.
func TestBenchCholeskyAutoNB(t *testing.T) {
	bin := binary(t)
	for _, c := range []struct {
		args []string
		nb   int
	}{
		{nil, 176},
		{[]string{"--nb", "250"}, 250},
	} {
		args := append([]string{"bench", "cholesky", "--n", "1000", "--reps", "1", "--workers", "1", "--json"}, c.args...)
		stdout, stderr, code := run(t, bin, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		var r struct{ NB, Tasks int }
		if err := json.Unmarshal([]byte(stdout), &r); err != nil {
			t.Fatalf("%v:\n%s", err, stdout)
		}
		if r.NB != c.nb {
			t.Errorf("%v: nb %d, want %d", c.args, r.NB, c.nb)
		}
	}
	stdout, stderr, code := run(t, bin, "bench", "cholesky", "--n", "1000", "--reps", "1", "--workers", "1")
	if code != 0 || !strings.Contains(stdout, "cholesky n=1000 nb=176 workers=1") {
		t.Errorf("exit %d:\n%s%s", code, stdout, stderr)
	}
	_, stderr, code = run(t, bin, "bench", "cholesky", "--nb", "-1")
	if code != 2 || !strings.Contains(stderr, "--nb must be >= 1, or 0 for the automatic tile size (got -1)") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	stdout, _, _ = run(t, bin, "bench", "cholesky", "--help")
	if !strings.Contains(stdout, "tile size (0: automatic, as fit") {
		t.Errorf("help:\n%s", stdout)
	}
}
