package main

import "testing"

// TestBetterCore: a core type older than the CPU's vector extensions is
// raised to SkylakeX (AVX-512) or Haswell (AVX2 + FMA); a current one, or
// a CPU with neither, is left as OpenBLAS picked it.
func TestBetterCore(t *testing.T) {
	avx512 := cpuVector{avx512: true, avx2: true}
	avx2 := cpuVector{avx2: true}
	for _, c := range []struct {
		core string
		v    cpuVector
		want string
	}{
		{"Prescott", avx512, "SkylakeX"}, // the H100 machines' Xeon under OpenBLAS 0.3.21
		{"PRESCOTT", avx2, "Haswell"},
		{"Nehalem", avx512, "SkylakeX"},
		{"Sandybridge", avx2, "Haswell"},
		{"Prescott", cpuVector{}, ""},
		{"SkylakeX", avx512, ""},
		{"Cooperlake", avx512, ""},
		{"Haswell", avx512, ""}, // a user's choice or OpenBLAS's: fixCoretype's business
		{"Zen", avx2, ""},
		{"gonum", avx512, ""},
	} {
		if got := betterCore(c.core, c.v); got != c.want {
			t.Errorf("betterCore(%q, %+v) = %q, want %q", c.core, c.v, got, c.want)
		}
	}
}
