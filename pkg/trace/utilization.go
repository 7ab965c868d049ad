package trace

// Utilization is seed 000's resource-utilisation metric of one evaluation
// on one rank: the time workers spend in application tasks divided by the
// time they were available,
//
//	U(T) = sum over tasks of |[start, end] ∩ [t0, t0 + T]| / (W T),
//
// for W workers, over the whole evaluation (T = wall time, Whole) and over
// its first 90 % (T = 0.9 wall, First90: the tail, where the last
// dependent tasks leave workers idle whatever the scheduler does, is left
// out).
type Utilization struct {
	Whole   float64 `json:"whole"`
	First90 float64 `json:"first90"`
}

// application reports whether events of kind k are application tasks:
// not messages (send, recv), buffer releases (free) or memory samples.
func application(k string) bool {
	switch k {
	case "send", "recv", "free", MemoryKind:
		return false
	}
	return true
}

// BusyIn returns the seconds the application tasks of ev (Worker >= 0)
// spend inside the window [t0, t1] (ns on the trace's clock).
func BusyIn(ev []Event, t0, t1 int64) float64 {
	var busy int64
	for _, e := range ev {
		if e.Worker < 0 || !application(e.Kind) {
			continue
		}
		a, b := max(e.Start, t0), min(e.End, t1)
		if b > a {
			busy += b - a
		}
	}
	return float64(busy) * 1e-9
}

// UtilizationOf returns the utilisation of workers workers over the
// evaluation that ran from t0 to t1 (ns on the trace's clock of ev); zeros
// when workers < 1 or t1 <= t0.
func UtilizationOf(ev []Event, workers int, t0, t1 int64) Utilization {
	if workers < 1 || t1 <= t0 {
		return Utilization{}
	}
	span := float64(t1-t0) * 1e-9
	t90 := t0 + (t1-t0)*9/10
	return Utilization{
		Whole:   BusyIn(ev, t0, t1) / (float64(workers) * span),
		First90: BusyIn(ev, t0, t90) / (float64(workers) * 0.9 * span),
	}
}
