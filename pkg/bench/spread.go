package bench

import "slices"

// Spread summarises repeated measurements: their median, minimum and
// maximum (a benchmark on a shared machine reports all three).
type Spread struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
}

// SpreadOf returns the spread of xs, scaled by scale (e.g. 1e6/tasks for
// microseconds per task); zero for no values.
func SpreadOf(xs []float64, scale float64) Spread {
	if len(xs) == 0 {
		return Spread{}
	}
	return Spread{Median: median(xs) * scale, Min: slices.Min(xs) * scale, Max: slices.Max(xs) * scale}
}
