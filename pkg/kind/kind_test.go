package kind

import (
	"slices"
	"testing"
)

func TestPhases(t *testing.T) {
	for _, c := range []struct{ kind, phase string }{
		{Dcmg, "generation"}, {Zcpy, "generation"}, {Potrf, "cholesky"}, {Trtri, "cholesky"}, {Trmm, "cholesky"},
		{Syrk, "cholesky"}, {Gemm, "cholesky"}, {Det, "solve"}, {Trsv, "solve"}, {Gemv, "solve"}, {Geadd, "solve"},
		{Dot, "solve"}, {Send, "other"}, {Free, "other"},
	} {
		if got := Phase(c.kind); got != c.phase {
			t.Errorf("Phase(%s) = %s, want %s", c.kind, got, c.phase)
		}
	}
	d := Durations()
	if len(d) != 12 || !slices.Contains(d, Trmm) || slices.Contains(d, "trsm") {
		t.Errorf("duration kinds %v: want the 12 kinds of an evaluation, the panel update as trmm", d)
	}
	for _, k := range d {
		if !slices.Contains(Phases(), Phase(k)) || Phase(k) == "other" {
			t.Errorf("duration kind %s has phase %s", k, Phase(k))
		}
	}
}
