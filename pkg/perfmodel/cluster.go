package perfmodel

import (
	"fmt"
	"maps"
	"strings"

	"github.com/exageostat/exageostat/pkg/config"
)

// ResolveCluster fills the duration tables of c's groups that name a
// perfmodel file (config.Group.Perfmodel): the file's arch "cpu" entries
// at the tile size nb go to [group.cpu] and its arch "cuda" entries to
// [group.gpu], kind by kind (Durations), except the kinds the tables give
// themselves, which keep their values.
//
// The tile size is nb when nb > 0 (the run's, e.g. a --nb flag), else the
// cluster's nb key, else the nb of the groups that give one (they must
// agree); a group's nb, when given, must equal it. c.NB is set to it when
// the file has no nb. Errors are *config.Error naming file (the cluster
// file) and the key (group[i].perfmodel or group[i].nb).
func ResolveCluster(c *config.Cluster, file string, nb int) error {
	bad := func(key, format string, a ...any) error {
		return &config.Error{File: file, Key: key, Msg: fmt.Sprintf(format, a...)}
	}
	run := nb
	if run <= 0 {
		run = c.NB
	}
	if run <= 0 {
		for i, g := range c.Groups {
			if g.NB > 0 && run > 0 && g.NB != run {
				return bad(fmt.Sprintf("group[%d].nb", i), "%d, but another group has nb = %d (the groups share one tile size)", g.NB, run)
			}
			if g.NB > 0 {
				run = g.NB
			}
		}
	}
	for i := range c.Groups {
		g := &c.Groups[i]
		if g.Perfmodel == "" {
			continue
		}
		key := func(k string) string { return fmt.Sprintf("group[%d].%s", i, k) }
		if run <= 0 {
			return bad(key("nb"), "missing: the tile size of the entries to take from %s (or give the cluster's nb, or --nb)", g.Perfmodel)
		}
		if g.NB > 0 && g.NB != run {
			return bad(key("nb"), "%d, but the run's tile size is %d: a perfmodel's durations hold at their own tile size (leave nb out to take the run's)", g.NB, run)
		}
		m, err := Load(g.Perfmodel)
		if err != nil {
			return bad(key("perfmodel"), "%s", oneLine(err.Error()))
		}
		cpu, gpu := m.Durations(CPU, run), m.Durations(CUDA, run)
		if len(cpu) == 0 && len(gpu) == 0 {
			return bad(key("perfmodel"), "%s has no cpu or cuda entry at nb = %d (cpu at nb %s, cuda at nb %s)",
				g.Perfmodel, run, sizes(m.TileSizes(CPU)), sizes(m.TileSizes(CUDA)))
		}
		g.CPU, g.GPU = fill(g.CPU, cpu), fill(g.GPU, gpu)
		g.PerfmodelNB = run
	}
	if c.NB <= 0 && run > 0 {
		c.NB = run
	}
	return nil
}

// fill returns the table from with the kinds of explicit replacing its.
func fill(explicit, from config.Durations) config.Durations {
	if len(from) == 0 {
		return explicit
	}
	out := maps.Clone(from)
	maps.Copy(out, explicit)
	return out
}

func sizes(nbs []int) string {
	if len(nbs) == 0 {
		return "none"
	}
	s := make([]string, len(nbs))
	for i, v := range nbs {
		s[i] = fmt.Sprint(v)
	}
	return strings.Join(s, ", ")
}

// LoadCluster reads the cluster file path (config.DecodeCluster), fills
// the durations of its perfmodel groups at tile size nb (ResolveCluster;
// nb 0: the file's) and validates it.
func LoadCluster(path string, nb int) (config.Cluster, error) {
	c, err := config.DecodeCluster(path)
	if err != nil {
		return c, err
	}
	if err := ResolveCluster(&c, path, nb); err != nil {
		return c, err
	}
	return c, c.Validate(path)
}
