package likelihood

import (
	"fmt"
	"strings"

	"github.com/exageostat/exageostat/pkg/kind"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/solve"
)

// Overlap switches seed 000's six phase-overlap optimisations of one
// evaluation (section 4, Figure 5). All are on by default; turning them
// off, in the order of Ablation, goes back to ExaGeoStat's synchronous
// version. None changes the arithmetic: l is bitwise the same with any
// combination.
type Overlap struct {
	// Async: no synchronisation between the phases. Off: a barrier
	// (runtime.Barrier) after generation, Cholesky, determinant, solve
	// and dot product.
	Async bool
	// LocalSolve: Algorithm 1, the products L(m,k) z(k) computed next to
	// L(m,k). Off: computed on the owner of z(m), so the tiles of L travel
	// there as in Chameleon's solve (solve.Accum.AtZ; the sums keep their
	// order, unlike --solve move-tiles, which also changes the rounding).
	LocalSolve bool
	// Memory: buffers from the runtime's pool, reused between phases and
	// evaluations, and pre-allocated (runtime.Reserve). Off: the runtime
	// allocates every buffer from the system when a task first writes it
	// and frees it when released (runtime.Options.NoPool), and the
	// evaluator drops its tiles before each evaluation.
	Memory bool
	// Priorities: generation (Equation 2) and solve (7-9) priorities. Off:
	// only the Cholesky's (3-6); generation, observation copies and solve
	// at priority 0.
	Priorities bool
	// GenOrder: generation submitted in priority order (anti-diagonals
	// first). Off: the natural loop order (row m, then column n <= m).
	GenOrder bool
	// Oversubscribe: one more worker than cores that never runs a
	// generation task (runtime.Options.Helpers), so the factorisation's
	// critical path keeps moving while every core generates.
	Oversubscribe bool
}

// AllOverlap returns every optimisation on (the default).
func AllOverlap() Overlap {
	return Overlap{Async: true, LocalSolve: true, Memory: true, Priorities: true, GenOrder: true, Oversubscribe: true}
}

// overlapNames are the switches' names, as flags and config keys spell
// them, in the order of the Overlap fields.
var overlapNames = [...]string{"async", "local-solve", "memory", "priorities", "submission-order", "oversubscription"}

// OverlapNames returns the switches' names in the order of the fields of
// Overlap.
func OverlapNames() []string { return overlapNames[:] }

func (o *Overlap) fields() [6]*bool {
	return [6]*bool{&o.Async, &o.LocalSolve, &o.Memory, &o.Priorities, &o.GenOrder, &o.Oversubscribe}
}

// Get returns the switch of that name (OverlapNames).
func (o Overlap) Get(name string) (bool, bool) {
	for i, f := range o.fields() {
		if overlapNames[i] == name {
			return *f, true
		}
	}
	return false, false
}

// Set sets the switch of that name (OverlapNames); false if there is none.
func (o *Overlap) Set(name string, on bool) bool {
	for i, f := range o.fields() {
		if overlapNames[i] == name {
			*f = on
			return true
		}
	}
	return false
}

// String returns "async=on,local-solve=off,..." in the order of
// OverlapNames.
func (o Overlap) String() string {
	var b strings.Builder
	for i, f := range o.fields() {
		if i > 0 {
			b.WriteByte(',')
		}
		v := "off"
		if *f {
			v = "on"
		}
		fmt.Fprintf(&b, "%s=%s", overlapNames[i], v)
	}
	return b.String()
}

// RuntimeOptions returns ro with the runtime's part of the switches: no
// pool without Memory, one helper worker that never runs dcmg with
// Oversubscribe.
func (o Overlap) RuntimeOptions(ro runtime.Options) runtime.Options {
	ro.NoPool = !o.Memory
	ro.Helpers, ro.HelperExclude = 0, nil
	if o.Oversubscribe {
		ro.Helpers, ro.HelperExclude = 1, []string{kind.Dcmg}
	}
	return ro
}

// AblationStep is one step of Figure 5's cumulative ablation.
type AblationStep struct {
	Name    string
	Overlap Overlap
}

// Ablation returns Figure 5's cumulative steps: sync (everything off),
// async, + local solve + memory, + priorities, + submission order,
// + oversubscription (everything on).
func Ablation() []AblationStep {
	var o Overlap
	steps := []AblationStep{{"sync", o}}
	o.Async = true
	steps = append(steps, AblationStep{"async", o})
	o.LocalSolve, o.Memory = true, true
	steps = append(steps, AblationStep{"+local-solve+memory", o})
	o.Priorities = true
	steps = append(steps, AblationStep{"+priorities", o})
	o.GenOrder = true
	steps = append(steps, AblationStep{"+submission-order", o})
	o.Oversubscribe = true
	steps = append(steps, AblationStep{"+oversubscription", o})
	return steps
}

// overlap returns the evaluator's switches.
func (o Options) overlap() Overlap {
	if o.Overlap == nil {
		return AllOverlap()
	}
	return *o.Overlap
}

// tuneSolve applies the switches to a local solve's accumulators.
func (e *Evaluator) tuneSolve(a *solve.Accum) *solve.Accum {
	a.NoPriorities = !e.ov.Priorities
	a.AtZ = !e.ov.LocalSolve
	return a
}

// prio returns p, or 0 when the generation and solve priorities are off.
func (e *Evaluator) prio(p int) int {
	if !e.ov.Priorities {
		return 0
	}
	return p
}

// phaseEnd ends a phase: a barrier when Async is off.
func (e *Evaluator) phaseEnd() {
	if !e.ov.Async {
		e.rt.Barrier()
	}
}

// beginEval drops the tiles of the previous evaluation when Memory is off,
// so that none of its buffers is reused.
func (e *Evaluator) beginEval() {
	if e.ov.Memory || e.evals <= 1 {
		return
	}
	e.sigma.Invalidate()
	e.z.Invalidate()
	for _, x := range e.x {
		x.Invalidate()
	}
}

// sortedGen returns how many of the generation tasks (all or none) are
// sorted into priority order.
func (e *Evaluator) sortedGen() int {
	if e.ov.GenOrder {
		return len(e.gen)
	}
	return 0
}
