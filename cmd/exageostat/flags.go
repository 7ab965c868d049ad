package main

import (
	"strconv"
	"strings"

	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/matern"
)

// parseDistance maps --distance to a metric: "auto" is great-circle for
// geographic (lon,lat) data and Euclidean otherwise.
func parseDistance(cmd, name string, coords dataset.Coords) (matern.Metric, error) {
	switch name {
	case "auto":
		if coords == dataset.Geographic {
			return matern.GreatCircle, nil
		}
		return matern.Euclidean, nil
	case "euclidean":
		return matern.Euclidean, nil
	case "great-circle", "gc":
		return matern.GreatCircle, nil
	}
	return 0, badInput("%s: unknown distance %q (want euclidean, great-circle or auto)", cmd, name)
}

// parseFloats parses a comma-separated list such as "1,0.1,0.5".
func parseFloats(flag, s string) ([]float64, error) {
	parts := strings.Split(s, ",")
	out := make([]float64, 0, len(parts))
	for _, p := range parts {
		p = strings.TrimSpace(p)
		v, err := strconv.ParseFloat(p, 64)
		if err != nil {
			return nil, badInput("--%s: %q is not a number", flag, p)
		}
		out = append(out, v)
	}
	return out, nil
}

func formatFloats(x []float64) string {
	s := make([]string, len(x))
	for i, v := range x {
		s[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strings.Join(s, ",")
}
