package main

import (
	"strconv"
	"strings"

	"github.com/exageostat/exageostat/pkg/config"
)

// parseFloats parses a comma-separated list such as "1,0.1,0.5" given to
// --flag (config.ParseFloats); an error is bad input naming the flag.
func parseFloats(flag, s string) ([]float64, error) {
	v, err := config.ParseFloats(s)
	if err != nil {
		return nil, badInput("--%s: %v", flag, err)
	}
	return v, nil
}

func formatFloats(x []float64) string {
	s := make([]string, len(x))
	for i, v := range x {
		s[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strings.Join(s, ",")
}
