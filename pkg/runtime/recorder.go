package runtime

import (
	"sort"

	"github.com/exageostat/exageostat/pkg/kind"
)

// recorder builds the Graph of Options.Record: the tasks of every rank, with
// the dependencies and messages each rank's runtime would create, and the
// tile memory each rank would hold in program order.
type recorder struct {
	size    int
	g       Graph
	state   map[*Handle]*recState
	traffic map[TrafficKey]Traffic
	mem     []RankMemory
	live    []int64 // per rank: bytes of copies held now
	replica []int64 // per rank: of which on a rank other than the owner
	phase   string  // phase of the last node recorded
	// fence is the last barrier node (-1: none): every node recorded
	// after it depends on it; since is the first node after it.
	fence, since int
}

type recState struct {
	dist distState
	deps []depState[int] // per rank: the hazards of its copy
	has  []bool          // per rank: holds a buffer
}

func newRecorder(size int) *recorder {
	rc := &recorder{size: size, g: Graph{Ranks: size}, state: map[*Handle]*recState{}, traffic: map[TrafficKey]Traffic{},
		mem: make([]RankMemory, size), live: make([]int64, size), replica: make([]int64, size), fence: -1}
	for q := range rc.mem {
		rc.mem[q] = RankMemory{Rank: q, PeakByPhase: map[string]int64{}}
	}
	return rc
}

func (rc *recorder) owner(h *Handle) int { return min(h.owner, rc.size-1) }

func (rc *recorder) get(h *Handle) *recState {
	s := rc.state[h]
	if s == nil {
		s = &recState{deps: make([]depState[int], rc.size), has: make([]bool, rc.size)}
		s.dist.setup(rc.owner(h), rc.size)
		rc.state[h] = s
	}
	return s
}

func (rc *recorder) register(h *Handle) {
	rc.mem[rc.owner(h)].Owned += bytesOf(h.words)
}

// alloc and free model the buffer of h's copy on rank q, as the runtime
// allocates and releases it; phase is that of the node being recorded.
func (rc *recorder) alloc(h *Handle, s *recState, q int, phase string) {
	if s.has[q] || h.format == nil {
		return
	}
	s.has[q] = true
	b := bytesOf(h.words)
	rc.live[q] += b
	if q != rc.owner(h) {
		rc.replica[q] += b
	}
	m := &rc.mem[q]
	m.Peak = max(m.Peak, rc.live[q])
	m.PeakReplicas = max(m.PeakReplicas, rc.replica[q])
	m.PeakByPhase[phase] = max(m.PeakByPhase[phase], rc.live[q])
}

func (rc *recorder) free(h *Handle, s *recState, q int) {
	if !s.has[q] {
		return
	}
	s.has[q] = false
	b := bytesOf(h.words)
	rc.live[q] -= b
	if q != rc.owner(h) {
		rc.replica[q] -= b
	}
}

// access adds node id's dependencies for mode on h's copy on rank q.
func (rc *recorder) access(id int, s *recState, q int, mode Mode) {
	nd := &rc.g.Nodes[id]
	nd.Deps = s.deps[q].access(id, mode, nd.Deps)
}

// xfer records the message that brings h's latest version (state s) from
// its home to rank dst for a reader of kind reader (tile and priority are
// the reader's).
func (rc *recorder) xfer(r *Runtime, h *Handle, s *recState, dst int, reader string, tile [3]int, prio int) {
	src := s.dist.home
	if src < 0 {
		panic("runtime: " + h.name + " is read after Invalidate, before any task wrote it")
	}
	id := len(rc.g.Nodes)
	rc.g.Nodes = append(rc.g.Nodes, Node{Kind: XferKind, Tile: tile, Rank: dst, Src: src,
		Bytes: 8 * h.words, Iter: r.iter, Handle: h.name, Priority: prio})
	rc.fenced(id)
	rc.access(id, s, src, R)
	rc.access(id, s, dst, W)
	rc.alloc(h, s, dst, kind.Phase(reader))
	x := &rc.g.Nodes[id]
	sort.Ints(x.Deps)
	x.Deps = compactInts(x.Deps)
	s.dist.add(dst)
	count(rc.traffic, TrafficKey{Src: src, Dst: dst, Writer: s.dist.lastKind, Reader: reader}, h.words)
}

func (rc *recorder) submit(r *Runtime, t Task) {
	e := execRank(&t)
	if !t.Pin {
		e = min(e, rc.size-1)
	}
	r.checkRank(e, &t)
	phase := kind.Phase(t.Kind)
	if phase != rc.phase {
		// A rank holds what it holds in every phase, whether it runs
		// tasks of that phase or not.
		rc.phase = phase
		for q := range rc.mem {
			rc.mem[q].PeakByPhase[phase] = max(rc.mem[q].PeakByPhase[phase], rc.live[q])
		}
	}
	for _, a := range t.Access {
		if a.Mode&R == 0 || a.Mode == Scratch {
			continue
		}
		s := rc.get(a.H)
		if !s.dist.has(e) {
			rc.xfer(r, a.H, s, e, t.Kind, t.Tile, t.Priority)
		}
	}
	id := len(rc.g.Nodes)
	rc.g.Nodes = append(rc.g.Nodes, Node{Kind: t.Kind, Tile: t.Tile, Priority: t.Priority, Flops: t.Flops,
		Rank: e, Src: -1, Iter: r.iter})
	rc.fenced(id)
	for _, a := range t.Access {
		if a.Mode == Scratch {
			continue
		}
		h := a.H
		s := rc.get(h)
		rc.access(id, s, e, a.Mode)
		if a.Mode&W == 0 {
			continue
		}
		rc.alloc(h, s, e, phase)
		for q := 0; q < rc.size; q++ {
			if q != e && q != rc.owner(h) {
				rc.free(h, s, q)
			}
		}
		s.dist.written(e, t.Kind)
	}
	nd := &rc.g.Nodes[id]
	sort.Ints(nd.Deps)
	nd.Deps = compactInts(nd.Deps)
	m := &rc.mem[e]
	m.PeakByPhase[phase] = max(m.PeakByPhase[phase], rc.live[e])
}

// fenced makes node id depend on the last barrier.
func (rc *recorder) fenced(id int) {
	if rc.fence >= 0 {
		rc.g.Nodes[id].Deps = append(rc.g.Nodes[id].Deps, rc.fence)
	}
}

// barrier records Runtime.Barrier: a node of kind Barrier on rank 0 that
// depends on the previous barrier and every node since, and on which
// every later node depends: nothing after it starts before everything
// before it has ended.
func (rc *recorder) barrier(r *Runtime) {
	id := len(rc.g.Nodes)
	deps := make([]int, 0, id-rc.since+1)
	if rc.fence >= 0 {
		deps = append(deps, rc.fence)
	}
	for i := rc.since; i < id; i++ {
		deps = append(deps, i)
	}
	rc.g.Nodes = append(rc.g.Nodes, Node{Kind: kind.Barrier, Tile: [3]int{-1, -1, -1}, Src: -1, Iter: r.iter, Deps: deps})
	rc.fence, rc.since = id, id+1
}

// flush records Flush (all false) or Invalidate (all true) of h.
func (rc *recorder) flush(h *Handle, all bool) {
	s := rc.get(h)
	for q := 0; q < rc.size; q++ {
		if all || (q != s.dist.home && q != rc.owner(h)) {
			rc.free(h, s, q)
		}
	}
	if all {
		s.dist.invalidate()
	} else {
		s.dist.flush()
	}
}

func compactInts(x []int) []int {
	if len(x) < 2 {
		return x
	}
	j := 1
	for i := 1; i < len(x); i++ {
		if x[i] != x[j-1] {
			x[j] = x[i]
			j++
		}
	}
	return x[:j]
}

// Graph returns the graph recorded since the last call (Options.Record) and
// starts a new one; handles keep their location records. Its Memory holds
// the peaks since the previous call.
func (r *Runtime) Graph() *Graph {
	if r.rec == nil {
		return nil
	}
	rc := r.rec
	g := rc.g
	g.Memory = rc.mem
	rc.g = Graph{Ranks: rc.size}
	rc.mem = make([]RankMemory, rc.size)
	for q := range rc.mem {
		rc.mem[q] = RankMemory{Rank: q, Owned: g.Memory[q].Owned, Peak: rc.live[q], PeakReplicas: rc.replica[q],
			PeakByPhase: map[string]int64{}}
	}
	return &g
}
