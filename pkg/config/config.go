// Package config is the TOML schema of exageostat's commands: one struct per
// command whose keys mirror the command-line flags, with defaults and
// validation. Unknown keys are errors naming the key; a value of the wrong
// type names the file, line and key.
package config

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// Fit configures `exageostat fit`. A flag given on the command line overrides
// the key of the same name.
type Fit struct {
	Data         string    `toml:"data"`         // CSV with a header: x,y,z or lon,lat,z
	Locations    string    `toml:"locations"`    // headerless x,y file (with Observations)
	Observations string    `toml:"observations"` // one value per line
	Kernel       string    `toml:"kernel"`       // matern | powexp
	Distance     string    `toml:"distance"`     // euclidean | great-circle (auto: from the CSV header)
	Lower        []float64 `toml:"lb"`           // lower bounds of theta
	Upper        []float64 `toml:"ub"`           // upper bounds of theta
	Start        string    `toml:"start"`        // data | lower
	Search       string    `toml:"search"`       // log | linear
	Nugget       float64   `toml:"nugget"`       // tau2 on the diagonal
	NB           int       `toml:"nb"`           // tile size (0: automatic)
	Workers      int       `toml:"workers"`      // 0: one per core
	Tolerance    float64   `toml:"tolerance"`    // ftol_abs of the optimiser
	MaxEvals     int       `toml:"max_evals"`    // 0: no limit
	JSON         string    `toml:"json"`         // result file
	Trace        string    `toml:"trace"`        // trace file
	Holdout      int       `toml:"holdout"`      // hold out this many locations (seeded) and predict them
	TrueTheta    []float64 `toml:"true_theta"`   // with holdout: MLOE and MMOM against this theta
	StdErr       bool      `toml:"stderr"`       // standard errors from the Fisher information
	Plot         string    `toml:"plot"`         // directory for pictures
	Grid         string    `toml:"grid"`         // NxM prediction grid for the maps
	Solve        string    `toml:"solve"`        // MPI runs: chained | per-rank | move-tiles
	MemoryLimit  string    `toml:"memory_limit"` // bytes per rank, e.g. "2GB" (empty: what the node has)
	// Used when no data is given: simulate N points with Theta and Seed.
	N     int       `toml:"n"`
	Theta []float64 `toml:"theta"`
	Seed  uint64    `toml:"seed"`
	// Distribution of the tiles over the MPI ranks (ignored on one rank):
	// distribution, p, q, powers for the factorisation, as in a Cluster,
	// and a [generation] table for the generation phase.
	Phase
	Generation Phase `toml:"generation"`
	// Cluster is a cluster file (see Cluster) whose [[group]] tables model
	// the ranks' nodes, for the distributions computed from them (lp,
	// bc-fast); its groups must hold as many nodes as there are ranks. A
	// relative path is taken from the working directory.
	Cluster string `toml:"cluster"`
	// ExcludeCPUOnly keeps the nodes without GPUs out of the factorisation
	// of distribution lp (they still generate tiles).
	ExcludeCPUOnly bool `toml:"exclude_cpu_only"`
	// File is the configuration file the values came from, for messages
	// (empty: the command line). It is not a key.
	File string `toml:"-"`
}

// DefaultFit returns the defaults: Matérn, bounds [0.001, 5]^3, data-driven
// start on a log scale, ftol_abs 1e-5, automatic tile size, and the embedded default
// problem N = 1600, theta = (1, 0.1, 0.5), seed 1.
func DefaultFit() Fit {
	return Fit{
		Kernel: "matern", Distance: "auto",
		Lower: []float64{0.001, 0.001, 0.001}, Upper: []float64{5, 5, 5},
		Start: "data", Search: "log", NB: 0, Tolerance: 1e-5, Solve: "chained",
		N: 1600, Theta: []float64{1, 0.1, 0.5}, Seed: 1,
		Phase: Phase{Distribution: "bc"},
	}
}

// Error is a configuration error: the file, the line when known, the key
// when known, and what is wrong.
type Error struct {
	File string
	Line int
	Key  string
	Msg  string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Key != "" {
		fmt.Fprintf(&b, "key %q: ", e.Key)
	}
	b.WriteString(e.Msg)
	return b.String()
}

var typeErr = regexp.MustCompile(`^toml: line (\d+) \(last key "(.*?)"\): (.*)$`)

// Load decodes the TOML file path into v (a pointer to a struct of this
// package, already holding defaults): keys present in the file replace the
// defaults.
func Load(path string, v any) error {
	src, err := os.ReadFile(path)
	if err != nil {
		msg := err.Error()
		if errors.Is(err, os.ErrNotExist) {
			msg = "no such file"
		}
		return &Error{File: path, Msg: msg}
	}
	md, err := toml.Decode(string(src), v)
	if err != nil {
		var pe toml.ParseError
		var ppe *toml.ParseError
		if errors.As(err, &ppe) {
			pe = *ppe
		}
		if ppe != nil || errors.As(err, &pe) {
			return &Error{File: path, Line: pe.Position.Line, Key: pe.LastKey, Msg: pe.Message}
		}
		// Type mismatches come as "toml: line N (last key "k"): msg".
		if m := typeErr.FindStringSubmatch(err.Error()); m != nil {
			line, _ := strconv.Atoi(m[1])
			return &Error{File: path, Line: line, Key: m[2], Msg: m[3]}
		}
		return &Error{File: path, Msg: strings.TrimPrefix(err.Error(), "toml: ")}
	}
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, len(und))
		for i, k := range und {
			keys[i] = k.String()
		}
		sort.Strings(keys)
		return &Error{File: path, Line: lineOf(string(src), keys[0]), Key: keys[0], Msg: "unknown key"}
	}
	return nil
}

// lineOf returns the first line that assigns key (its last dotted part), or 0.
func lineOf(src, key string) int {
	if i := strings.LastIndex(key, "."); i >= 0 {
		key = key[i+1:]
	}
	for i, line := range strings.Split(src, "\n") {
		l := strings.TrimSpace(line)
		if strings.HasPrefix(l, key) {
			rest := strings.TrimSpace(strings.TrimPrefix(l, key))
			if strings.HasPrefix(rest, "=") || strings.HasPrefix(rest, ".") {
				return i + 1
			}
		}
		if l == "["+key+"]" {
			return i + 1
		}
	}
	return 0
}
