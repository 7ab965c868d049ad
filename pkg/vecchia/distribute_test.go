package vecchia

import (
	"math"
	mathbits "math/bits"
	"math/rand/v2"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/vecchia/embed"
	"github.com/exageostat/exageostat/pkg/vecchia/neighbors"
)

// TestDistribute checks that the plans Distribute prepares on 1, 3 and
// 8 in-process ranks (each rank its own regions) give
// bitwise the l, gradient, information and mean of the whole plan that
// Prepare makes on one process, for both stages (the coarse one from each
// set's 6 nearest), and that the ranks' parts hold the plan's block
// members once, each rank about its share of the points'. Each rank hands
// its own copy of the problem over (DistributeHanded) and overwrites its
// columns with NaN when released: the plans read none of them after.
func TestDistribute(t *testing.T) {
	g := Grouping{Region: 128, TaskWork: 2e5}
	pick := map[string]bool{"matern+tau2+mean": true, "bivariate+mean": true, "aniso+tau2+mean": true}
	for _, tc := range cases(1000, 29) {
		if !pick[tc.name] {
			continue
		}
		whole, err := Prepare(tc.p, tc.theta, Setup{M: 15, Workers: 1, Grouping: g})
		if err != nil {
			t.Fatal(err)
		}
		coarse, err := NewPlan(tc.p, int32s(whole.Perm), 6, cut(whole.Sets.Idx, 15, 6), g)
		if err != nil {
			t.Fatal(err)
		}
		want := []*Result{eval(t, whole.Plan, tc.theta, Want{Grad: true}, 1), eval(t, coarse, tc.theta, Want{Grad: true}, 1)}
		for _, size := range []int{1, 3, 8} {
			for stage, plan := range []*Plan{whole.Plan, coarse} {
				parts := make([]*Plan, size)
				res, errs := onRanksWith(t, nil, size, 1, [][]float64{tc.theta}, func(c comm.Comm) *Plan {
					p, released := cloneProblem(tc.p), 0
					f, cs, err := DistributeHanded(c, p, tc.theta, Setup{M: 15, Workers: 1, Grouping: g}, 6, func() {
						released++
						poison(p)
					})
					if released != 1 {
						t.Errorf("%s, %d ranks, rank %d: released %d times, want 1", tc.name, size, c.Rank(), released)
					}
					if err != nil {
						t.Errorf("%s, %d ranks, rank %d: %v", tc.name, size, c.Rank(), err)
						return nil
					}
					parts[c.Rank()] = []*Plan{f.Plan, cs.Plan}[stage]
					return parts[c.Rank()]
				})
				members := 0
				for r := range size {
					if errs[r][0] != nil {
						t.Fatalf("%s, %d ranks, rank %d, stage %d: %v", tc.name, size, r, stage, errs[r][0])
					}
					if !sameBits(res[r][0], want[stage]) {
						t.Errorf("%s, %d ranks, rank %d, stage %d: l %.17g, the whole plan on 1 rank %.17g (or the gradient, information, mean differ)",
							tc.name, size, r, stage, res[r][0].L, want[stage].L)
					}
					d := parts[r].part
					members += len(d.Idx)
					// At most twice the members of the rank's share of the points.
					mine, all := 0, 0
					for c, o := range regionOwners(plan.ChunkLocs, size) {
						all += plan.ChunkLocs[c]
						if o == r {
							mine += plan.ChunkLocs[c]
						}
					}
					if lim := 2 * len(plan.Blocks.Idx) * mine / all; size > 1 && len(d.Idx) > lim {
						t.Errorf("%s, %d ranks, rank %d, stage %d: %d block members of the plan's %d", tc.name, size, r, stage, len(d.Idx), len(plan.Blocks.Idx))
					}
				}
				if members != len(plan.Blocks.Idx) || parts[0].NumBlocks() != plan.NumBlocks() {
					t.Errorf("%s, %d ranks, stage %d: the parts hold %d block members and %d blocks, the plan %d and %d",
						tc.name, size, stage, members, parts[0].NumBlocks(), len(plan.Blocks.Idx), plan.NumBlocks())
				}
			}
		}
	}
}

// cloneProblem returns a copy of p with its own columns.
func cloneProblem(p likelihood.Problem) likelihood.Problem {
	p.Points = matern.Points{X: slices.Clone(p.Points.X), Y: slices.Clone(p.Points.Y), Z: slices.Clone(p.Points.Z), T: slices.Clone(p.Points.T)}
	p.Obs = slices.Clone(p.Obs)
	cov := make([][]float64, len(p.Covariates))
	for k, col := range p.Covariates {
		cov[k] = slices.Clone(col)
	}
	p.Covariates = cov
	return p
}

// poison overwrites p's columns with NaN.
func poison(p likelihood.Problem) {
	for _, col := range append([][]float64{p.Points.X, p.Points.Y, p.Points.Z, p.Points.T, p.Obs}, p.Covariates...) {
		for i := range col {
			col[i] = math.NaN()
		}
	}
}

// TestRankedGather checks that ranked.gather, on 3 in-process ranks each
// holding its share of the columns (ownShare), keeps on each rank, in the
// order of their ordered positions, the columns of its rows and of their
// sets' members (a map built here), and that at finds each ordered
// point's values, on a univariate and a bivariate (two points a
// location) problem.
func TestRankedGather(t *testing.T) {
	tests := []struct {
		name string
		per  int
		rows [][]int32 // each rank's
		sets [][]int32 // each rank's, stride 2, -1 none
	}{
		{"univariate", 1, [][]int32{{2, 5}, {1}, {6}}, [][]int32{{0, 1, 4, 0}, {0, -1}, {5, 3}}},
		{"bivariate", 2, [][]int32{{1, 6}, {}, {4}}, [][]int32{{0, -1, 3, 5}, {}, {0, 2}}},
	}
	perm := []int32{3, 0, 6, 1, 5, 2, 4} // ordered location k is location perm[k]
	for _, tc := range tests {
		n := tc.per * len(perm)
		pr := likelihood.Problem{Points: matern.Points{X: make([]float64, n), Y: make([]float64, n)}, Obs: make([]float64, n), Covariates: [][]float64{make([]float64, n)}}
		for i := range n {
			pr.Points.X[i], pr.Points.Y[i], pr.Obs[i], pr.Covariates[0][i] = float64(i), 100+float64(i), 200+float64(i), 300+float64(i)
		}
		size := len(tc.rows)
		g := comm.NewGroup(size)
		got := make([]*ranked, size)
		errs := make([]error, size)
		var wg sync.WaitGroup
		for rank := range size {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got[rank] = &ranked{c: g.Endpoint(rank), per: tc.per, rows: tc.rows[rank]}
				errs[rank] = got[rank].gather(ownShare(pr, tc.per, len(perm), size, rank), perm, tc.sets[rank], len(perm))
			}()
		}
		wg.Wait()
		for rank, r := range got {
			if errs[rank] != nil {
				t.Fatalf("%s, rank %d: %v", tc.name, rank, errs[rank])
			}
			want := map[int32]bool{}
			for _, q := range append(slices.Clone(tc.rows[rank]), tc.sets[rank]...) {
				if q >= 0 {
					want[q] = true
				}
			}
			if len(r.pr.Obs) != tc.per*len(want) || len(r.pr.Points.X) != tc.per*len(want) || r.pr.Points.Z != nil {
				t.Errorf("%s, rank %d: %d values and %d points kept (Z %v), want %d", tc.name, rank, len(r.pr.Obs), len(r.pr.Points.X), r.pr.Points.Z, tc.per*len(want))
			}
			for q := range want {
				for j := range tc.per {
					i := tc.per*int(perm[q]) + j // the problem's point
					k := r.at(int32(tc.per)*q + int32(j))
					if r.pr.Points.X[k] != float64(i) || r.pr.Points.Y[k] != 100+float64(i) || r.pr.Obs[k] != 200+float64(i) || r.pr.Covariates[0][k] != 300+float64(i) {
						t.Errorf("%s, rank %d: ordered point %d at %d holds x %g, want %d", tc.name, rank, int(q)*tc.per+j, k, r.pr.Points.X[k], i)
					}
				}
			}
		}
	}
}

// TestKeptIndex checks keptIndex.place against a count of the kept
// locations below each one, for sets across several 64-bit words.
func TestKeptIndex(t *testing.T) {
	tests := []struct {
		name string
		n    int
		kept []int32
	}{
		{"one word", 10, []int32{0, 3, 9}},
		{"words' edges", 200, []int32{0, 63, 64, 65, 127, 128, 199}},
		{"an empty word", 300, []int32{5, 190, 191, 299}},
	}
	for _, tc := range tests {
		x := keptIndex{bits: make([]uint64, (tc.n+63)/64)}
		for _, q := range tc.kept {
			x.bits[q/64] |= 1 << (q % 64)
		}
		x.before = make([]int32, len(x.bits))
		for w := 1; w < len(x.bits); w++ {
			x.before[w] = x.before[w-1] + int32(mathbits.OnesCount64(x.bits[w-1]))
		}
		if x.count() != len(tc.kept) {
			t.Errorf("%s: count %d, want %d", tc.name, x.count(), len(tc.kept))
		}
		for k, q := range tc.kept { // tc.kept increasing: k of them below q
			if got := x.place(q); got != k {
				t.Errorf("%s: place(%d) = %d, want %d", tc.name, q, got, k)
			}
		}
	}
}

// int32s converts an ordering.
func int32s(perm []int) []int32 {
	out := make([]int32, len(perm))
	for k, i := range perm {
		out[k] = int32(i)
	}
	return out
}

// cut returns flat sets of stride m cut to their k nearest.
func cut(sets []int32, m, k int) []int32 {
	out := make([]int32, 0, len(sets)/m*k)
	for i := 0; i < len(sets); i += m {
		out = append(out, sets[i:i+k]...)
	}
	return out
}

// TestJoinBlocks: blocks grouped in batches of regions, joined, are the
// blocks of all the regions at once: the offsets of the later batches'
// blocks and the first blocks of their regions follow the earlier ones'
// (written out by hand).
func TestJoinBlocks(t *testing.T) {
	a := &Blocks{Idx: []int32{^0, 1, ^1, ^2}, Start: []int64{0, 1, 3, 4}, Chunks: []int{0, 2, 3}}
	b := &Blocks{Idx: []int32{0, ^5, 3, ^6}, Start: []int64{0, 2, 4}, Chunks: []int{0, 2}}
	empty := &Blocks{Start: []int64{0}, Chunks: []int{0}}
	want := &Blocks{Idx: []int32{^0, 1, ^1, ^2, 0, ^5, 3, ^6}, Start: []int64{0, 1, 3, 4, 6, 8}, Chunks: []int{0, 2, 3, 5}}
	for _, tc := range []struct {
		name  string
		parts []*Blocks
		want  *Blocks
	}{
		{"one", []*Blocks{a}, a},
		{"two", []*Blocks{a, b}, want},
		{"with an empty batch", []*Blocks{a, empty, b}, want},
	} {
		if got := joinBlocks(tc.parts); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestConditioningInParts: the sets found in three calls are those of
// one search over every position (neighbors.Conditioning), row by row,
// for every position (rows nil), a scattered subset, rows in one part
// only, and none; 1500 points: the parts cut at positions 512 and 1024.
func TestConditioningInParts(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	c := embed.Coords{Dim: 2, V: make([]float64, 2*1500)}
	for i := range c.V {
		c.V[i] = r.Float64()
	}
	const m = 7
	whole, err := neighbors.Conditioning(c, m, 1)
	if err != nil {
		t.Fatal(err)
	}
	var some []int32
	for i := range int32(1500) {
		if r.IntN(3) == 0 {
			some = append(some, i)
		}
	}
	for _, tc := range []struct {
		name string
		rows []int32
	}{{"all", nil}, {"some", some}, {"late", []int32{1100, 1499}}, {"none", []int32{}}} {
		got, err := conditioningInParts(c, tc.rows, m, 2)
		if err != nil {
			t.Fatal(err)
		}
		rows := tc.rows
		if rows == nil {
			rows = make([]int32, 1500)
			for i := range rows {
				rows[i] = int32(i)
			}
		}
		if got.N != len(rows) || got.M != m || len(got.Idx) != len(rows)*m {
			t.Fatalf("%s: %d rows of %d (%d values), want %d of %d", tc.name, got.N, got.M, len(got.Idx), len(rows), m)
		}
		for k, i := range rows {
			if !slices.Equal(got.Idx[k*m:(k+1)*m], whole.Idx[int(i)*m:int(i+1)*m]) {
				t.Errorf("%s: position %d's set %v, the whole search's %v", tc.name, i, got.Idx[k*m:(k+1)*m], whole.Idx[int(i)*m:int(i+1)*m])
			}
		}
	}
}
