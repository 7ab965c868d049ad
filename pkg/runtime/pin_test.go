package runtime

import (
	"slices"
	"sync"
	"testing"

	"github.com/exageostat/exageostat/pkg/topology"
)

// TestPinned: each worker runs on its OS thread pinned to its CPU of
// Options.Pin (its tasks see that CPU alone in their affinity), and a
// machine of two NUMA nodes (planted: the two CPUs on nodes 0 and 1, the
// placement recorded instead of made) gets each worker's new buffers
// placed on its node; the threads get their affinity back at Close.
func TestPinned(t *testing.T) {
	mask, err := topology.Affinity()
	if err != nil {
		t.Fatal(err)
	}
	cpus := []topology.CPU{{ID: mask[0], Node: 0}, {ID: mask[len(mask)-1], Node: 1}}
	var mu sync.Mutex
	placed := map[*float64]int{}
	bind := func(b []float64, node int) error {
		mu.Lock()
		placed[&b[:1][0]] = node
		mu.Unlock()
		return nil
	}
	rt := New(Options{Workers: 2, Pin: cpus, NUMA: 2, Bind: bind})
	bad := make(chan string, 100)
	const n = 40
	hs := make([]*Handle, n)
	for i := range hs {
		hs[i] = rt.Register("v", 0, Vector{N: 64})
		rt.Submit(Task{Kind: "w", Access: []Access{{hs[i], W}}, Run: func(c Context) error {
			got, err := topology.Affinity()
			if err != nil || !slices.Equal(got, []int{cpus[c.Worker].ID}) {
				bad <- "worker affinity"
			}
			mu.Lock()
			node, ok := placed[&c.Buffer(0)[0]]
			mu.Unlock()
			if !ok || node != cpus[c.Worker].Node {
				bad <- "buffer node"
			}
			return nil
		}})
	}
	if err := rt.Close(); err != nil {
		t.Fatal(err)
	}
	close(bad)
	for s := range bad {
		t.Errorf("a task found a wrong %s", s)
	}
	if p, f := rt.Pinned(); p != 2 || f != 0 {
		t.Errorf("pinned %d, failed %d; want 2, 0", p, f)
	}
	if got, _ := topology.Affinity(); !slices.Equal(got, mask) {
		t.Errorf("this thread's affinity %v, want %v", got, mask)
	}
}

// TestPoolNodes: on two nodes, a buffer returns to its node's free list, a
// request takes its node's buffer first and another node's only when its
// own has none, and reserve spreads over the nodes.
func TestPoolNodes(t *testing.T) {
	p := newPool()
	placed := map[*float64]int{}
	p.nodes, p.home = 2, map[*float64]int{}
	p.bind = func(b []float64, node int) error { placed[&b[:1][0]] = node; return nil }
	a0, a1 := p.getOn(100, 0), p.getOn(100, 1)
	if placed[&a0[0]] != 0 || placed[&a1[0]] != 1 {
		t.Fatalf("placed %v", placed)
	}
	p.put(a0)
	p.put(a1)
	b1, b2 := p.getOn(100, 1), p.getOn(100, 1)
	if &b1[0] != &a1[0] || &b2[0] != &a0[0] {
		t.Error("node 1 did not get its own buffer back first, then node 0's")
	}
	p.put(b1)
	p.put(b2)
	if p.allocs.Load() != 2 {
		t.Errorf("%d allocations, want 2", p.allocs.Load())
	}
	p.reserve(50, 4)
	if len(p.free[freeKey{50, 0}]) != 2 || len(p.free[freeKey{50, 1}]) != 2 {
		t.Errorf("reserve: free lists %v", p.free)
	}
	p.trim()
	if len(p.home) != 0 {
		t.Errorf("trim left %d buffers' nodes", len(p.home))
	}
}
