package lp

import (
	"fmt"

	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/kind"
)

// FromCluster returns the LP groups of a cluster file's [[group]] tables, in
// file order: Workers from cpus and gpus, Durations[k][t] from the group's
// [group.cpu] (k = CPU) and [group.gpu] (k = GPU) tables for the five LP task
// types (0 where a table leaves the type out: it cannot run there).
//
// The tiled Cholesky runs one trtri (the inverse of the factored diagonal
// tile) after each potrf, on the potrf's critical path, which the LP's task
// types do not have: where the table gives trtri, its duration is added to
// potrf's (d(potrf) + d(trtri), on the same worker type). The trsm of the LP
// is the tiled Cholesky's panel update, a multiplication by that inverse
// (kind.Trmm).
func FromCluster(c config.Cluster) ([]Group, error) {
	if len(c.Groups) == 0 {
		return nil, fmt.Errorf("lp: the cluster has no [[group]] tables (no durations to model)")
	}
	out := make([]Group, len(c.Groups))
	for i, g := range c.Groups {
		lg := Group{Name: g.Name, Nodes: g.Nodes}
		lg.Workers = g.Workers()
		for k, table := range g.Tables() {
			for t := Task(0); t < NumTasks; t++ {
				d, ok := table[t.String()]
				if !ok {
					continue
				}
				if t == POTRF {
					d += table[kind.Trtri]
				}
				lg.Durations[k][t] = d
			}
		}
		out[i] = lg
	}
	return out, nil
}
