package runtime

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/trace"
)

func TestFormats(t *testing.T) {
	lr := LowRank{M: 5, N: 4, MaxRank: 3}
	buf := make([]float64, lr.Words())
	u, v := lr.Factors(buf, 2)
	for i := range u {
		u[i] = float64(i + 1)
	}
	for i := range v {
		v[i] = -float64(i + 1)
	}
	// A low-rank format that can hold its tile dense (5*4 <= 9*3).
	lrDense := LowRank{M: 5, N: 4, MaxRank: 3}
	dbuf := make([]float64, lrDense.Words())
	lrDense.SetDense(dbuf)
	cases := []struct {
		f         Format
		buf       []float64
		words     int // Words()
		packed    int // len(Pack(buf))
		badLength int // a message length Unpack must refuse
	}{
		{Dense{M: 3, N: 2}, make([]float64, 6), 6, 6, 5},
		{Vector{N: 7}, make([]float64, 7), 7, 7, 8},
		{Scalar{}, make([]float64, 1), 1, 1, 0},
		{Single{M: 3, N: 3}, make([]float64, 5), 5, 5, 9},
		{lr, buf, 1 + 9*3, 1 + 9*2, 1 + 9*3},
		{lrDense, dbuf, 1 + 9*3, 1 + 5*4, 1 + 9*2},
	}
	for _, c := range cases {
		t.Run(c.f.String(), func(t *testing.T) {
			if c.f.Words() != c.words {
				t.Fatalf("Words() = %d, want %d", c.f.Words(), c.words)
			}
			p := c.f.Pack(c.buf)
			if len(p) != c.packed {
				t.Fatalf("Pack carries %d words, want %d", len(p), c.packed)
			}
			if err := c.f.Unpack(c.buf, len(p)); err != nil {
				t.Fatalf("Unpack of its own message: %v", err)
			}
			if err := c.f.Unpack(c.buf, c.badLength); err == nil {
				t.Fatalf("Unpack accepted %d words", c.badLength)
			}
		})
	}
	bad := make([]float64, lr.Words())
	bad[0] = 4 // above MaxRank
	if err := lr.Unpack(bad, 1+9*4); err == nil {
		t.Fatal("Unpack accepted a rank above MaxRank")
	}
	small := LowRank{M: 5, N: 4, MaxRank: 2} // 20 > 9*2: cannot hold it dense
	bad[0] = -1
	if err := small.Unpack(bad, 1+20); err == nil {
		t.Fatal("Unpack accepted a dense tile in a format that cannot hold it")
	}
	if lr.Rank(dbuf) != -1 || !lr.IsDense(dbuf) || lr.IsDense(buf) {
		t.Fatalf("Rank/IsDense: %d %v %v", lr.Rank(dbuf), lr.IsDense(dbuf), lr.IsDense(buf))
	}
}

// TestLowRankMessageCarriesRank: a low-rank tile travels with its current
// rank's words, not its largest size.
func TestLowRankMessageCarriesRank(t *testing.T) {
	f := LowRank{M: 50, N: 40, MaxRank: 20}
	sent := make([]int64, 2)
	got := make([][]float64, 2)
	runRanks(t, 2, func(c comm.Comm) {
		rt := New(Options{Workers: 2, Comm: c})
		defer rt.Close()
		h := rt.Register("L", 0, f)
		out := rt.Register("out", 1, Vector{N: 2})
		for round, k := range []int{3, 7} {
			rt.Submit(Task{Kind: "compress", Access: []Access{{H: h, Mode: W}}, Run: func(ctx Context) error {
				u, v := f.Factors(ctx.Buffer(0), k)
				for i := range u {
					u[i] = float64(i)
				}
				for i := range v {
					v[i] = 1
				}
				return nil
			}})
			rt.Submit(Task{Kind: "use", Access: []Access{{H: h, Mode: R}, {H: out, Mode: W}}, Run: func(ctx Context) error {
				b := ctx.Buffer(0)
				u, _ := f.Factors(b, f.Rank(b))
				ctx.Vector(1)[0] = float64(f.Rank(b))
				ctx.Vector(1)[1] = u[len(u)-1]
				return nil
			}})
			rt.Fetch(out)
			if err := rt.Wait(); err != nil {
				t.Error(err)
				return
			}
			if round == 0 {
				sent[c.Rank()] = rt.SentBytes()
			}
		}
		got[c.Rank()] = append([]float64(nil), rt.Local(out)...)
		sent[c.Rank()] = rt.SentBytes() - sent[c.Rank()] + sent[c.Rank()]
	})
	// Rank 0 sent the rank-3 then the rank-7 factors: (1 + 90*3) + (1 + 90*7) words.
	if want := int64(8 * ((1 + 90*3) + (1 + 90*7))); sent[0] != want {
		t.Errorf("rank 0 sent %d bytes, want %d (the factors of ranks 3 and 7)", sent[0], want)
	}
	if want := []float64{7, 50*7 - 1}; fmt.Sprint(got[0]) != fmt.Sprint(want) {
		t.Errorf("rank 1 read %v, want %v", got[0], want)
	}
}

func TestBuffersThroughContext(t *testing.T) {
	rt := New(Options{Workers: 2})
	defer rt.Close()
	a := rt.Register("a", 0, Dense{M: 4, N: 3})
	var seen []float64
	rt.Submit(Task{Kind: "w", Access: []Access{{H: a, Mode: W}}, Run: func(c Context) error {
		if n := len(c.Dense(0)); n != 12 {
			return fmt.Errorf("buffer of %d words", n)
		}
		for i := range c.Dense(0) {
			c.Dense(0)[i] = float64(i)
		}
		return nil
	}})
	rt.Submit(Task{Kind: "rw", Access: []Access{{H: a, Mode: RW}}, Run: func(c Context) error {
		c.Dense(0)[11] += 100
		return nil
	}})
	rt.Submit(Task{Kind: "r", Access: []Access{{H: a, Mode: R}}, Run: func(c Context) error {
		seen = append(seen, c.Dense(0)...)
		return nil
	}})
	if err := rt.Wait(); err != nil {
		t.Fatal(err)
	}
	if seen[0] != 0 || seen[11] != 111 || len(seen) != 12 {
		t.Fatalf("reader saw %v", seen)
	}
	if m := rt.Mem(); m.InUse != 8*12 || m.Allocs != 1 {
		t.Fatalf("one 4x3 tile: %+v", m)
	}
	// A float32 tile takes half the words and reads back as float32.
	sg := rt.Register("s", 0, Single{M: 3, N: 3})
	var single []float32
	rt.Submit(Task{Kind: "w", Access: []Access{{H: sg, Mode: W}}, Run: func(c Context) error {
		for i := range c.Single(0) {
			c.Single(0)[i] = float32(i) / 3
		}
		return nil
	}})
	rt.Submit(Task{Kind: "r", Access: []Access{{H: sg, Mode: R}}, Run: func(c Context) error {
		single = append(single, c.Single(0)...)
		return nil
	}})
	if err := rt.Wait(); err != nil || len(single) != 9 || single[8] != float32(8)/3 || len(rt.Local(sg)) != 5 {
		t.Fatalf("float32 tile: %v %v (%d words)", err, single, len(rt.Local(sg)))
	}
	// Reading data nobody wrote is an error naming the handle.
	b := rt.Register("never", 0, Vector{N: 2})
	rt.Submit(Task{Kind: "r", Tile: [3]int{1, -1, -1}, Access: []Access{{H: b, Mode: R}}, Run: func(Context) error { return nil }})
	err := rt.Wait()
	if !errors.Is(err, ErrUnwritten) || !strings.Contains(err.Error(), "task r(1): never reads data that was never written") {
		t.Fatalf("got %v", err)
	}
	// A task using the wrong accessor for a format fails, it does not
	// corrupt memory.
	rt.Submit(Task{Kind: "bad", Access: []Access{{H: a, Mode: R}}, Run: func(c Context) error { c.Vector(0); return nil }})
	if err := rt.Wait(); !errors.Is(err, ErrPanic) {
		t.Fatalf("dense tile read as a vector: %v", err)
	}
}

func TestScratchAndInvalidate(t *testing.T) {
	rt := New(Options{Workers: 2})
	defer rt.Close()
	s := rt.Register("scratch", 0, Dense{M: 10, N: 10})
	hs := make([]*Handle, 3)
	var calls atomic.Int32
	for i := range hs {
		hs[i] = rt.Register(fmt.Sprint("h", i), 0, Vector{N: 5})
		rt.Submit(Task{Kind: "w", Access: []Access{{H: hs[i], Mode: W}, {H: s, Mode: Scratch}}, Run: func(c Context) error {
			if len(c.Dense(1)) != 100 {
				return fmt.Errorf("scratch of %d words", len(c.Dense(1)))
			}
			calls.Add(1)
			copy(c.Vector(0), c.Dense(1)[:5])
			return nil
		}})
	}
	rt.Invalidate(hs[0])
	rt.Invalidate(hs[1])
	if err := rt.Wait(); err != nil {
		t.Fatal(err)
	}
	m := rt.Mem()
	// h2 and the scratch buffers of the workers that ran a task remain.
	if calls.Load() != 3 || m.InUse < 8*(5+100) || m.InUse > 8*(5+2*100) || m.Peak < m.InUse {
		t.Fatalf("after invalidating 2 of 3 vectors: %+v", m)
	}
	if rt.Local(hs[0]) != nil || rt.Local(hs[2]) == nil {
		t.Fatal("an invalidated handle still has a buffer, or a valid one lost it")
	}
}

// TestReplicasFreed: a replica on a rank that is not the owner goes back to
// the pool after its last reader once flushed; a tile generated on a rank
// for its owner is freed there once sent and written by the owner.
func TestReplicasFreed(t *testing.T) {
	const words = 1000
	type rankMem struct{ inUse, replicas, peakReplicas int64 }
	mem := make([]rankMem, 2)
	runRanks(t, 2, func(c comm.Comm) {
		rt := New(Options{Workers: 2, Comm: c})
		defer rt.Close()
		a := rt.Register("a", 0, Vector{N: words})
		acc := rt.Register("acc", 1, Scalar{})
		g := rt.Register("g", 1, Vector{N: words})
		rt.Submit(Task{Kind: "w", Access: []Access{{H: a, Mode: W}}, Run: func(c Context) error {
			c.Vector(0)[0] = 1
			return nil
		}})
		rt.Submit(Task{Kind: "init", Access: []Access{{H: acc, Mode: W}}, Run: func(c Context) error { *c.Scalar(0) = 0; return nil }})
		for i := 0; i < 4; i++ {
			rt.Submit(Task{Kind: "r", Access: []Access{{H: a, Mode: R}, {H: acc, Mode: RW}}, Run: func(c Context) error {
				*c.Scalar(1) += c.Vector(0)[0]
				return nil
			}})
		}
		rt.Flush(a)
		// Generated on rank 0 for rank 1, then updated by its owner.
		rt.Submit(Task{Kind: "gen", Access: []Access{{H: g, Mode: W}}, Pin: true, Rank: 0, Run: func(c Context) error {
			c.Vector(0)[0] = 2
			return nil
		}})
		rt.Submit(Task{Kind: "upd", Access: []Access{{H: g, Mode: RW}}, Run: func(c Context) error {
			c.Vector(0)[0]++
			return nil
		}})
		if err := rt.Wait(); err != nil {
			t.Error(err)
			return
		}
		m := rt.Mem()
		mem[c.Rank()] = rankMem{m.InUse, m.Replicas, m.PeakReplicas}
		if c.Rank() == 1 && (rt.Local(acc)[0] != 4 || rt.Local(g)[0] != 3) {
			t.Errorf("rank 1: acc %v g %v", rt.Local(acc), rt.Local(g))
		}
	})
	// Rank 0 keeps a (owner) and has given back g; rank 1 keeps acc and g
	// and has given back its replica of a.
	if m := mem[0]; m.inUse != 8*words || m.replicas != 0 || m.peakReplicas != 8*words {
		t.Errorf("rank 0: %+v, want %d bytes in use, no replica left, a peak of one replica", m, 8*words)
	}
	if m := mem[1]; m.inUse != 8*(words+1) || m.replicas != 0 || m.peakReplicas != 8*words {
		t.Errorf("rank 1: %+v, want %d bytes in use, no replica left, a peak of one replica", m, 8*(words+1))
	}
}

// TestReplicaBudgetBoundsMemory: rank 0 produces many tiles at once, rank
// 1 reads them one after the other, slowly; with a budget of two tiles
// rank 1 never holds more than the budget plus the tile it is reading.
func TestReplicaBudgetBoundsMemory(t *testing.T) {
	const words, tiles = 4096, 12
	peaks := make([]int64, 2)
	runRanks(t, 2, func(c comm.Comm) {
		rt := New(Options{Workers: 2, Comm: c, ReplicaBudget: 2 * 8 * words})
		defer rt.Close()
		acc := rt.Register("acc", 1, Scalar{})
		rt.Submit(Task{Kind: "init", Access: []Access{{H: acc, Mode: W}}, Run: func(c Context) error { *c.Scalar(0) = 0; return nil }})
		hs := make([]*Handle, tiles)
		for i := range hs {
			hs[i] = rt.Register(fmt.Sprint("t", i), 0, Vector{N: words})
			rt.Submit(Task{Kind: "w", Access: []Access{{H: hs[i], Mode: W}}, Priority: 10, Run: func(c Context) error {
				c.Vector(0)[0] = float64(i)
				return nil
			}})
		}
		for i, h := range hs {
			rt.Submit(Task{Kind: "r", Access: []Access{{H: h, Mode: R}, {H: acc, Mode: RW}}, Run: func(c Context) error {
				time.Sleep(2 * time.Millisecond)
				*c.Scalar(1) += c.Vector(0)[0]
				return nil
			}})
			rt.Flush(hs[i])
		}
		rt.Fetch(acc)
		if err := rt.Wait(); err != nil {
			t.Error(err)
			return
		}
		if v := rt.Local(acc)[0]; v != tiles*(tiles-1)/2 {
			t.Errorf("rank %d: sum %v", c.Rank(), v)
		}
		peaks[c.Rank()] = rt.Mem().PeakReplicas
	})
	if peaks[1] > 3*8*words || peaks[1] < 8*words {
		t.Fatalf("rank 1 held up to %d bytes of replicas, want between one tile and the budget plus one (%d)", peaks[1], 3*8*words)
	}
}

// TestRecordedMemory: the recorder's program-order memory of a small
// two-rank program, counted by hand.
func TestRecordedMemory(t *testing.T) {
	rt := New(Options{Record: true, Ranks: 2})
	a := rt.Register("a", 0, Vector{N: 100}) // 800 bytes, rank 0
	b := rt.Register("b", 1, Vector{N: 50})  // 400 bytes, rank 1
	w := rt.Register("w", 1, Vector{N: 25})  // 200 bytes, rank 1
	noop := func(Context) error { return nil }
	rt.Submit(Task{Kind: "dcmg", Access: []Access{{H: a, Mode: W}}, Run: noop})
	rt.Submit(Task{Kind: "dcmg", Access: []Access{{H: b, Mode: W}}, Run: noop})
	rt.Submit(Task{Kind: "potrf", Access: []Access{{H: a, Mode: R}, {H: b, Mode: RW}}, Run: noop}) // a -> rank 1
	rt.Submit(Task{Kind: "trtri", Access: []Access{{H: b, Mode: R}, {H: w, Mode: W}}, Run: noop})
	rt.Flush(a)                                                                                  // rank 1's replica of a goes
	rt.Invalidate(w)                                                                             // w goes
	rt.Submit(Task{Kind: "dot", Access: []Access{{H: b, Mode: R}, {H: a, Mode: RW}}, Run: noop}) // b -> rank 0
	g := rt.Graph()
	want := []RankMemory{
		{Rank: 0, Owned: 800, Peak: 1200, PeakReplicas: 400, PeakByPhase: map[string]int64{"generation": 800, "cholesky": 800, "solve": 1200}},
		{Rank: 1, Owned: 600, Peak: 1400, PeakReplicas: 800, PeakByPhase: map[string]int64{"generation": 400, "cholesky": 1400, "solve": 400}},
	}
	if fmt.Sprint(g.Memory) != fmt.Sprint(want) {
		t.Fatalf("recorded memory\n%v\nwant\n%v", g.Memory, want)
	}
}

// TestMemorySamples: with tracing on, every allocation and release of tile
// data leaves a sample of the bytes held.
func TestMemorySamples(t *testing.T) {
	rt := New(Options{Workers: 1, Trace: true})
	defer rt.Close()
	a := rt.Register("a", 0, Vector{N: 100})
	b := rt.Register("b", 0, Vector{N: 50})
	// a's release is a task of its own, ready beside b's writer if both
	// were submitted before a Wait: the worker may take either first. So
	// a is written and released in one graph, b in the next.
	for _, h := range []*Handle{a, b} {
		rt.Submit(Task{Kind: "w", Access: []Access{{H: h, Mode: W}}, Run: func(Context) error { return nil }})
		if h == a {
			rt.Invalidate(a)
		}
		if err := rt.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	var got []int64
	for _, e := range rt.Events() {
		if e.Kind == trace.MemoryKind {
			got = append(got, e.Bytes)
		}
	}
	if fmt.Sprint(got) != "[800 0 400]" {
		t.Fatalf("memory samples %v, want [800 0 400]", got)
	}
}

// TestResize: a task that resizes the buffer of a low-rank tile to its
// rank keeps the content, the handle's copy takes only that memory, a
// later reader on another rank receives it (into a full buffer), and a
// later writer may grow it back.
func TestResize(t *testing.T) {
	f := LowRank{M: 30, N: 20, MaxRank: 10}
	got := make([][]float64, 2)
	inUse := make([]int64, 2)
	runRanks(t, 2, func(c comm.Comm) {
		rt := New(Options{Workers: 2, Comm: c})
		defer rt.Close()
		h := rt.Register("L", 0, f)
		out := rt.Register("out", 1, Vector{N: 2})
		for round, k := range []int{2, 9, 1} {
			mode := RW // an update, as lr-gemm
			if round == 0 {
				mode = W
			}
			rt.Submit(Task{Kind: "compress", Access: []Access{{H: h, Mode: mode}}, Run: func(ctx Context) error {
				full := make([]float64, f.Words())
				u, v := f.Factors(full, k)
				for i := range u {
					u[i] = float64(i + k)
				}
				for i := range v {
					v[i] = -1
				}
				b := ctx.Resize(0, 1+(f.M+f.N)*k)
				copy(b, full)
				return nil
			}})
			rt.Submit(Task{Kind: "use", Access: []Access{{H: h, Mode: R}, {H: out, Mode: W}}, Run: func(ctx Context) error {
				b := ctx.Buffer(0)
				r := f.Rank(b)
				ctx.Vector(1)[0] = float64(r)
				ctx.Vector(1)[1] = b[1+f.M*r-1] // last entry of U
				return nil
			}})
			rt.Fetch(out)
			if err := rt.Wait(); err != nil {
				t.Error(err)
				return
			}
			if c.Rank() == 0 && len(rt.Local(h)) != 1+(f.M+f.N)*k {
				t.Errorf("rank %d: the copy holds %d words", k, len(rt.Local(h)))
			}
		}
		got[c.Rank()] = append([]float64(nil), rt.Local(out)...)
		inUse[c.Rank()] = rt.Mem().InUse
	})
	// The last round wrote rank 1: U's last entry is M - 1 + 1.
	for r, g := range got {
		if len(g) != 2 || g[0] != 1 || g[1] != float64(f.M) {
			t.Errorf("rank %d read %v, want [1 %d]", r, g, f.M)
		}
	}
	// Rank 0 holds the rank-1 tile (51 words) and the replica of out.
	if want := int64(8 * (1 + (f.M + f.N) + 2)); inUse[0] != want {
		t.Errorf("rank 0 holds %d bytes, want %d", inUse[0], want)
	}
}
