package main

import (
	"strconv"
	"strings"
)

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
