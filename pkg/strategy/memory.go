package strategy

import (
	"errors"
	"fmt"

	"github.com/exageostat/exageostat/pkg/distribution"
	"github.com/exageostat/exageostat/pkg/kind"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/tile"
)

// MaxMemoryNT and MaxMemoryNodes bound the evaluations Memory records: the
// graph has about NT^3/6 tasks (NT = 101: 0.2 million tasks, half a second
// on 6 nodes; NT = 200: 1.5 million, about 4 s and 600 MB while it is
// held), and the recorder keeps per tile a record of every node (NT = 101
// on 2048 nodes: about 4 s and 900 MB).
const (
	MaxMemoryNT    = 200
	MaxMemoryNodes = 1024
)

// ErrTooLarge is wrapped by the error of Memory for an evaluation over
// MaxMemoryNT tiles per side or MaxMemoryNodes nodes.
var ErrTooLarge = errors.New("too large to record")

// NodeMemory is the tile data one node holds during one log-likelihood
// evaluation, in bytes, with the runtime's buffer lifetimes (a copy lives
// from the task or message that writes it on the node until a writer
// elsewhere, a Flush or an Invalidate releases it; an owner keeps its
// copies), in program order: the peaks are those of the sequential
// submission order, not of a particular schedule.
type NodeMemory struct {
	Node int `json:"node"`
	// Owned is the size of the lower tiles of Sigma (and of its Cholesky
	// factor, which overwrites it) the node owns in the factorisation
	// distribution: the sum over its tiles (m, n), m >= n, of
	// 8 rows(m) rows(n), with rows(m) = nb but for the last tile row. It
	// is computed from the distribution; the runtime's RankMemory.Owned
	// also counts the vectors, the scalars and the Cholesky's diagonal
	// workspaces W(k), registered whether or not they are allocated.
	Owned int64 `json:"owned_bytes"`
	// Generated is the size of the lower tiles the node generates (the
	// generation distribution): Owned when the two phases share one.
	Generated int64 `json:"generated_bytes"`
	// Generation, Cholesky and Solve are the most the node holds during the
	// tasks of each phase (kind.Phase): tiles, vectors, workspaces and
	// replicas. The generation only allocates, so a node holds its
	// Generation peak when the Cholesky starts: Cholesky is at least
	// Generation, also on a node that generates tiles for others and
	// factorises none.
	Generation int64 `json:"generation_peak_bytes"`
	Cholesky   int64 `json:"cholesky_peak_bytes"`
	Solve      int64 `json:"solve_peak_bytes"`
	// Peak is the most the node holds at any point of the evaluation,
	// replicas included, and Replicas the most of it in copies of handles
	// it does not own (tiles received or generated for another node).
	Peak     int64 `json:"peak_bytes"`
	Replicas int64 `json:"peak_replica_bytes"`
}

// TileBytes returns, per node of d, the bytes of the lower tiles of an
// n x n matrix with tile size nb that d gives it: the sum over its tiles
// (m, k), m >= k, of 8 rows(m) rows(k).
func TileBytes(d distribution.Distribution, n, nb int) []int64 {
	return tile.NewLayout(n, nb).LowerBytes(d.Owner, d.Nodes(), nil)
}

// Memory records one evaluation of n points with tile size nb distributed
// by p (Record) and returns the tile data of each node (MemoryOf). Over
// MaxMemoryNT tiles per side or MaxMemoryNodes nodes, its error wraps
// ErrTooLarge.
func Memory(p *Plan, n, nb int) ([]NodeMemory, error) {
	if nt := tile.NewLayout(n, nb).NT; nt > MaxMemoryNT {
		return nil, fmt.Errorf("%w: %d x %d tiles (at most %d per side)", ErrTooLarge, nt, nt, MaxMemoryNT)
	}
	if nodes := p.Fact.Nodes(); nodes > MaxMemoryNodes {
		return nil, fmt.Errorf("%w: %d nodes (at most %d)", ErrTooLarge, nodes, MaxMemoryNodes)
	}
	g, err := Record(p, n, nb)
	if err != nil {
		return nil, err
	}
	return MemoryOf(p, n, nb, g), nil
}

// MemoryOf returns the tile data of each node of p during the evaluation
// recorded in g (Record(p, n, nb)): Owned and Generated from p's
// distributions, the peaks from g.Memory.
func MemoryOf(p *Plan, n, nb int, g *runtime.Graph) []NodeMemory {
	owned := TileBytes(p.Fact, n, nb)
	gen := TileBytes(p.Gen, n, nb)
	out := make([]NodeMemory, p.Fact.Nodes())
	for i := range out {
		o := NodeMemory{Node: i, Owned: owned[i]}
		if i < len(gen) {
			o.Generated = gen[i]
		}
		if i < len(g.Memory) {
			m := g.Memory[i]
			o.Generation = m.PeakByPhase[kind.Phase(kind.Dcmg)]
			o.Cholesky = max(m.PeakByPhase[kind.Phase(kind.Potrf)], o.Generation)
			o.Solve = m.PeakByPhase[kind.Phase(kind.Trsv)]
			o.Peak, o.Replicas = m.Peak, m.PeakReplicas
		}
		out[i] = o
	}
	return out
}
