package trace

import (
	"math"
	"testing"
)

// TestUtilizationPlanted: hand-built records with known busy times. Two
// workers over [0, 10 s]: worker 0 busy [0, 4] and [5, 10], worker 1 busy
// [2, 9.5]; messages, frees and memory samples do not count. Whole:
// (4 + 5 + 7.5)/(2 x 10) = 0.825; first 90 % ([0, 9]): (4 + 4 + 7)/(2 x 9)
// = 15/18.
func TestUtilizationPlanted(t *testing.T) {
	const s = int64(1e9)
	ev := []Event{
		{Kind: "dcmg", Worker: 0, Start: 0, End: 4 * s},
		{Kind: "potrf", Worker: 0, Start: 5 * s, End: 10 * s},
		{Kind: "gemm", Worker: 1, Start: 2 * s, End: 9*s + s/2},
		{Kind: "send", Worker: 2, Start: 0, End: 10 * s},
		{Kind: "recv", Worker: 2, Start: 0, End: 10 * s},
		{Kind: "free", Worker: 1, Start: 0, End: 1 * s},
		{Kind: MemoryKind, Worker: -1, Start: 3 * s, End: 3 * s},
		{Kind: "dcmg", Worker: -1, Start: 0, End: 10 * s}, // no worker: not counted
	}
	for _, c := range []struct {
		name           string
		workers        int
		t0, t1         int64
		whole, first90 float64
	}{
		{"two workers", 2, 0, 10 * s, 16.5 / 20, 15.0 / 18},
		{"three workers", 3, 0, 10 * s, 16.5 / 30, 15.0 / 27},
		// Window [2, 10]: busy (2 + 5) + 7.5 = 14.5 of 16; first 90 %
		// [2, 9.2]: (2 + 4.2) + 7.2 = 13.4 of 14.4.
		{"late window", 2, 2 * s, 10 * s, 14.5 / 16, 13.4 / 14.4},
		{"no workers", 0, 0, 10 * s, 0, 0},
		{"empty window", 2, 5 * s, 5 * s, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			u := UtilizationOf(ev, c.workers, c.t0, c.t1)
			if math.Abs(u.Whole-c.whole) > 1e-12 || math.Abs(u.First90-c.first90) > 1e-12 {
				t.Errorf("got %+v, want whole %g first90 %g", u, c.whole, c.first90)
			}
		})
	}
}
