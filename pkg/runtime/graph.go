package runtime

import "github.com/exageostat/exageostat/pkg/kind"

// Graph is a task graph recorded instead of run (Options.Record): every task
// every rank would run for the submitted program, plus one Xfer node per
// message the distributed runtime would send, with the dependencies each
// rank's runtime would infer. It is what pkg/sim replays on a modelled
// cluster, so the simulated DAG is the one the real run executes.
type Graph struct {
	Ranks int
	Nodes []Node
	// Memory is, per rank, the tile data it would hold, in program order:
	// a copy's buffer counts from the node that allocates it (a write or a
	// receive on that rank) to the point where it is released (a writer
	// elsewhere, Flush, Invalidate; an owner keeps its copies).
	Memory []RankMemory
}

// RankMemory is the tile data of one rank of a recorded graph, in bytes.
type RankMemory struct {
	Rank int `json:"rank"`
	// Owned is the size of the handles the rank owns (all registered so
	// far, used or not).
	Owned int64 `json:"owned_bytes"`
	// Peak is the most the rank holds at once, replicas included, and
	// PeakReplicas the most of it in copies of handles it does not own.
	Peak         int64 `json:"peak_bytes"`
	PeakReplicas int64 `json:"peak_replica_bytes"`
	// PeakByPhase is Peak during the nodes of each phase (kind.Phase).
	PeakByPhase map[string]int64 `json:"peak_bytes_by_phase"`
}

// XferKind is the Kind of a transfer node.
const XferKind = kind.Xfer

// Node is one task or one transfer of a Graph.
type Node struct {
	Kind     string // task kind (dcmg, potrf, ...), or XferKind
	Tile     [3]int // tile indices of the task, or of the transferred handle's task
	Priority int
	Flops    float64 // the task's flop count (dcmg: entries generated)
	Rank     int     // rank that runs the task; for a transfer, the receiving rank
	Src      int     // transfer: the sending rank; -1 for a task
	Bytes    int     // transfer: payload in bytes
	Deps     []int   // indices of the nodes that must end before this one starts (all smaller)
	Iter     int     // iteration mark (SetIteration)
	Handle   string  // transfer: the handle's name
}

// Work returns, for each rank, the number of task nodes it runs and the
// bytes it receives.
func (g *Graph) Work() (tasks []int, recvBytes []int64) {
	tasks = make([]int, g.Ranks)
	recvBytes = make([]int64, g.Ranks)
	for _, n := range g.Nodes {
		if n.Kind == XferKind {
			recvBytes[n.Rank] += int64(n.Bytes)
		} else if n.Kind != kind.Barrier {
			tasks[n.Rank]++
		}
	}
	return tasks, recvBytes
}
