package distribution

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// spread measures how evenly node i's tiles of d are spread over an nt x nt
// tile matrix: the largest gap, over every prefix of the tiles in generation
// order (anti-diagonal by anti-diagonal) and over every prefix of whole
// columns (left to right, the factorisation order), between the tiles of
// node i in the prefix and its proportional share k share_i / T of the k
// tiles of the prefix. A cyclic distribution keeps it within a fraction of
// an anti-diagonal or a column, that is below nt (the 1D-1D one stays below
// nt/2); tiles lumped in one corner put it at a good part of the lump.
func spread(d Distribution, nt int, share []int) float64 {
	t := float64(Tiles(nt))
	cnt := make([]int, d.Nodes())
	worst := 0.0
	k := 0
	check := func() {
		for i, c := range cnt {
			worst = max(worst, math.Abs(float64(c)-float64(k)*float64(share[i])/t))
		}
	}
	forEachAntiDiagonal(nt, func(m, n int) {
		cnt[d.Owner(m, n)]++
		k++
		check()
	})
	clear(cnt)
	k = 0
	for n := 0; n < nt; n++ {
		for m := n; m < nt; m++ {
			cnt[d.Owner(m, n)]++
			k++
		}
		check()
	}
	return worst
}

// firstTiles is the naive way to reach the targets with the fewest moves:
// each giver gives its first tiles in generation order, to the receivers in
// turn. Counts and moves are as good as Generation's; the spread is not.
func firstTiles(fact Distribution, nt int, target []int) Distribution {
	e := Tabulate(fact, nt)
	surplus := Counts(fact, nt)
	for i := range surplus {
		surplus[i] -= target[i]
	}
	forEachAntiDiagonal(nt, func(m, n int) {
		i := e.owner[m][n]
		if surplus[i] <= 0 {
			return
		}
		r := slices.Index(surplus, slices.Min(surplus)) // the neediest
		e.owner[m][n] = r
		surplus[r]++
		surplus[i]--
	})
	return e
}

func TestGenerationPaperExample(t *testing.T) {
	// Section 4.4: 50 x 50 tiles, factorisation 1D-1D with 60, 60, 565, 590
	// tiles, generation [318, 319, 319, 319]: the first two nodes receive
	// 517 tiles from the last two, the minimum.
	const nt = 50
	fact, err := NewOneDOneD(nt, []float64{60, 60, 565, 590})
	if err != nil {
		t.Fatal(err)
	}
	if c := Counts(fact, nt); !slices.Equal(c, []int{60, 60, 565, 590}) {
		t.Fatalf("factorisation counts %v", c)
	}
	target := []int{318, 319, 319, 319}
	gen, err := Generation(fact, nt, target)
	if err != nil {
		t.Fatal(err)
	}
	if c := Counts(gen, nt); !slices.Equal(c, target) {
		t.Fatalf("generation counts %v, want %v", c, target)
	}
	if m := Moves(fact, gen, nt); m != 517 || MinMoves(fact, nt, target) != 517 {
		t.Fatalf("moves %d (minimum %d), want 517", m, MinMoves(fact, nt, target))
	}
	if s := spread(gen, nt, target); s > nt/4 {
		t.Errorf("spread %.1f tiles, want at most %d", s, nt/4)
	}
	// The naive minimal scheme (each giver's first tiles) lumps the moved
	// tiles in the top-left corner: the spread criterion tells them apart.
	naive := firstTiles(fact, nt, target)
	if c, m := Counts(naive, nt), Moves(fact, naive, nt); !slices.Equal(c, target) || m != 517 {
		t.Fatalf("naive: counts %v, moves %d", c, m)
	}
	if s := spread(naive, nt, target); s < 2*nt {
		t.Errorf("naive spread %.1f tiles: expected a lump above %d", s, 2*nt)
	}
	// Tiles stay with their factorisation owner unless that one gives.
	for m := 0; m < nt; m++ {
		for n := 0; n <= m; n++ {
			if f, g := fact.Owner(m, n), gen.Owner(m, n); f != g && (f < 2 || g >= 2) {
				t.Fatalf("tile (%d, %d) moves from node %d to node %d", m, n, f, g)
			}
		}
	}
	if gen.Name() != "generation from 1d1d" || gen.Nodes() != 4 || gen.NT() != nt {
		t.Fatalf("name %q, nodes %d, nt %d", gen.Name(), gen.Nodes(), gen.NT())
	}
}

func TestGenerationByHand(t *testing.T) {
	// Owner n mod 2 on 3 x 3 tiles:   0     counts [4, 2], target [2, 4]:
	//                                  0 1   node 0 gives 2 of its 4 tiles,
	//                                  0 1 0 its 1st and 3rd in generation
	// order, (0,0) and (2,0) (thresholds k >= (2j+1) 4 / 4 = 1, 3).
	gen, err := Generation(BlockCyclic{P: 1, Q: 2}, 3, []int{2, 4})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]int{{1}, {0, 1}, {1, 1, 0}}
	if got := gen.Table(); !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("table %v, want %v", got, want)
	}
}

func TestGenerationRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	for it := 0; it < 300; it++ {
		nt := 1 + r.IntN(70)
		nodes := 1 + r.IntN(8)
		powers := make([]float64, nodes)
		weights := make([]float64, nodes)
		for i := range powers {
			// Skewed factorisation powers (GPU nodes), milder targets.
			powers[i] = 0.05 + 10*r.Float64()*r.Float64()
			weights[i] = 0.05 + 10*r.Float64()
		}
		var fact Distribution
		if r.IntN(4) == 0 {
			p, q := SquareGrid(nodes)
			fact = BlockCyclic{P: p, Q: q}
		} else {
			d, err := NewOneDOneD(nt, powers)
			if err != nil {
				t.Fatal(err)
			}
			fact = d
		}
		target := Quotas(weights, nt)
		gen, err := Generation(fact, nt, target)
		if err != nil {
			t.Fatal(err)
		}
		if c := Counts(gen, nt); !slices.Equal(c, target) {
			t.Fatalf("nt %d, %s %v: counts %v, want %v", nt, fact.Name(), powers, c, target)
		}
		if m, want := Moves(fact, gen, nt), MinMoves(fact, nt, target); m != want {
			t.Fatalf("nt %d, %s %v, target %v: %d moves, minimum %d", nt, fact.Name(), powers, target, m, want)
		}
		if s := spread(gen, nt, target); s > float64(nt) {
			t.Errorf("nt %d, %s %v, target %v: spread %.1f tiles, above nt", nt, fact.Name(), powers, target, s)
		}
	}
}

func TestGenerationSameTargets(t *testing.T) {
	// Targets equal to the factorisation counts: nothing moves.
	fact, err := NewOneDOneD(20, []float64{1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	gen, err := Generation(fact, 20, Counts(fact, 20))
	if err != nil {
		t.Fatal(err)
	}
	if m := Moves(fact, gen, 20); m != 0 {
		t.Fatalf("%d moves, want 0", m)
	}
}

func TestGenerationErrors(t *testing.T) {
	bc := BlockCyclic{P: 1, Q: 2}
	cases := []struct {
		name   string
		nt     int
		target []int
		want   string
	}{
		{"nt", 0, []int{0, 0}, "at least one tile"},
		{"count", 3, []int{6}, "need 2 generation targets"},
		{"negative", 3, []int{7, -1}, "node 1 is negative"},
		{"sum", 3, []int{3, 2}, "sum to 5, want the 6 lower tiles"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Generation(bc, c.nt, c.target)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want %q", err, c.want)
			}
		})
	}
}
