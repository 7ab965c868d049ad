package config

import (
	"fmt"
	"math"
)

// Phase is the data distribution of one phase of the likelihood: which node
// owns which tile.
type Phase struct {
	Distribution string    `toml:"distribution"` // bc (2D block-cyclic) | 1d1d (heterogeneous)
	P            int       `toml:"p"`            // bc: grid rows (0: the most square grid)
	Q            int       `toml:"q"`            // bc: grid columns (0: the most square grid)
	Powers       []float64 `toml:"powers"`       // 1d1d: relative node powers, one per node (empty: equal)
}

// Cluster configures the nodes a run is spread over (`exageostat plan`, and
// the MPI runs): the top-level keys are the distribution of the
// factorisation, the [generation] table the one of the matrix generation.
//
//	nodes = 4
//	distribution = "1d1d"
//	powers = [1, 1, 4, 4]
//	[generation]
//	distribution = "bc"
//
// A key missing from [generation] takes the factorisation's value when both
// phases use the same distribution (so no [generation] table means the same
// distribution for both phases); p, q and powers are not carried over from a
// phase of the other kind.
type Cluster struct {
	Nodes int `toml:"nodes"`
	Phase
	Generation Phase `toml:"generation"`
}

// DefaultCluster returns the defaults: one node, block-cyclic, the same
// distribution for the generation.
func DefaultCluster() Cluster {
	return Cluster{Nodes: 1, Phase: Phase{Distribution: "bc"}}
}

// Phases returns the factorisation and the generation phase, the generation's
// missing keys filled from the factorisation's as the Cluster doc says.
func (c Cluster) Phases() (fact, gen Phase) {
	fact, gen = c.Phase, c.Generation
	if gen.Distribution == "" {
		gen.Distribution = fact.Distribution
	}
	if gen.Distribution == fact.Distribution {
		if gen.P == 0 && gen.Q == 0 {
			gen.P, gen.Q = fact.P, fact.Q
		}
		if gen.Powers == nil {
			gen.Powers = fact.Powers
		}
	}
	return fact, gen
}

// Validate checks c after the file (named file in the errors) and the flags
// are applied, and returns an *Error naming the first bad key: nodes >= 1;
// distribution bc or 1d1d; for bc, p and q >= 0 with p q = nodes when both
// are given (one of them given must divide nodes), and no powers; for 1d1d,
// nodes positive finite powers (or none: equal powers), and no p or q. The
// keys of [generation] are checked the same way after Phases fills them, and
// named "generation.<key>".
func (c Cluster) Validate(file string) error {
	if c.Nodes < 1 {
		return &Error{File: file, Key: "nodes", Msg: fmt.Sprintf("must be >= 1, got %d", c.Nodes)}
	}
	fact, gen := c.Phases()
	if err := fact.validate(file, "", c.Nodes); err != nil {
		return err
	}
	return gen.validate(file, "generation.", c.Nodes)
}

func (p Phase) validate(file, prefix string, nodes int) error {
	bad := func(key, format string, a ...any) error {
		return &Error{File: file, Key: prefix + key, Msg: fmt.Sprintf(format, a...)}
	}
	switch p.Distribution {
	case "bc":
		if len(p.Powers) > 0 {
			return bad("powers", `only used with distribution = "1d1d" (the distribution is "bc")`)
		}
		if p.P < 0 {
			return bad("p", "must be >= 0, got %d", p.P)
		}
		if p.Q < 0 {
			return bad("q", "must be >= 0, got %d", p.Q)
		}
		switch {
		case p.P > 0 && p.Q > 0 && p.P*p.Q != nodes:
			return bad("p", "a %d x %d grid holds %d nodes, need nodes = %d", p.P, p.Q, p.P*p.Q, nodes)
		case p.P > 0 && p.Q == 0 && nodes%p.P != 0:
			return bad("p", "%d grid rows do not divide nodes = %d", p.P, nodes)
		case p.Q > 0 && p.P == 0 && nodes%p.Q != 0:
			return bad("q", "%d grid columns do not divide nodes = %d", p.Q, nodes)
		}
	case "1d1d":
		if p.P != 0 {
			return bad("p", `only used with distribution = "bc" (the distribution is "1d1d")`)
		}
		if p.Q != 0 {
			return bad("q", `only used with distribution = "bc" (the distribution is "1d1d")`)
		}
		if len(p.Powers) > 0 && len(p.Powers) != nodes {
			return bad("powers", "need %d values (nodes = %d), got %d", nodes, nodes, len(p.Powers))
		}
		for i, v := range p.Powers {
			if !(v > 0) || math.IsInf(v, 0) {
				return bad("powers", "value %d (node %d) must be a positive number, got %g", i+1, i, v)
			}
		}
	case "":
		return bad("distribution", `missing (want "bc" or "1d1d")`)
	default:
		return bad("distribution", `unknown distribution %q (want "bc" or "1d1d")`, p.Distribution)
	}
	return nil
}

// LoadCluster reads the cluster file path over DefaultCluster and validates
// it.
func LoadCluster(path string) (Cluster, error) {
	c := DefaultCluster()
	if err := Load(path, &c); err != nil {
		return c, err
	}
	return c, c.Validate(path)
}
