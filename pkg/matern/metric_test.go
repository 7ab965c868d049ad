package matern

import "testing"

// TestParseMetric: every distance name the distance key takes reads back
// as its metric, whose String is the name results print; others are
// refused.
func TestParseMetric(t *testing.T) {
	for _, c := range []struct {
		name, str string
		want      Metric
		ok        bool
	}{
		{"euclidean", "euclidean", Euclidean, true},
		{"great-circle", "great-circle", GreatCircle, true},
		{"gc", "great-circle", GreatCircle, true},
		{"auto", "", 0, false},
		{"", "", 0, false},
		{"Euclidean", "", 0, false},
	} {
		m, ok := ParseMetric(c.name)
		if ok != c.ok || m != c.want || (ok && m.String() != c.str) {
			t.Errorf("ParseMetric(%q) = %v (%q), %v; want %v (%q), %v", c.name, m, m.String(), ok, c.want, c.str, c.ok)
		}
	}
	if s := Metric(7).String(); s != "Metric(7)" {
		t.Errorf("Metric(7).String() = %q", s)
	}
}
