package config

// ClusterFlags are the command-line values that override a cluster file's
// keys (exageostat plan), already parsed. Given names the flags given on
// the command line, by flag name: nodes, dist, powers, gen-dist,
// gen-powers and gen-tiles; the others hold their flag's default.
type ClusterFlags struct {
	Given             map[string]bool
	Nodes             int
	Dist, GenDist     string
	Powers, GenPowers []float64
	// GenTiles, when given, are the generation tiles per node: the
	// generation distribution is derived from the factorisation's
	// (Algorithm 2), so the [generation] keys are dropped.
	GenTiles []int
}

// WithFlags returns c, read from the cluster file file ("" for none: c is
// then DefaultCluster), with the flags over it, validated. The command
// line wins over the file, and without a file the flags' defaults apply:
//   - nodes: the flag when given; without a file, the flag's default
//     unless a per-node list (powers, gen-powers, gen-tiles, the first
//     given) has as many values as there are nodes;
//   - dist (given, or without a file): a different kind drops the
//     factorisation's p, q and powers;
//   - powers: the factorisation's powers, 1d1d unless dist is given;
//   - gen-dist and gen-powers: the same for the [generation] phase;
//   - gen-tiles: the [generation] phase is dropped (derived instead).
//
// An error is an *Error naming "plan (flags)" without a file, the file,
// or the file "(with flags)" when a flag overrides it.
func (c Cluster) WithFlags(file string, fl ClusterFlags) (Cluster, error) {
	source := "plan (flags)"
	if file != "" {
		source = file
		for _, name := range []string{"nodes", "dist", "powers", "gen-dist", "gen-powers", "gen-tiles"} {
			if fl.Given[name] {
				source = file + " (with flags)"
			}
		}
	}
	if fl.Given["nodes"] || file == "" {
		c.Nodes = fl.nodes()
	}
	if fl.Given["dist"] || file == "" {
		if fl.Dist != c.Distribution {
			c.Phase = Phase{} // p, q, powers of the other kind do not apply
		}
		c.Distribution = fl.Dist
	}
	if fl.Given["powers"] {
		if !fl.Given["dist"] && c.Distribution != "1d1d" {
			c.Phase = Phase{Distribution: "1d1d"}
		}
		c.Powers = fl.Powers
	}
	if fl.Given["gen-dist"] {
		if fl.GenDist != c.Generation.Distribution {
			c.Generation = Phase{}
		}
		c.Generation.Distribution = fl.GenDist
	}
	if fl.Given["gen-powers"] {
		if !fl.Given["gen-dist"] && c.Generation.Distribution != "1d1d" {
			c.Generation = Phase{Distribution: "1d1d"}
		}
		c.Generation.Powers = fl.GenPowers
	}
	if fl.Given["gen-tiles"] {
		c.Generation = Phase{} // replaced by Algorithm 2
	}
	return c, c.Validate(source)
}

// nodes is the number of nodes the flags give: --nodes when given, else
// the length of the first per-node list given, else --nodes's default.
func (fl ClusterFlags) nodes() int {
	switch {
	case fl.Given["nodes"]:
		return fl.Nodes
	case fl.Given["powers"]:
		return len(fl.Powers)
	case fl.Given["gen-powers"]:
		return len(fl.GenPowers)
	case fl.Given["gen-tiles"]:
		return len(fl.GenTiles)
	}
	return fl.Nodes
}
