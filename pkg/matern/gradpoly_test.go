package matern

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestPolyRowBitwise checks that polyRowCGo gives bitwise polyRowGo's C
// and that polyRowGo's values are
// the polynomials sum_k a_k t^k summed term by term in extended
// precision (float64 pairs) to 8 ulps of the sum of |a_k t^k|, for two
// and three functions per piece and every t in [-1, 1].
func TestPolyRowBitwise(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 1))
	const pieces, n = 7, 301
	for _, nf := range []int{2, 3} {
		coef := make([]float64, pieces*nf*chebN)
		for i := range coef {
			coef[i] = rng.NormFloat64() * math.Exp2(float64(-i%chebN))
		}
		off, tt := make([]int32, n), make([]float64, n)
		for i := range off {
			off[i] = int32(rng.IntN(pieces) * nf * chebN)
			tt[i] = 2*rng.Float64() - 1
		}
		tt[0], tt[1], tt[2] = -1, 0, 1
		var got, want [3][]float64
		for f := range 3 {
			got[f], want[f] = make([]float64, n), make([]float64, n)
		}
		dn, dw := got[2], want[2]
		if nf == 2 {
			dn, dw = nil, nil
		}
		polyRowGo(coef, off, tt, got[0], got[1], dn)
		polyRowGo(coef, off, tt, want[0], want[1], dw)
		onlyC := make([]float64, n)
		polyRowCGo(coef, off, tt, onlyC)
		for i := range n {
			if math.Float64bits(onlyC[i]) != math.Float64bits(want[0][i]) {
				t.Fatalf("nf %d entry %d (t %v): polyRowCGo %v, polyRowGo %v", nf, i, tt[i], onlyC[i], want[0][i])
			}
		}
		for f := 0; f < nf; f++ {
			for i := range n {
				if math.Float64bits(got[f][i]) != math.Float64bits(want[f][i]) {
					t.Fatalf("nf %d function %d entry %d (t %v): polyRowGo %v, again %v", nf, f, i, tt[i], got[f][i], want[f][i])
				}
				var a [chebN]float64
				for k := range a {
					a[k] = coef[int(off[i])+coefIndex(f, k)]
				}
				ref, abs := sumPowers(a[:], tt[i])
				if d := math.Abs(got[f][i] - ref); d > 8*0x1p-52*abs {
					t.Errorf("nf %d function %d t %v: %v, exact %v (error %.2g of sum |a_k t^k| %.3g)", nf, f, tt[i], got[f][i], ref, d/abs, abs)
				}
			}
		}
	}
}

// sumPowers returns sum_k a_k t^k, each term and the running sum carried
// as an unevaluated pair of float64 (error-free transformations), and
// the sum of |a_k t^k|.
func sumPowers(a []float64, t float64) (sum, abs float64) {
	var hi, lo float64
	pw, pwLo := 1.0, 0.0 // t^k as a pair
	for _, ak := range a {
		p := ak * pw
		pe := math.FMA(ak, pw, -p) + ak*pwLo
		s := hi + p
		bb := s - hi
		e := (hi - (s - bb)) + (p - bb)
		hi, lo = s, lo+e+pe
		abs += math.Abs(p)
		q := pw * t
		pwLo = math.FMA(pw, t, -q) + pwLo*t
		pw = q
	}
	return hi + lo, abs
}

// TestGradRowDirect checks Row against the direct evaluation (Bessel
// functions and the difference in nu, gradFuncs.at) at distances that
// cross the chunks of Row (lengths 1 to 200, zeros and distances beyond
// the interpolated range among them): C to 1e-13, dC/dbeta and dC/dnu to
// 1e-11 of C's scale.
func TestGradRowDirect(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 2))
	for _, nu := range []float64{0.37, 0.8, 1.3, 2.7} {
		th := Theta{Sigma2: 1.7, Beta: 0.08, Nu: nu}
		g, err := NewGrad(th, 1e-4, 1.5, true)
		if err != nil {
			t.Fatal(err)
		}
		f := newGradFuncs(nu, true)
		for _, n := range []int{1, 63, 64, 65, 200} {
			r := make([]float64, n)
			for i := range r {
				r[i] = 1e-4 + 1.5*rng.Float64()*rng.Float64()
			}
			r[0] = 0
			if n > 64 {
				r[64], r[n-1] = 3, 1e-9 // beyond rmax, below rmin: the direct path
			}
			c, db, dn := make([]float64, n), make([]float64, n), make([]float64, n)
			g.Row(r, c, db, dn)
			checkCovRow(t, g, r, c)
			for i, ri := range r {
				rho, gx, dv := 1.0, 0.0, 0.0
				if ri != 0 {
					rho, gx, dv = f.at(ri / th.Beta)
				}
				scale := th.Sigma2 * math.Max(rho, 1e-200)
				errs := [3]float64{
					math.Abs(c[i]-th.Sigma2*rho) / scale,
					math.Abs(db[i]-th.Sigma2*gx/th.Beta) / (scale / th.Beta * math.Max(1, ri/th.Beta)),
					math.Abs(dn[i]-th.Sigma2*dv) / (scale * math.Max(1, math.Abs(math.Log(ri/th.Beta)))),
				}
				if errs[0] > 1e-13 || errs[1] > 1e-11 || errs[2] > 1e-11 {
					t.Errorf("nu %g n %d r %g: relative errors C %.2g, dC/dbeta %.2g, dC/dnu %.2g", nu, n, ri, errs[0], errs[1], errs[2])
				}
			}
		}
	}
}

// checkCovRow checks that g.CovRow, in place, gives bitwise Row's C.
func checkCovRow(t *testing.T, g *Grad, r, want []float64) {
	t.Helper()
	got := append([]float64(nil), r...)
	g.CovRow(got, got)
	for i := range r {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Fatalf("r %v: CovRow %v, Row's C %v", r[i], got[i], want[i])
		}
	}
}

// TestCovRowClosed checks CovRow against Row's C for the evaluators
// without the derivative in nu, closed forms (nu = 0.5, 1.5, 2.5) and
// interpolated, over lengths across Row's chunks, 0, NaN and distances
// beyond the interpolated range among them.
func TestCovRowClosed(t *testing.T) {
	for _, nu := range []float64{0.5, 0.8, 1.5, 2.5} {
		g, err := NewGrad(Theta{Sigma2: 1.3, Beta: 0.1, Nu: nu}, 1e-4, 1.5, false)
		if err != nil {
			t.Fatal(err)
		}
		r := make([]float64, 150)
		for i := range r {
			r[i] = 1.5 * float64(i) / 140 // the last ones beyond rmax
		}
		r[5] = math.NaN()
		c, db := make([]float64, len(r)), make([]float64, len(r))
		g.Row(r, c, db, nil)
		checkCovRow(t, g, r, c)
	}
}

// TestRowFused checks rowVec (locate and the polynomials in one vector
// pass where the CPU has it) bitwise against rowGo (locate, then
// polyRowGo) on chunks of every length up to rowChunk, C alone, with
// dC/dbeta and with dC/dnu, distances inside the pieces' range and
// outside (0, NaN, beyond rmax, below rmin) among them: the same values
// and the same list of entries left to the direct evaluation, their x
// in c; both ways of locating where the CPU has AVX-512 (the octaves'
// table in registers, 23 octaves, and lane by lane).
func TestRowFused(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 5))
	for _, withNu := range []bool{false, true} {
		g8, err := NewGrad(Theta{Sigma2: 1.3, Beta: 0.1, Nu: 0.8}, 1e-6, 1.5, withNu)
		if err != nil {
			t.Fatal(err)
		}
		if g8.oct32 == nil || len(g8.octs) <= 16 {
			t.Fatalf("%d octaves: want 17 to 32", len(g8.octs))
		}
		g4 := *g8
		g4.oct32 = nil
		for k := 1; k <= 2*rowChunk; k++ {
			g, n := g8, k
			if k > rowChunk {
				g, n = &g4, k-rowChunk
			}
			r := make([]float64, n)
			for i := range r {
				r[i] = 1e-3 + 1.4*rng.Float64()
				if i%2 == 1 { // log-uniform: every octave of the pieces
					r[i] = 1e-6 * math.Pow(1.4e6, rng.Float64())
				}
			}
			for _, odd := range []float64{0, math.NaN(), 2, 1e-7} {
				r[rng.IntN(n)] = odd
			}
			for nf := 1; nf <= 3; nf++ {
				if nf == 3 && !withNu {
					continue
				}
				var want, got, pad [3][]float64
				for f := range 3 {
					if f < nf { // got[f] a view of pad[f]: the 4 entries after it must stay -1
						want[f], pad[f] = make([]float64, n), make([]float64, n+4)
						got[f] = pad[f][:n]
						copy(pad[f][n:], []float64{-1, -1, -1, -1})
					}
				}
				var sw, sg [rowChunk]uint8
				nw := g.rowGo(r, want[0], want[1], want[2], &sw)
				ng, ok := g.rowVec(r, got[0], got[1], got[2], &sg, n, 0)
				if !ok {
					continue // no vector code here: Row runs rowGo
				}
				if ng != nw || string(sg[:ng]) != string(sw[:nw]) {
					t.Fatalf("n %d nf %d: rowVec lists %v, rowGo %v", n, nf, sg[:ng], sw[:nw])
				}
				if nf == 1 { // in place, as CovRow(col, col)
					in := append([]float64(nil), r...)
					g.rowVec(in, in, nil, nil, &sg, n, 0)
					for i := range n {
						if math.Float64bits(in[i]) != math.Float64bits(want[0][i]) {
							t.Fatalf("n %d r %v: rowVec in place %v, rowGo %v", n, r[i], in[i], want[0][i])
						}
					}
				}
				for f := range nf {
					if tail := pad[f][n:]; tail[0] != -1 || tail[1] != -1 || tail[2] != -1 || tail[3] != -1 {
						t.Fatalf("n %d nf %d: rowVec wrote past function %d's entries: %v", n, nf, f, tail)
					}
				}
				isSlow := make([]bool, n)
				for _, i := range sw[:nw] {
					isSlow[i] = true
				}
				for f := range nf {
					for i := range n {
						if f > 0 && isSlow[i] {
							continue // Row sets these (the derivatives of the direct evaluation)
						}
						if math.Float64bits(got[f][i]) != math.Float64bits(want[f][i]) {
							t.Fatalf("n %d nf %d function %d r %v: rowVec %v, rowGo %v", n, nf, f, r[i], got[f][i], want[f][i])
						}
					}
				}
			}
		}
	}
}

// TestCovRowChunks checks CovRow bitwise against Row's C (a different
// code path where the CPU has AVX-512: covRowVec's sixteen-piece window,
// the entries below it redone, chunks of covChunk) over lengths across
// the chunks, in place and not, with distances log-uniform over every
// octave (many below the window) and outside the pieces' range (0, NaN,
// beyond rmax, below rmin), and that nothing past the entries is written.
func TestCovRowChunks(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 7))
	g, err := NewGrad(Theta{Sigma2: 1.3, Beta: 0.1, Nu: 0.8}, 1e-6, 1.5, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 7, 8, 9, 255, 256, 257, 700} {
		r := make([]float64, n)
		for i := range r {
			r[i] = 0.05 + 0.3*rng.Float64() // mostly within a factor 256 (the window)
			if i%5 == 1 {
				r[i] = 1e-6 * math.Pow(1.4e6, rng.Float64())
			}
		}
		for _, odd := range []float64{0, math.NaN(), 2, 1e-7} {
			r[rng.IntN(n)] = odd
		}
		want, db := make([]float64, n), make([]float64, n)
		g.Row(r, want, db, nil)
		pad := make([]float64, n+8)
		for i := range pad[n:] {
			pad[n+i] = -1
		}
		got := pad[:n]
		g.CovRow(r, got)
		in := append([]float64(nil), r...)
		g.CovRow(in, in)
		for i := range n {
			if math.Float64bits(got[i]) != math.Float64bits(want[i]) || math.Float64bits(in[i]) != math.Float64bits(want[i]) {
				t.Fatalf("n %d r %v: CovRow %v, in place %v, Row's C %v", n, r[i], got[i], in[i], want[i])
			}
		}
		for _, v := range pad[n:] {
			if v != -1 {
				t.Fatalf("n %d: CovRow wrote past the entries: %v", n, pad[n:])
			}
		}
	}
}

// TestRowSquared checks RowSquared and CovRowSquared bitwise against
// math.Sqrt then Row's values (and the roots left in place), with the
// square roots in the vector code (where the CPU has it) and without, for
// interpolated functions and a closed form,
// both locates, with and without the derivatives, lengths across
// covRowAVX512's chunks (the next chunk's roots taken a pass ahead), in
// place and not, with many entries outside the pieces' range (0, NaN,
// beyond rmax, below rmin: its lists of 16 overflow, so calls stop short)
// and some below covRowAVX512's window.
func TestRowSquared(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 11))
	for _, ev := range []struct {
		nu     float64
		withNu bool
	}{{0.8, false}, {0.8, true}, {1.5, false}} { // nu = 1.5 without dC/dnu: the closed form
		withNu := ev.withNu
		base, err := NewGrad(Theta{Sigma2: 1.3, Beta: 0.1, Nu: ev.nu}, 1e-6, 1.5, withNu)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			vec, oct32 bool
			odd        int // every odd-th entry outside the range (0: four of them)
		}{{true, true, 0}, {true, false, 0}, {false, true, 0}, {true, true, 7}, {true, true, 2}} {
			g := *base
			g.sqrtInVec = tc.vec && hasAVX512 // whatever the CPU's choice (sqrtInVec)
			if !tc.oct32 {
				g.oct32 = nil
			}
			for _, n := range []int{1, 3, 8, 9, 63, 64, 65, 255, 256, 257, 511, 512, 700, 1100} {
				r := make([]float64, n)
				for i := range r {
					r[i] = 0.05 + 0.3*rng.Float64()
					if i%5 == 1 {
						r[i] = 1e-6 * math.Pow(1.4e6, rng.Float64())
					}
					if tc.odd > 0 && i%tc.odd == 0 {
						r[i] = []float64{0, math.NaN(), 2, 1e-7}[i/tc.odd%4]
					}
				}
				for _, odd := range []float64{0, math.NaN(), 2, 1e-7} {
					r[rng.IntN(n)] = odd
				}
				r2 := make([]float64, n)
				for i, v := range r {
					r2[i] = v * v
				}
				for _, nf := range []int{1, 2 + b2i(withNu)} { // C alone, or all the evaluator's functions
					rootsOf := func(v []float64) []float64 {
						w := make([]float64, len(v))
						for i, x := range v {
							w[i] = math.Sqrt(x)
						}
						return w
					}
					var want, got [3][]float64
					for f := range nf {
						want[f], got[f] = make([]float64, n), make([]float64, n)
					}
					roots := rootsOf(r2)
					in := append([]float64(nil), r2...)
					if nf == 1 {
						g.CovRow(roots, want[0])
						g.CovRowSquared(in, got[0])
					} else {
						g.Row(roots, want[0], want[1], want[2])
						g.RowSquared(in, got[0], got[1], got[2])
					}
					for i := range n {
						if math.Float64bits(in[i]) != math.Float64bits(roots[i]) {
							t.Fatalf("%+v n %d nf %d: r[%d] %v, want the root %v", tc, n, nf, i, in[i], roots[i])
						}
						for f := range nf {
							if math.Float64bits(got[f][i]) != math.Float64bits(want[f][i]) {
								t.Fatalf("%+v n %d nf %d function %d r %v: %v, want %v", tc, n, nf, f, roots[i], got[f][i], want[f][i])
							}
						}
					}
					if nf == 1 { // in place, as fillPacked calls it
						in = append(in[:0], r2...)
						g.CovRowSquared(in, in)
						for i := range n {
							if math.Float64bits(in[i]) != math.Float64bits(want[0][i]) {
								t.Fatalf("%+v n %d: in place %v, want %v", tc, n, in[i], want[0][i])
							}
						}
					}
				}
			}
		}
	}
}
