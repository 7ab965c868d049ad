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
	m := newProgram(nt, rs)
	m.constraints()
	obj, x, err := m.simplex(g0Bound(rs, groups))
	if err != nil {
		return nil, err
	}
	return m.result(groups, obj, x), nil
}

// program is the linear program being built: its columns (1-based: G_s =
// 1 + s, F_s = 1 + ns + s, then alpha(s, t, r) for Q(s, t) > 0 and w(t, r)
// finite) and its rows as bounds and matrix triplets (ia[0], ja[0], ar[0]
// unused).
type program struct {
	nt, ns int
	rs     []resource
	q      [][NumTasks]int
	alpha  [][NumTasks][]int32 // alpha[s][t][r], 0: no variable
	ncols  int
	rows   []bound
	ia, ja []int32
	ar     []float64
	// cols and vals are the row being built.
	cols []int32
	vals []float64
}

// bound is one row's bound: kind, lower and upper.
type bound struct {
	kind   glpk.BndsType
	lo, up float64
}

// newProgram numbers the columns of the program for nt tile rows on rs.
func newProgram(nt int, rs []resource) *program {
	q := TaskCounts(nt)
	ns, nr := nt, len(rs)
	m := &program{nt: nt, ns: ns, rs: rs, q: q, ncols: 2 * ns,
		alpha: make([][NumTasks][]int32, ns), ia: []int32{0}, ja: []int32{0}, ar: []float64{0}}
	for s := range m.alpha {
		for t := Task(0); t < NumTasks; t++ {
			m.alpha[s][t] = make([]int32, nr)
			if q[s][t] == 0 {
				continue
			}
			for ri, r := range rs {
				if r.w[t] > 0 {
					m.ncols++
					m.alpha[s][t][ri] = int32(m.ncols)
				}
			}
		}
	}
	return m
}

func (m *program) gCol(s int) int32 { return int32(1 + s) }
func (m *program) fCol(s int) int32 { return int32(1 + m.ns + s) }

// start begins a new row with the given columns and coefficients.
func (m *program) start(cols []int32, vals []float64) {
	m.cols, m.vals = append(m.cols[:0], cols...), append(m.vals[:0], vals...)
}

// add appends column c with coefficient v to the row being built.
func (m *program) add(c int32, v float64) {
	m.cols, m.vals = append(m.cols, c), append(m.vals, v)
}

// row appends the row being built with bound b.
func (m *program) row(b bound) {
	m.rows = append(m.rows, b)
	for k, c := range m.cols {
		m.ia, m.ja, m.ar = append(m.ia, int32(len(m.rows))), append(m.ja, c), append(m.ar, m.vals[k])
	}
}

// rowLE0 appends the row being built as "... <= 0".
func (m *program) rowLE0() { m.row(bound{glpk.UP, 0, 0}) }

// addFact appends sum_{t != dcmg} alpha(s, t, r) w(t, r) to the row.
func (m *program) addFact(s, ri int) {
	for t := POTRF; t < NumTasks; t++ {
		if c := m.alpha[s][t][ri]; c != 0 {
			m.add(c, m.rs[ri].w[t])
		}
	}
}

// constraints appends the rows (13)-(17).
func (m *program) constraints() {
	// (13) for all t, s: sum_r alpha(s, t, r) = Q(s, t).
	for s := 0; s < m.ns; s++ {
		for t := Task(0); t < NumTasks; t++ {
			if m.q[s][t] == 0 {
				continue
			}
			m.start(nil, nil)
			for _, c := range m.alpha[s][t] {
				if c != 0 {
					m.add(c, 1)
				}
			}
			m.row(bound{glpk.FX, float64(m.q[s][t]), float64(m.q[s][t])})
		}
	}
	for ri := range m.rs {
		for s := 0; s < m.ns; s++ {
			m.resourceRows(s, ri)
		}
	}
}

// resourceRows appends the rows (14)-(17) of step s and resource ri.
func (m *program) resourceRows(s, ri int) {
	r := m.rs[ri]
	// (14) for all s > 0, r: G_{s-1} + alpha(s, dcmg, r) w(dcmg, r) <= G_s.
	if s > 0 {
		m.start([]int32{m.gCol(s - 1), m.gCol(s)}, []float64{1, -1})
		if c := m.alpha[s][DCMG][ri]; c != 0 {
			m.add(c, r.w[DCMG])
		}
		m.rowLE0()
	}
	// (15) for all s, r: G_s + sum_{t != dcmg} alpha(s, t, r) w(t, r) <= F_s.
	m.start([]int32{m.gCol(s), m.fCol(s)}, []float64{1, -1})
	m.addFact(s, ri)
	m.rowLE0()
	// (16) for all s > 0, r: F_{s-1} + sum_{t != dcmg} alpha(s, t, r) w(t, r) <= F_s.
	if s > 0 {
		m.start([]int32{m.fCol(s - 1), m.fCol(s)}, []float64{1, -1})
		m.addFact(s, ri)
		m.rowLE0()
	}
	// (17) for all r, s: sum_{z <= s, t} alpha(z, t, r) w(t, r) <= F_s.
	m.start([]int32{m.fCol(s)}, []float64{-1})
	for z := 0; z <= s; z++ {
		for t := Task(0); t < NumTasks; t++ {
			if c := m.alpha[z][t][ri]; c != 0 {
				m.add(c, r.w[t])
			}
		}
	}
	m.rowLE0()
}

// g0Bound is (18)'s min_r d(dcmg, r), a lower bound on the column G_0.
func g0Bound(rs []resource, groups []Group) float64 {
	g0 := math.Inf(1)
	for _, r := range rs {
		if r.w[DCMG] > 0 {
			gr := groups[r.group]
			g0 = min(g0, gr.Durations[r.kind][DCMG])
		}
	}
	return g0
}

// simplex solves the program with G_0 >= g0 (18), minimising (12)
// sum_s (G_s + F_s), and returns the objective and x[c] = max(0, column
// c's primal value) for c = 1 ... ncols (x[0] unused).
func (m *program) simplex(g0 float64) (float64, []float64, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	p := glpk.New()
	defer p.Delete()
	p.SetObjDir(glpk.MIN)
	p.AddCols(m.ncols)
	for j := 1; j <= m.ncols; j++ {
		p.SetColBnds(j, glpk.LO, 0, 0) // all variables >= 0
	}
	p.SetColBnds(int(m.gCol(0)), glpk.LO, g0, 0) // (18)
	// (12) minimise sum_s (G_s + F_s).
	for s := 0; s < m.ns; s++ {
		p.SetObjCoef(int(m.gCol(s)), 1)
		p.SetObjCoef(int(m.fCol(s)), 1)
	}
	p.AddRows(len(m.rows))
	for i, b := range m.rows {
		p.SetRowBnds(i+1, b.kind, b.lo, b.up)
	}
	p.LoadMatrix(m.ia, m.ja, m.ar)
	parm := glpk.NewSmcp()
	parm.SetMsgLev(glpk.MSG_OFF)
	if err := p.Simplex(parm); err != nil {
		return 0, nil, fmt.Errorf("lp: GLPK simplex: %v", err)
	}
	if st := p.Status(); st != glpk.OPT {
		return 0, nil, fmt.Errorf("lp: GLPK found no optimal solution (status %d)", int(st))
	}
	x := make([]float64, m.ncols+1)
	for c := 1; c <= m.ncols; c++ {
		x[c] = max(0, p.ColPrim(c))
	}
	return p.ObjVal(), x, nil
}

// result reads the solution x (from simplex) into a Result.
func (m *program) result(groups []Group, obj float64, x []float64) *Result {
	ns := m.ns
	res := &Result{NT: m.nt, Objective: obj, G: make([]float64, ns), F: make([]float64, ns), Groups: make([]GroupResult, len(groups))}
	for s := 0; s < ns; s++ {
		res.G[s], res.F[s] = x[m.gCol(s)], x[m.fCol(s)]
	}
	res.Makespan = res.F[ns-1]
	for g, gr := range groups {
		res.Groups[g].Name, res.Groups[g].Nodes = gr.Name, gr.Nodes
	}
	var flops float64
	for s := 0; s < ns; s++ {
		for t := Task(0); t < NumTasks; t++ {
			flops += t.Flops() * float64(m.q[s][t])
			for ri, r := range m.rs {
				if c := m.alpha[s][t][ri]; c != 0 {
					a := x[c]
					gr := &res.Groups[r.group]
					gr.Tasks[r.kind][t] += a
					gr.Busy[r.kind] += a * r.w[t]
				}
			}
		}
	}
	tiles := float64(m.nt * (m.nt + 1) / 2)
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
	return res
}
