// Package sim replays a recorded task graph (runtime.Graph) on a modelled
// heterogeneous cluster (the [[group]] and [network] tables of a
// config.Cluster) by discrete-event simulation, and reports the makespan,
// the busy time and utilisation of every type of worker, the messages, and
// a trace in the format of real runs.
//
// The model:
//
//   - Rank r of the graph is node r of the cluster (ranks numbered group by
//     group, config.Cluster.RankGroups); its group gives it cpus CPU workers
//     and gpus GPU workers, numbered 0 ... cpus-1 and cpus ... cpus+gpus-1
//     in the trace.
//   - A task of kind t takes d(t, k) scale seconds on a worker of type k,
//     d the group's duration table for k (a kind absent cannot run on k)
//     and scale = Flops / (the largest Flops of a task of kind t in the
//     graph) when the task has a flop count, else 1: the durations are
//     those of a full tile, and the ragged last tiles are cheaper.
//   - Scheduling is list scheduling with earliest-finish placement, in the
//     spirit of StarPU's dmda: each time a worker frees or a task becomes
//     ready on a node, the node's ready tasks are considered highest
//     priority first (ties: submission order). Each goes to the worker
//     that would finish it first, max(now, free time) + d; if that worker
//     is idle the task starts now, otherwise it waits for it (and the
//     waiting time counts against that worker for the lower-priority tasks
//     considered in the same round, so that they go elsewhere when the
//     queue is long). A task never waits while an idle worker that would
//     finish it earliest exists.
//   - A transfer of b bytes from rank s to rank r starts once its
//     dependencies have ended and both s's outgoing and r's incoming links
//     are free, and holds both for max(lat_s, lat_r) + b / min(bw_s, bw_r)
//     seconds (each node one full-duplex link, config.Group.Link). Ready
//     transfers are started highest priority first, then in submission
//     order. With Options.MessageDelay D, a transfer ends D seconds after
//     it leaves the links (they are free for the next message at once):
//     the time the runtime takes to post and complete a message beyond
//     the wire (the progress goroutines waiting for a core), which does
//     not occupy the links. With Options.MessageDelays, each transfer's D
//     is drawn from those values instead (the measured distribution of
//     the delays, not one value). With Options.BusyReceives, a transfer
//     that ends while every CPU worker of its receiver runs a task
//     completes a time drawn from those values after the first of them
//     frees (the progress goroutine completes receives on the workers'
//     cores).
//   - The runtime's own CPU time runs on the cores of the workers (as
//     many workers as cores), so it is taken from the CPU workers: a task
//     on a CPU worker takes the group's task_cpu seconds more (submission,
//     scheduling, the Go runtime), and a message costs each of its two
//     ranks c = cpu_per_message + cpu_per_byte b seconds ([network]; all
//     0 by default): the sender when the transfer starts, the receiver
//     when it ends (the progress goroutine posts, polls, copies and
//     completes it). A message's c lengthens the next task a CPU worker
//     of the rank starts (the sum of the costs since the previous start):
//     a task that waits for the message starts after its copy (the
//     critical path), and one that runs meanwhile ends later by the time
//     the OS gave the progress goroutine.
//   - A rank's workers may also wait for their cores while runnable (its
//     other threads, other processes): with Options.Stretch a CPU task on
//     rank r takes Stretch[r] times its duration, with Options.TaskWait
//     TaskWait[r] seconds more.
//
// The simulation is deterministic: the same graph and cluster give the same
// Result, bit for bit.
package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/kind"
	"github.com/exageostat/exageostat/pkg/pqueue"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/trace"
)

// Options change what Run records.
type Options struct {
	// TraceTransfers adds one trace event of kind runtime.XferKind per
	// message, on the receiving rank, with worker index cpus+gpus (a lane
	// after the GPU workers).
	TraceTransfers bool
	// MessageDelay is the seconds every transfer takes after its link
	// time max(lat) + b / min(bw), without holding the links (0: none):
	// from the data being ready at the sender to the receiver seeing it,
	// what the runtime's progress adds to the wire (bench simulator
	// measures it in real runs). A transfer's trace event ends after the
	// delay. It must be >= 0 and finite.
	MessageDelay float64
	// MessageDelays, if not empty, replaces MessageDelay with one delay
	// per transfer, drawn from these values: the i-th transfer to start
	// (in the simulation's order, which is deterministic) takes
	// MessageDelays[j], j the i-th value of rand.New(rand.NewPCG(Seed,
	// 0)).IntN(len(MessageDelays)) (math/rand/v2): uniform draws with
	// replacement from a sample of the delays measured in real runs, so
	// their tail, not only their median, lengthens the simulated run.
	// The same Seed gives the same Result. Each must be >= 0 and finite.
	MessageDelays []float64
	Seed          uint64
	// BusyReceives, if not empty: a transfer that ends while every CPU
	// worker of its receiving rank runs a task completes only once the
	// first of them frees, plus a time drawn from these values (from
	// the same generator as MessageDelays', as the transfer ends): the
	// runtime's progress goroutine completes a receive on the workers'
	// cores, so it waits for one. Each must be >= 0 and finite.
	BusyReceives []float64
	// Stretch, if not nil, holds one factor per rank, each >= 1 and
	// finite: a task on a CPU worker of rank r takes Stretch[r] times its
	// duration d(t, CPU) scale (then the runtime's CPU is added), the
	// time its worker's thread waits for a core while runnable (the
	// rank's other threads and other processes on its cores) growing
	// with the task's own CPU time. TaskWait, if not nil, holds one time
	// per rank, each >= 0 and finite: each task on a CPU worker of rank r
	// takes TaskWait[r] seconds more, a wait for the core per task
	// (a worker woken or handed the core back once per task).
	Stretch  []float64
	TaskWait []float64
}

// Use is the activity of the workers of one type.
type Use struct {
	Workers int     `json:"workers"` // number of workers
	Tasks   int     `json:"tasks"`   // tasks they ran
	Busy    float64 `json:"busy_s"`  // seconds spent in tasks, summed over the workers
	// Utilisation is Busy / (Makespan x Workers), in [0, 1]; 0 without
	// workers.
	Utilisation float64 `json:"utilisation"`
}

// RankStats is what one rank (node) did.
type RankStats struct {
	Rank             int    `json:"rank"`
	Group            string `json:"group"`
	CPU              Use    `json:"cpu"`
	GPU              Use    `json:"gpu"`
	MessagesSent     int    `json:"messages_sent"`
	BytesSent        int64  `json:"bytes_sent"`
	MessagesReceived int    `json:"messages_received"`
	BytesReceived    int64  `json:"bytes_received"`
	// RuntimeCPU is the CPU time the runtime took from the rank's CPU
	// workers, seconds (task_cpu per task and the messages' CPU): what
	// lengthened its tasks, included in CPU.Busy (the messages after the
	// rank's last task start cost nothing).
	RuntimeCPU float64 `json:"runtime_cpu_s"`
}

// GroupStats is what the nodes of one group did, summed over them.
type GroupStats struct {
	Name         string `json:"name"`
	Nodes        int    `json:"nodes"`
	CPU          Use    `json:"cpu"`
	GPU          Use    `json:"gpu"`
	MessagesSent int    `json:"messages_sent"`
	BytesSent    int64  `json:"bytes_sent"`
}

// KindStats counts the tasks of one kind.
type KindStats struct {
	Count int     `json:"count"`
	CPU   int     `json:"cpu"`    // run on CPU workers
	GPU   int     `json:"gpu"`    // run on GPU workers
	Busy  float64 `json:"busy_s"` // seconds, summed over the tasks
}

// Result is a simulated run.
type Result struct {
	// Makespan is the end of the last task or transfer, in seconds from
	// the start.
	Makespan float64 `json:"makespan_s"`
	Tasks    int     `json:"tasks"`
	Messages int     `json:"messages"`
	Bytes    int64   `json:"bytes"`
	// Ranks, Groups: per rank and per group, in rank and file order.
	Ranks  []RankStats  `json:"ranks"`
	Groups []GroupStats `json:"groups"`
	// Kinds counts the tasks per kind (transfers excluded).
	Kinds map[string]KindStats `json:"kinds"`
	// Events is the simulated trace, one event per task (and per
	// transfer with Options.TraceTransfers), sorted by trace.Sort: pass it
	// to trace.WriteFile.
	Events []trace.Event `json:"-"`
}

// use returns the Use of resource k in s.
func (s *RankStats) use(k config.Resource) *Use {
	if k == config.GPU {
		return &s.GPU
	}
	return &s.CPU
}

func (s *GroupStats) use(k config.Resource) *Use {
	if k == config.GPU {
		return &s.GPU
	}
	return &s.CPU
}

// rankModel is the machine of one rank.
type rankModel struct {
	group    int
	workers  [config.NumResources]int
	dur      [config.NumResources][]float64 // per kind id; 0: cannot run
	bw, lat  float64
	avail    []float64         // per worker: when it is free
	kindOf   []config.Resource // per worker: its type (CPUs first, then GPUs)
	ready    []int32           // ready tasks, highest priority first, then submission order
	tent     []float64         // per worker, within a round: avail plus the tasks waiting for it
	outFree  float64           // outgoing link free at
	inFree   float64           // incoming link free at
	taskCPU  float64           // the runtime's CPU time per task on a CPU worker (config.Group.TaskCPU)
	stretch  float64           // a CPU task's duration factor (Options.Stretch; 1 without)
	taskWait float64           // seconds more per CPU task (Options.TaskWait)
	debt     float64           // CPU time of messages not yet charged to a task
	rtCPU    float64           // the runtime's CPU time charged to tasks
	runnable []bool            // per kind id: some worker type with workers runs it
	deferred []int32           // transfers that arrived while every CPU worker was busy (Options.BusyReceives)
}

type event struct {
	t   float64
	seq int64
	n   int32
	// free: transfer n leaves the links at t (it ends later, after
	// Options.MessageDelay).
	free bool
	// again: transfer n completes at t, deferred (Options.BusyReceives).
	again bool
}

// eventBefore orders the event queue: by time, then in push order.
func eventBefore(a, b event) bool {
	if a.t != b.t {
		return a.t < b.t
	}
	return a.seq < b.seq
}

// simulator holds the state of one Run.
type simulator struct {
	g        *runtime.Graph
	ranks    []rankModel
	kindID   []int32 // per node: kind id (xferID for transfers, barrierID for barriers)
	scale    []float64
	pending  []int32 // per node: dependencies not yet ended
	succ     [][]int32
	xready   [][]int32           // per sending rank: ready transfers, same order as rankModel.ready
	cands    *pqueue.Queue[cand] // scratch of startTransfers
	events   *pqueue.Queue[event]
	seq      int64
	start    []float64
	end      []float64
	worker   []int32 // per task node: worker index in its rank
	touched  []bool  // per rank: needs a scheduling round
	xtouched bool
	now      float64 // the time of the events being processed
	// msgCPU, byteCPU: the CPU time of a message on each of its ranks
	// (config.Network.CPUPerMessage, CPUPerByte).
	msgCPU, byteCPU float64
	delay           float64    // Options.MessageDelay
	delays          []float64  // Options.MessageDelays
	busyRecv        []float64  // Options.BusyReceives
	rng             *rand.Rand // draws from delays and busyRecv
	// delayed: transfers end after their links free (a message delay).
	delayed bool
	linkEnd []float64 // per transfer node: when it left the links
}

// Kind ids of the nodes that are not tasks.
const (
	xferID    = -1 // a transfer: time on the links
	barrierID = -2 // a barrier of all ranks: no time, once its dependencies end
)

// Run simulates g on cluster c, which must have groups (durations) and as
// many nodes as g has ranks. It fails, naming the node, on a malformed
// graph (a dependency that is not an earlier node, a rank out of range, a
// transfer to its own rank) and on a task whose rank's group cannot run its
// kind.
func Run(g *runtime.Graph, c config.Cluster, opt Options) (*Result, error) {
	s, err := newSimulator(g, c, opt)
	if err != nil {
		return nil, err
	}
	s.run()
	return s.result(c, opt), nil
}

func newSimulator(g *runtime.Graph, c config.Cluster, opt Options) (*simulator, error) {
	for _, d := range slices.Concat([]float64{opt.MessageDelay}, opt.MessageDelays, opt.BusyReceives) {
		if !(d >= 0) || math.IsInf(d, 0) {
			return nil, fmt.Errorf("sim: message delay %g s (want >= 0 and finite)", d)
		}
	}
	if len(c.Groups) == 0 {
		return nil, fmt.Errorf("sim: the cluster has no [[group]] tables (no task durations)")
	}
	if g.Ranks != c.GroupNodes() {
		return nil, fmt.Errorf("sim: the graph was recorded for %d ranks, the cluster has %d nodes", g.Ranks, c.GroupNodes())
	}
	n := len(g.Nodes)
	s := &simulator{
		g: g, kindID: make([]int32, n), scale: make([]float64, n), pending: make([]int32, n),
		succ: make([][]int32, n), start: make([]float64, n), end: make([]float64, n),
		worker: make([]int32, n), touched: make([]bool, g.Ranks), xready: make([][]int32, g.Ranks),
		events: pqueue.New(eventBefore), msgCPU: c.Network.CPUPerMessage, byteCPU: c.Network.CPUPerByte,
		delay: opt.MessageDelay, delays: opt.MessageDelays, busyRecv: opt.BusyReceives, linkEnd: make([]float64, n),
		delayed: opt.MessageDelay > 0 || len(opt.MessageDelays) > 0,
	}
	if len(s.delays) > 0 || len(s.busyRecv) > 0 {
		s.rng = rand.New(rand.NewPCG(opt.Seed, 0))
	}
	// Transfer candidates: highest priority first, then in submission order.
	s.cands = pqueue.New(func(a, b cand) bool { return s.before(a.n, b.n) })
	// Kind ids, in order of first appearance, and the largest flop count of
	// each kind.
	ids := map[string]int32{}
	var kinds []string
	var maxFlops []float64
	for i, nd := range g.Nodes {
		switch nd.Kind {
		case runtime.XferKind:
			s.kindID[i] = xferID
			continue
		case kind.Barrier:
			s.kindID[i] = barrierID
			continue
		}
		id, ok := ids[nd.Kind]
		if !ok {
			id = int32(len(kinds))
			ids[nd.Kind] = id
			kinds = append(kinds, nd.Kind)
			maxFlops = append(maxFlops, 0)
		}
		s.kindID[i] = id
		if nd.Flops > maxFlops[id] {
			maxFlops[id] = nd.Flops
		}
	}
	rg := c.RankGroups()
	s.ranks = make([]rankModel, g.Ranks)
	for r := range s.ranks {
		if err := s.ranks[r].build(c, rg[r], kinds); err != nil {
			return nil, err
		}
	}
	if err := s.coreWaits(opt); err != nil {
		return nil, err
	}
	for i, nd := range g.Nodes {
		if nd.Rank < 0 || nd.Rank >= g.Ranks {
			return nil, fmt.Errorf("sim: node %d (%s): rank %d out of [0, %d)", i, nd.Kind, nd.Rank, g.Ranks)
		}
		for _, d := range nd.Deps {
			if d < 0 || d >= i {
				return nil, fmt.Errorf("sim: node %d (%s): dependency %d is not an earlier node", i, nd.Kind, d)
			}
			s.succ[d] = append(s.succ[d], int32(i))
		}
		s.pending[i] = int32(len(nd.Deps))
		if id := s.kindID[i]; id == barrierID {
			continue
		} else if id < 0 {
			if nd.Src < 0 || nd.Src >= g.Ranks {
				return nil, fmt.Errorf("sim: node %d (transfer %s): source rank %d out of [0, %d)", i, nd.Handle, nd.Src, g.Ranks)
			}
			if nd.Src == nd.Rank {
				return nil, fmt.Errorf("sim: node %d (transfer %s): from rank %d to itself", i, nd.Handle, nd.Src)
			}
			if nd.Bytes < 0 {
				return nil, fmt.Errorf("sim: node %d (transfer %s): %d bytes", i, nd.Handle, nd.Bytes)
			}
			for _, r := range [2]int{nd.Src, nd.Rank} {
				if bw := s.ranks[r].bw; !(bw > 0) || math.IsInf(bw, 0) {
					return nil, fmt.Errorf("sim: node %d (transfer %s): rank %d (group %q) has no link bandwidth", i, nd.Handle, r, c.Groups[rg[r]].Name)
				}
			}
		} else {
			if !s.ranks[nd.Rank].runnable[id] {
				return nil, fmt.Errorf("sim: node %d (%s %v): rank %d (group %q) has no worker that can run %s",
					i, nd.Kind, nd.Tile, nd.Rank, c.Groups[rg[nd.Rank]].Name, nd.Kind)
			}
			s.scale[i] = 1
			if nd.Flops > 0 && maxFlops[id] > 0 {
				s.scale[i] = nd.Flops / maxFlops[id]
			}
		}
	}
	return s, nil
}

// coreWaits sets each rank's Options.Stretch and TaskWait.
func (s *simulator) coreWaits(opt Options) error {
	for _, o := range []struct {
		name string
		v    []float64
		min  float64
	}{{"stretch", opt.Stretch, 1}, {"task wait", opt.TaskWait, 0}} {
		if o.v != nil && len(o.v) != len(s.ranks) {
			return fmt.Errorf("sim: %d ranks, %d values of %s", len(s.ranks), len(o.v), o.name)
		}
		for r, x := range o.v {
			if !(x >= o.min) || math.IsInf(x, 0) {
				return fmt.Errorf("sim: rank %d: %s %g (want >= %g and finite)", r, o.name, x, o.min)
			}
		}
	}
	for r := range s.ranks {
		m := &s.ranks[r]
		m.stretch = 1
		if opt.Stretch != nil {
			m.stretch = opt.Stretch[r]
		}
		if opt.TaskWait != nil {
			m.taskWait = opt.TaskWait[r]
		}
	}
	return nil
}

// build sets up m as a node of group gi of c, with the durations of
// kinds (kind id order).
func (m *rankModel) build(c config.Cluster, gi int, kinds []string) error {
	gr := c.Groups[gi]
	m.group = gi
	for k, n := range gr.Workers() {
		m.workers[k] = max(n, 0)
	}
	m.bw, m.lat = gr.Link(c.Network)
	m.taskCPU = gr.TaskCPU
	m.runnable = make([]bool, len(kinds))
	for k, table := range gr.Tables() {
		m.dur[k] = make([]float64, len(kinds))
		for id, kind := range kinds {
			d := table[kind]
			if math.IsNaN(d) || math.IsInf(d, 0) || d < 0 {
				return fmt.Errorf("sim: group %q: %s duration of %s is %g", gr.Name, config.Resource(k), kind, d)
			}
			m.dur[k][id] = d
			if d > 0 && m.workers[k] > 0 {
				m.runnable[id] = true
			}
		}
		for range m.workers[k] {
			m.kindOf = append(m.kindOf, config.Resource(k))
		}
	}
	m.avail = make([]float64, len(m.kindOf))
	m.tent = make([]float64, len(m.kindOf))
	return nil
}

// before reports whether node a comes before node b in ready order:
// higher priority first, then submission order.
func (s *simulator) before(a, b int32) bool {
	pa, pb := s.g.Nodes[a].Priority, s.g.Nodes[b].Priority
	if pa != pb {
		return pa > pb
	}
	return a < b
}

// insert adds node n to the ordered ready list q.
func (s *simulator) insert(q []int32, n int32) []int32 {
	i := sort.Search(len(q), func(i int) bool { return s.before(n, q[i]) })
	return slices.Insert(q, i, n)
}

func (s *simulator) makeReady(n int32) {
	nd := &s.g.Nodes[n]
	if s.kindID[n] == barrierID { // ends at once
		s.start[n], s.end[n] = s.now, s.now
		s.push(s.now, n)
		return
	}
	if s.kindID[n] < 0 {
		s.xready[nd.Src] = s.insert(s.xready[nd.Src], n)
		s.xtouched = true
		return
	}
	m := &s.ranks[nd.Rank]
	m.ready = s.insert(m.ready, n)
	s.touched[nd.Rank] = true
}

func (s *simulator) push(t float64, n int32) {
	s.seq++
	s.events.Push(event{t: t, seq: s.seq, n: n})
}

func (s *simulator) run() {
	for i := range s.g.Nodes {
		if s.pending[i] == 0 {
			s.makeReady(int32(i))
		}
	}
	now := 0.0
	for {
		s.schedule(now)
		if s.events.Len() == 0 {
			return
		}
		now = s.events.Peek().t
		s.now = now
		for s.events.Len() > 0 && s.events.Peek().t == now {
			e := s.events.Pop()
			nd := &s.g.Nodes[e.n]
			if e.free { // links free; the transfer ends later
				s.xtouched = true
				continue
			}
			if id := s.kindID[e.n]; id == barrierID {
				// no resource frees
			} else if id < 0 {
				if !s.delayed && !e.again { // links free (with a delay: at their own event)
					s.xtouched = true
				}
				if m := &s.ranks[nd.Rank]; len(s.busyRecv) > 0 && !e.again && m.cpusBusy(now) {
					m.deferred = append(m.deferred, e.n) // completes once a CPU worker frees
					continue
				}
				s.charge(nd.Rank, nd.Bytes)
			} else {
				s.touched[nd.Rank] = true // a worker frees
				s.completeDeferred(nd.Rank, e.n, now)
			}
			for _, d := range s.succ[e.n] {
				if s.pending[d]--; s.pending[d] == 0 {
					s.makeReady(d)
				}
			}
		}
	}
}

// schedule starts, at time now, what can start: the transfers, then the
// tasks of each rank that needs a round, in rank order.
func (s *simulator) schedule(now float64) {
	if s.xtouched {
		s.xtouched = false
		s.startTransfers(now)
	}
	for r := range s.ranks {
		if s.touched[r] {
			s.touched[r] = false
			s.startTasks(r, now)
		}
	}
}

// startTransfers starts, at time now, the ready transfers whose two links
// are free, highest priority (then submission order) first over all
// senders. It considers, for each sender with a free link, its first ready
// transfer to a receiver with a free link, and starts the best of these
// candidates, until none is left: the same choice as a scan of all ready
// transfers in order, without scanning the queues of busy senders.
func (s *simulator) startTransfers(now float64) {
	h := s.cands
	h.Reset()
	// next pushes the first transfer of src's queue from position from on
	// whose receiver's link is free.
	next := func(src, from int) {
		q := s.xready[src]
		for i := from; i < len(q); i++ {
			if n := q[i]; n >= 0 && s.ranks[s.g.Nodes[n].Rank].inFree <= now {
				h.Push(cand{n: n, src: src, pos: i})
				return
			}
		}
	}
	for src := range s.ranks {
		if len(s.xready[src]) > 0 && s.ranks[src].outFree <= now {
			next(src, 0)
		}
	}
	started := false
	for h.Len() > 0 {
		c := h.Pop()
		nd := &s.g.Nodes[c.n]
		src, dst := &s.ranks[c.src], &s.ranks[nd.Rank]
		if dst.inFree > now { // taken by a better candidate in this round
			next(c.src, c.pos+1)
			continue
		}
		d := math.Max(src.lat, dst.lat) + float64(nd.Bytes)/math.Min(src.bw, dst.bw)
		s.start[c.n], s.end[c.n], s.linkEnd[c.n] = now, now+d+s.messageDelay(), now+d
		src.outFree, dst.inFree = now+d, now+d
		s.push(s.end[c.n], c.n)
		if s.delayed {
			s.seq++
			s.events.Push(event{t: now + d, seq: s.seq, n: c.n, free: true})
		}
		s.charge(c.src, nd.Bytes)
		s.xready[c.src][c.pos] = -1
		started = true
		if d == 0 { // an empty message leaves the links free
			next(c.src, c.pos+1)
		}
	}
	if started {
		for src, q := range s.xready {
			s.xready[src] = slices.DeleteFunc(q, func(n int32) bool { return n < 0 })
		}
	}
}

// messageDelay returns the delay of the next transfer to start
// (Options.MessageDelay, or a draw from Options.MessageDelays).
func (s *simulator) messageDelay() float64 {
	if len(s.delays) == 0 {
		return s.delay
	}
	return s.delays[s.rng.IntN(len(s.delays))]
}

// cpusBusy reports whether the rank has CPU workers and all of them run a
// task at time now.
func (m *rankModel) cpusBusy(now float64) bool {
	if m.workers[config.CPU] == 0 {
		return false
	}
	for w := range m.workers[config.CPU] {
		if m.avail[w] <= now {
			return false
		}
	}
	return true
}

// completeDeferred completes the transfers that arrived at rank r while
// its CPU workers were busy, when task n, on one of them, ends at now:
// each a draw from Options.BusyReceives later.
func (s *simulator) completeDeferred(r int, n int32, now float64) {
	m := &s.ranks[r]
	if len(m.deferred) == 0 || m.kindOf[s.worker[n]] != config.CPU {
		return
	}
	for _, x := range m.deferred {
		s.end[x] = now + s.busyRecv[s.rng.IntN(len(s.busyRecv))]
		s.seq++
		s.events.Push(event{t: s.end[x], seq: s.seq, n: x, again: true})
	}
	m.deferred = m.deferred[:0]
}

// charge adds the CPU time of a message of b bytes to rank r's debt.
func (s *simulator) charge(r, b int) {
	c := s.msgCPU + s.byteCPU*float64(b)
	s.ranks[r].debt += c
}

// cand is a transfer that startTransfers may start: node n, at position pos
// of the queue of sender src.
type cand struct {
	n        int32
	src, pos int
}

// startTasks runs a scheduling round of rank r at time now (see the package
// documentation). The workers of one type are interchangeable, so a task's
// best worker of type k is its lowest-numbered idle one, or, when all are
// busy, the one free first (tentatively, counting the tasks already waiting
// for it in this round): the round costs O(workers of a type) per task
// started or waiting, not O(all workers) per task considered.
func (s *simulator) startTasks(r int, now float64) {
	m := &s.ranks[r]
	if len(m.ready) == 0 {
		return
	}
	// Per type: idle workers, and the busy worker free first.
	var idleK [config.NumResources]int
	var minW [config.NumResources]int
	lo := [config.NumResources + 1]int{0, m.workers[config.CPU], m.workers[config.CPU] + m.workers[config.GPU]}
	idle := 0
	for w, a := range m.avail {
		m.tent[w] = a
		if a <= now {
			idleK[m.kindOf[w]]++
			idle++
		}
	}
	if idle == 0 {
		return
	}
	first := func(k config.Resource) { // the busy worker of type k free first
		minW[k] = lo[k]
		for w := lo[k] + 1; w < lo[k+1]; w++ {
			if m.tent[w] < m.tent[minW[k]] {
				minW[k] = w
			}
		}
	}
	for k := range config.NumResources {
		if m.workers[k] > 0 && idleK[k] == 0 {
			first(k)
		}
	}
	kept := m.ready[:0]
	for i, n := range m.ready {
		if idle == 0 {
			kept = append(kept, m.ready[i:]...)
			break
		}
		id := s.kindID[n]
		bestK, bestEnd, bestDur := config.Resource(-1), math.Inf(1), 0.0
		for k := range config.NumResources {
			d := m.dur[k][id]
			if d == 0 || m.workers[k] == 0 {
				continue
			}
			d *= s.scale[n]
			if k == config.CPU {
				d = d*m.stretch + m.taskCPU + m.taskWait
			}
			start := now
			if idleK[k] == 0 {
				start = m.tent[minW[k]]
			}
			if end := start + d; end < bestEnd {
				bestK, bestEnd, bestDur = k, end, d
			}
		}
		k := bestK
		if idleK[k] > 0 {
			w := lo[k]
			for m.avail[w] > now {
				w++
			}
			if k == config.CPU { // the messages' CPU time since the last start
				bestEnd += m.debt
				m.rtCPU += m.taskCPU + m.debt
				m.debt = 0
			}
			m.avail[w], m.tent[w] = bestEnd, bestEnd
			idleK[k]--
			idle--
			if idleK[k] == 0 {
				first(k)
			}
			s.start[n], s.end[n], s.worker[n] = now, bestEnd, int32(w)
			s.push(bestEnd, n)
			continue
		}
		// Wait for the busy worker that finishes it first.
		m.tent[minW[k]] += bestDur
		first(k)
		kept = append(kept, n)
	}
	m.ready = kept
}

func (s *simulator) result(c config.Cluster, opt Options) *Result {
	g := s.g
	res := &Result{Kinds: map[string]KindStats{}, Ranks: make([]RankStats, g.Ranks), Groups: make([]GroupStats, len(c.Groups))}
	for i, gr := range c.Groups {
		res.Groups[i] = GroupStats{Name: gr.Name, Nodes: gr.Nodes}
	}
	for r := range res.Ranks {
		m := &s.ranks[r]
		res.Ranks[r] = RankStats{Rank: r, Group: c.Groups[m.group].Name, RuntimeCPU: m.rtCPU}
		for k := range config.NumResources {
			res.Ranks[r].use(k).Workers = m.workers[k]
			res.Groups[m.group].use(k).Workers += m.workers[k]
		}
	}
	for i := range g.Nodes {
		nd := &g.Nodes[i]
		if s.kindID[i] == barrierID {
			continue
		}
		res.Makespan = math.Max(res.Makespan, s.end[i])
		ev := trace.Event{Kind: nd.Kind, Tile: nd.Tile, Rank: nd.Rank, Flops: nd.Flops, Iter: nd.Iter,
			Start: ns(s.start[i]), End: ns(s.end[i]), Priority: nd.Priority}
		if opt.TraceTransfers || s.kindID[i] >= 0 {
			ready := 0.0 // when the last dependency ended
			for _, d := range nd.Deps {
				ready = math.Max(ready, s.end[d])
			}
			ev.Ready = ns(ready)
		}
		d := s.end[i] - s.start[i]
		if s.kindID[i] < 0 {
			res.Messages++
			res.Bytes += int64(nd.Bytes)
			src, dst := &res.Ranks[nd.Src], &res.Ranks[nd.Rank]
			src.MessagesSent++
			src.BytesSent += int64(nd.Bytes)
			dst.MessagesReceived++
			dst.BytesReceived += int64(nd.Bytes)
			gs := &res.Groups[s.ranks[nd.Src].group]
			gs.MessagesSent++
			gs.BytesSent += int64(nd.Bytes)
			if opt.TraceTransfers {
				ev.Worker, ev.Tile, ev.Priority = -1, [3]int{-1, -1, -1}, 0
				ev.Src, ev.Dst, ev.Handle, ev.Bytes = nd.Src, nd.Rank, nd.Handle, int64(nd.Bytes)
				res.Events = append(res.Events, ev)
			}
			continue
		}
		m := &s.ranks[nd.Rank]
		k := m.kindOf[s.worker[i]]
		res.Tasks++
		for _, u := range []*Use{res.Ranks[nd.Rank].use(k), res.Groups[m.group].use(k)} {
			u.Tasks++
			u.Busy += d
		}
		ks := res.Kinds[nd.Kind]
		ks.Count++
		if k == config.GPU {
			ks.GPU++
		} else {
			ks.CPU++
		}
		ks.Busy += d
		res.Kinds[nd.Kind] = ks
		ev.Worker, ev.Resource = int(s.worker[i]), "cpu"
		if k == config.GPU {
			ev.Resource = "gpu"
		}
		res.Events = append(res.Events, ev)
	}
	util := func(u *Use) {
		if u.Workers > 0 && res.Makespan > 0 {
			u.Utilisation = u.Busy / (res.Makespan * float64(u.Workers))
		}
	}
	for r := range res.Ranks {
		util(&res.Ranks[r].CPU)
		util(&res.Ranks[r].GPU)
	}
	for i := range res.Groups {
		util(&res.Groups[i].CPU)
		util(&res.Groups[i].GPU)
	}
	trace.Sort(res.Events)
	return res
}

// ns converts seconds to the trace's integer nanoseconds.
func ns(t float64) int64 { return int64(math.Round(t * 1e9)) }
