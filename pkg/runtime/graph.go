package runtime

// Graph is a task graph recorded instead of run (Options.Record): every task
// every rank would run for the submitted program, plus one Xfer node per
// message the distributed runtime would send, with the dependencies each
// rank's runtime would infer. It is what pkg/sim replays on a modelled
// cluster, so the simulated DAG is the one the real run executes.
type Graph struct {
	Ranks int
	Nodes []Node
}

// XferKind is the Kind of a transfer node.
const XferKind = "xfer"

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
		} else {
			tasks[n.Rank]++
		}
	}
	return tasks, recvBytes
}
