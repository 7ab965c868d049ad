package lp

import (
	"fmt"
	"math"
	"runtime"

	"github.com/lukpank/go-glpk/glpk"
)

// Result is the solution of the linear program.
type Result struct {
	// NT is the number of tile rows; the steps are s = 0 ... NT-1.
	NT int
	// Makespan is F_{NT-1}, the end of the last factorisation step: the
	// model's (ideal) time of generation plus factorisation.
	Makespan float64
	// Objective is the minimised sum_s (G_s + F_s) of equation (12).
	Objective float64
	// G[s] and F[s] are the ends of generation and factorisation step s.
	G, F []float64
	// Groups holds what each input group does, in input order.
	Groups []GroupResult
}

// GroupResult is one group's part of the solution.
type GroupResult struct {
	// Name and Nodes are the group's.
	Name  string
	Nodes int
	// Tasks[k][t] = sum_s alpha(s, t, r) for r the group's workers of kind
	// k: how many tasks of type t they run (rational, as the LP splits
	// tasks).
	Tasks [NumResources][NumTasks]float64
	// Busy[k] = sum_{s, t} alpha(s, t, r) w(t, r): how long the group's
	// workers of kind k are busy, all of them together (the work divided by
	// their number).
	Busy [NumResources]float64
	// GenTiles = sum_k Tasks[k][dcmg], the tiles the group generates, and
	// GenShare = GenTiles / T its share of the T = NT(NT+1)/2 tiles: the
	// group's power for the generation distribution (GenTiles / Nodes
	// tiles per node, the targets of distribution.Generation).
	GenTiles, GenShare float64
	// FactShare is the group's share of the factorisation flops,
	//
	//	sum_{k, t != dcmg} Flops(t) Tasks[k][t] / sum_{t != dcmg} Flops(t) Q_t
	//
	// with Q_t the tasks of type t in all: its power for the factorisation
	// distribution. The weights are flops (gemm 2, trsm and syrk 1, potrf
	// 1/3 in nb^3), not durations, since a distribution shares tiles, hence
	// flops, and durations differ between the resources that run them.
	FactShare float64
}

// Solve builds and solves the linear program of equations (12)-(18) (see
// the package documentation) for an nt x nt tile matrix on the given groups
// with GLPK's simplex. It locks its goroutine to its OS thread while GLPK
// runs, as GLPK keeps per-thread state; concurrent calls are safe.
func Solve(nt int, groups []Group, opt Options) (*Result, error) {
	rs, err := resources(nt, groups, opt)
	if err != nil {
		return nil, err
	}
	q := TaskCounts(nt)
	ns, nr := nt, len(rs)

	// Columns, 1-based: G_s = 1 + s, F_s = 1 + ns + s, then alpha(s, t, r)
	// for Q(s, t) > 0 and w(t, r) finite.
	gCol := func(s int) int32 { return int32(1 + s) }
	fCol := func(s int) int32 { return int32(1 + ns + s) }
	ncols := 2 * ns
	alpha := make([][NumTasks][]int32, ns) // alpha[s][t][r], 0: no variable
	for s := range alpha {
		for t := Task(0); t < NumTasks; t++ {
			alpha[s][t] = make([]int32, nr)
			if q[s][t] == 0 {
				continue
			}
			for ri, r := range rs {
				if r.w[t] > 0 {
					ncols++
					alpha[s][t][ri] = int32(ncols)
				}
			}
		}
	}

	// Rows: the constraint matrix as triplets (ia[0], ja[0], ar[0] unused).
	type bound struct {
		kind   glpk.BndsType
		lo, up float64
	}
	var rows []bound
	ia, ja, ar := []int32{0}, []int32{0}, []float64{0}
	row := func(b bound, cols []int32, vals []float64) {
		rows = append(rows, b)
		for k, c := range cols {
			ia, ja, ar = append(ia, int32(len(rows))), append(ja, c), append(ar, vals[k])
		}
	}
	le0 := bound{glpk.UP, 0, 0} // ... <= 0
	var cols []int32
	var vals []float64
	// addFact appends sum_{t != dcmg} alpha(s, t, r) w(t, r).
	addFact := func(s, ri int) {
		for t := POTRF; t < NumTasks; t++ {
			if c := alpha[s][t][ri]; c != 0 {
				cols, vals = append(cols, c), append(vals, rs[ri].w[t])
			}
		}
	}

	// (13) for all t, s: sum_r alpha(s, t, r) = Q(s, t).
	for s := 0; s < ns; s++ {
		for t := Task(0); t < NumTasks; t++ {
			if q[s][t] == 0 {
				continue
			}
			cols, vals = cols[:0], vals[:0]
			for _, c := range alpha[s][t] {
				if c != 0 {
					cols, vals = append(cols, c), append(vals, 1)
				}
			}
			row(bound{glpk.FX, float64(q[s][t]), float64(q[s][t])}, cols, vals)
		}
	}
	for ri, r := range rs {
		for s := 0; s < ns; s++ {
			// (14) for all s > 0, r: G_{s-1} + alpha(s, dcmg, r) w(dcmg, r) <= G_s.
			if s > 0 {
				cols, vals = append(cols[:0], gCol(s-1), gCol(s)), append(vals[:0], 1, -1)
				if c := alpha[s][DCMG][ri]; c != 0 {
					cols, vals = append(cols, c), append(vals, r.w[DCMG])
				}
				row(le0, cols, vals)
			}
			// (15) for all s, r: G_s + sum_{t != dcmg} alpha(s, t, r) w(t, r) <= F_s.
			cols, vals = append(cols[:0], gCol(s), fCol(s)), append(vals[:0], 1, -1)
			addFact(s, ri)
			row(le0, cols, vals)
			// (16) for all s > 0, r: F_{s-1} + sum_{t != dcmg} alpha(s, t, r) w(t, r) <= F_s.
			if s > 0 {
				cols, vals = append(cols[:0], fCol(s-1), fCol(s)), append(vals[:0], 1, -1)
				addFact(s, ri)
				row(le0, cols, vals)
			}
			// (17) for all r, s: sum_{z <= s, t} alpha(z, t, r) w(t, r) <= F_s.
			cols, vals = append(cols[:0], fCol(s)), append(vals[:0], -1)
			for z := 0; z <= s; z++ {
				for t := Task(0); t < NumTasks; t++ {
					if c := alpha[z][t][ri]; c != 0 {
						cols, vals = append(cols, c), append(vals, r.w[t])
					}
				}
			}
			row(le0, cols, vals)
		}
	}
	// (18) min_r d(dcmg, r) <= G_0: a lower bound on the column G_0.
	g0 := math.Inf(1)
	for _, r := range rs {
		if r.w[DCMG] > 0 {
			gr := groups[r.group]
			g0 = min(g0, gr.Durations[r.kind][DCMG])
		}
	}

	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	p := glpk.New()
	defer p.Delete()
	p.SetObjDir(glpk.MIN)
	p.AddCols(ncols)
	for j := 1; j <= ncols; j++ {
		p.SetColBnds(j, glpk.LO, 0, 0) // all variables >= 0
	}
	p.SetColBnds(int(gCol(0)), glpk.LO, g0, 0) // (18)
	// (12) minimise sum_s (G_s + F_s).
	for s := 0; s < ns; s++ {
		p.SetObjCoef(int(gCol(s)), 1)
		p.SetObjCoef(int(fCol(s)), 1)
	}
	p.AddRows(len(rows))
	for i, b := range rows {
		p.SetRowBnds(i+1, b.kind, b.lo, b.up)
	}
	p.LoadMatrix(ia, ja, ar)
	parm := glpk.NewSmcp()
	parm.SetMsgLev(glpk.MSG_OFF)
	if err := p.Simplex(parm); err != nil {
		return nil, fmt.Errorf("lp: GLPK simplex: %v", err)
	}
	if st := p.Status(); st != glpk.OPT {
		return nil, fmt.Errorf("lp: GLPK found no optimal solution (status %d)", int(st))
	}

	res := &Result{NT: nt, Objective: p.ObjVal(), G: make([]float64, ns), F: make([]float64, ns), Groups: make([]GroupResult, len(groups))}
	val := func(c int32) float64 { return max(0, p.ColPrim(int(c))) }
	for s := 0; s < ns; s++ {
		res.G[s], res.F[s] = val(gCol(s)), val(fCol(s))
	}
	res.Makespan = res.F[ns-1]
	for g, gr := range groups {
		res.Groups[g].Name, res.Groups[g].Nodes = gr.Name, gr.Nodes
	}
	var flops float64
	for s := 0; s < ns; s++ {
		for t := Task(0); t < NumTasks; t++ {
			flops += t.Flops() * float64(q[s][t])
			for ri, r := range rs {
				if c := alpha[s][t][ri]; c != 0 {
					a := val(c)
					gr := &res.Groups[r.group]
					gr.Tasks[r.kind][t] += a
					gr.Busy[r.kind] += a * r.w[t]
				}
			}
		}
	}
	tiles := float64(nt * (nt + 1) / 2)
	for g := range res.Groups {
		gr := &res.Groups[g]
		var f float64
		for k := Resource(0); k < NumResources; k++ {
			gr.GenTiles += gr.Tasks[k][DCMG]
			for t := POTRF; t < NumTasks; t++ {
				f += t.Flops() * gr.Tasks[k][t]
			}
		}
		gr.GenShare = gr.GenTiles / tiles
		gr.FactShare = f / flops
	}
	return res, nil
}
