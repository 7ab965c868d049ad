package plot

import (
	"math"
	"strconv"
	"strings"

	gplot "gonum.org/v1/plot"
)

// niceTicks is a gonum plot.Ticker placing about n labelled ticks (6 if n
// is 0) at multiples of 1, 2, 2.5 or 5 times a power of ten, with minor
// ticks between them, and labelling them with as many decimals as the
// step needs (in scientific notation for very small or large values).
// Its zero value is ready to use.
type niceTicks struct{ n int }

// Ticks implements plot.Ticker.
func (t niceTicks) Ticks(lo, hi float64) []gplot.Tick {
	if !(lo < hi) || !finite(lo) || !finite(hi) {
		return nil
	}
	n := t.n
	if n <= 0 {
		n = 6
	}
	step, minors := niceStep(lo, hi, n)
	if step == 0 {
		return nil
	}
	format := tickFormat(step, max(math.Abs(lo), math.Abs(hi)))
	minor := step / float64(minors)
	var ticks []gplot.Tick
	k0, k1 := math.Ceil(lo/minor-1e-9), math.Floor(hi/minor+1e-9)
	if !(k1-k0 <= 1000) {
		return nil
	}
	for k := k0; k <= k1; k++ {
		v := k * minor
		if math.Abs(v) < 1e-9*minor {
			v = 0
		}
		tk := gplot.Tick{Value: v}
		if math.Mod(k, float64(minors)) == 0 {
			tk.Label = format(v)
		}
		ticks = append(ticks, tk)
	}
	return ticks
}

// niceStep returns the step among 1, 2, 2.5 and 5 times a power of ten
// that puts the number of its multiples in [lo, hi] nearest n (the larger
// step on a tie), and the number of minor intervals in a step.
func niceStep(lo, hi float64, n int) (step float64, minors int) {
	raw := (hi - lo) / float64(n)
	if !(raw > 0) || !finite(raw) {
		return 0, 0
	}
	e := math.Floor(math.Log10(raw))
	best := math.Inf(1)
	for _, p := range []float64{math.Pow(10, e-1), math.Pow(10, e), math.Pow(10, e+1)} {
		for _, m := range []struct {
			f float64
			n int
		}{{1, 5}, {2, 4}, {2.5, 5}, {5, 5}} {
			s := m.f * p
			count := math.Floor(hi/s+1e-9) - math.Ceil(lo/s-1e-9) + 1
			if d := math.Abs(count - float64(n)); d <= best {
				best, step, minors = d, s, m.n
			}
		}
	}
	return step, minors
}

// tickFormat returns the formatter of tick labels, multiples of step with
// absolute values up to big: fixed-point with the decimals of step, or,
// when big is at least 1e6 or below 1e-3, scientific notation with no
// trailing zeros ("2.5e-7", "1e6").
func tickFormat(step, big float64) func(float64) string {
	digits := func(x float64) int {
		// The decimals of x = m 10^e, m in {1, 2, 2.5, 5}.
		d := -int(math.Floor(math.Log10(x) + 1e-9))
		if m := x * math.Pow(10, float64(d)); math.Abs(m-2.5) < 1e-6 {
			d++
		}
		return d
	}
	if big >= 1e6 || big < 1e-3 {
		prec := max(0, digits(step)+int(math.Floor(math.Log10(big)+1e-9)))
		return func(v float64) string {
			if v == 0 {
				return "0"
			}
			mant, exp, _ := strings.Cut(strconv.FormatFloat(v, 'e', prec, 64), "e")
			if strings.Contains(mant, ".") {
				mant = strings.TrimRight(strings.TrimRight(mant, "0"), ".")
			}
			sign := ""
			if exp[0] == '-' {
				sign = "-"
			}
			if exp = strings.TrimLeft(exp[1:], "0"); exp == "" {
				return mant
			}
			return mant + "e" + sign + exp
		}
	}
	prec := max(0, digits(step))
	return func(v float64) string { return strconv.FormatFloat(v, 'f', prec, 64) }
}
