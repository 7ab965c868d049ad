package runtime

import (
	"strings"
	"testing"
)

// fixedModel is a planted performance model: seconds per architecture
// and kind.
type fixedModel map[string]map[string]float64

func (m fixedModel) Expected(arch, k string, _ int) (float64, bool) {
	d, ok := m[arch][k]
	return d, ok
}

// TestDeviceCoherence: a CPU task writes each of n vectors, two device
// tasks update them (the model sends kind "dev" to the device and "host"
// to the CPU), a CPU task reads them back into the caller's buffers, and
// a device task writes the caller's buffers directly: every value is
// right, the caller's buffers hold the device's results after Wait (write
// back), Local returns the device's version, and a device of 3 vectors
// (fewer than the n = 12 handles) evicts, writes back dirty copies, and
// never holds more than its capacity.
func TestDeviceCoherence(t *testing.T) {
	const n, m = 12, 4
	model := fixedModel{"cpu": {"host": 1e-6, "dev": 1}, "host-test": {"host": 1, "dev": 1e-6}}
	for _, capacity := range []int64{1 << 20, 3 * 8 * m} {
		for _, sched := range []string{DMDA, Eager} {
			dev := &HostTest{Bytes: capacity}
			rt := New(Options{Workers: 2, Devices: []Device{dev}, Scheduler: sched, PerfModel: model, Trace: true})
			vs := make([]*Handle, n)
			sums := make([][]float64, n)
			outs := make([][]float64, n)
			sh := make([]*Handle, n)
			oh := make([]*Handle, n)
			for i := range vs {
				vs[i] = rt.Register("v", 0, Vector{N: m})
				sums[i] = make([]float64, 1)
				outs[i] = make([]float64, m)
				sh[i] = rt.RegisterData("s", 0, sums[i])
				oh[i] = rt.RegisterData("o", 0, outs[i])
			}
			for i := range vs {
				x := float64(i)
				rt.Submit(Task{Kind: "host", Access: []Access{{vs[i], W}}, Run: func(c Context) error {
					for j := range c.Vector(0) {
						c.Vector(0)[j] = x + float64(j)
					}
					return nil
				}})
				rt.Submit(Task{Kind: "dev", Device: true, Access: []Access{{vs[i], RW}}, Run: func(c Context) error {
					for j := range c.Vector(0) {
						c.Vector(0)[j] *= 2
					}
					return nil
				}})
				rt.Submit(Task{Kind: "dev", Device: true, Access: []Access{{vs[i], RW}}, Run: func(c Context) error {
					for j := range c.Vector(0) {
						c.Vector(0)[j]++
					}
					return nil
				}})
			}
			for i := range vs {
				rt.Submit(Task{Kind: "host", Access: []Access{{vs[i], R}, {sh[i], W}}, Run: func(c Context) error {
					s := 0.0
					for _, v := range c.Vector(0) {
						s += v
					}
					c.Vector(1)[0] = s
					return nil
				}})
				rt.Submit(Task{Kind: "dev", Device: true, Access: []Access{{vs[i], R}, {oh[i], W}}, Run: func(c Context) error {
					for j, v := range c.Vector(0) {
						c.Vector(1)[j] = -v
					}
					return nil
				}})
			}
			if err := rt.Wait(); err != nil {
				t.Fatal(err)
			}
			for i := range vs {
				want := 0.0
				for j := 0; j < m; j++ {
					v := 2*(float64(i)+float64(j)) + 1
					want += v
					if outs[i][j] != -v {
						t.Errorf("cap %d %s: out[%d][%d] = %v, want %v", capacity, sched, i, j, outs[i][j], -v)
					}
					if got := rt.Local(vs[i])[j]; got != v {
						t.Errorf("cap %d %s: Local(v%d)[%d] = %v, want %v", capacity, sched, i, j, got, v)
					}
				}
				if sums[i][0] != want {
					t.Errorf("cap %d %s: sum %d = %v, want %v", capacity, sched, i, sums[i][0], want)
				}
			}
			ds := rt.DeviceStats()[0]
			onDev := 0
			for _, e := range rt.Events() {
				if e.Kind == "dev" && e.Resource == "host-test" {
					onDev++
				}
				if e.Kind == "host" && e.Resource != "cpu" {
					t.Errorf("%s: a host task ran on %s", sched, e.Resource)
				}
			}
			if err := rt.Close(); err != nil {
				t.Fatal(err)
			}
			if sched == DMDA && onDev != 3*n {
				t.Errorf("cap %d dmda: %d of the %d dev tasks on the device", capacity, onDev, 3*n)
			}
			if ds.Peak > capacity {
				t.Errorf("cap %d %s: device peak %d", capacity, sched, ds.Peak)
			}
			if sched == DMDA && capacity < 1<<20 && (ds.Evictions == 0 || ds.WriteBack == 0) {
				t.Errorf("cap %d dmda: %d evictions, %d write-backs", capacity, ds.Evictions, ds.WriteBack)
			}
			if sched == DMDA && (ds.Loads < n || ds.Stores < n) {
				t.Errorf("cap %d dmda: %d loads, %d stores, want >= %d each", capacity, ds.Loads, ds.Stores, n)
			}
		}
	}
}

// TestDeviceTooSmall: a device that cannot hold one task's buffers makes
// the task fail with an error naming the device, not a hang.
func TestDeviceTooSmall(t *testing.T) {
	rt := New(Options{Workers: 1, Devices: []Device{&HostTest{Bytes: 8 * 10}}, Scheduler: DMDA,
		PerfModel: fixedModel{"cpu": {"dev": 1}, "host-test": {"dev": 1e-6}}})
	defer rt.Close()
	a := rt.Register("a", 0, Vector{N: 8})
	b := rt.Register("b", 0, Vector{N: 8})
	rt.Submit(Task{Kind: "host", Access: []Access{{a, W}}, Run: func(Context) error { return nil }})
	rt.Submit(Task{Kind: "dev", Device: true, Access: []Access{{a, R}, {b, W}}, Run: func(Context) error { return nil }})
	err := rt.Wait()
	if err == nil || !strings.Contains(err.Error(), "host-test0") {
		t.Fatalf("err = %v, want one naming host-test0", err)
	}
}

// TestCheckOptions: an unknown scheduler and dmda without a model are
// refused.
func TestCheckOptions(t *testing.T) {
	for _, o := range []Options{{Scheduler: "heft"}, {Scheduler: DMDA}, {Devices: []Device{&HostTest{}}}} {
		if err := CheckOptions(o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
	if err := CheckOptions(Options{Scheduler: DMDA, PerfModel: fixedModel{}}); err != nil {
		t.Error(err)
	}
}

// TestEvictCleanFirst: on a device of two vectors holding a dirty copy
// (written there) and a more recently used clean one (loaded from host
// RAM), room for a third evicts the clean one: no write-back.
func TestEvictCleanFirst(t *testing.T) {
	const m = 4
	rt := New(Options{Workers: 1, Devices: []Device{&HostTest{Bytes: 2 * 8 * m}}, Scheduler: DMDA,
		PerfModel: fixedModel{"cpu": {"dev": 1}, "host-test": {"dev": 1e-6}}})
	defer rt.Close()
	a := rt.Register("a", 0, Vector{N: m})
	b := rt.Register("b", 0, Vector{N: m})
	c := rt.Register("c", 0, Vector{N: m})
	fill := func(v float64) func(Context) error {
		return func(ctx Context) error {
			for i := range ctx.Vector(0) {
				ctx.Vector(0)[i] = v
			}
			return nil
		}
	}
	rt.Submit(Task{Kind: "host", Access: []Access{{a, W}}, Run: fill(1)})
	rt.Submit(Task{Kind: "dev", Device: true, Access: []Access{{b, W}}, Run: fill(2)}) // dirty on the device
	rt.Submit(Task{Kind: "dev", Device: true, Access: []Access{{a, R}}, Run: func(Context) error { return nil }})
	if err := rt.Wait(); err != nil {
		t.Fatal(err)
	}
	rt.Submit(Task{Kind: "dev", Device: true, Access: []Access{{c, W}}, Run: fill(3)})
	if err := rt.Wait(); err != nil {
		t.Fatal(err)
	}
	ds := rt.DeviceStats()[0]
	if ds.Evictions != 1 || ds.WriteBack != 0 {
		t.Errorf("%d evictions, %d write-backs; want 1 clean eviction", ds.Evictions, ds.WriteBack)
	}
	if got := rt.Local(b); got[0] != 2 {
		t.Errorf("b = %v after a copy back, want 2", got)
	}
}

// pinDevice is a host-test device that records the host buffers pinned
// and unpinned (HostPinner).
type pinDevice struct {
	HostTest
	pinned map[*float64]bool
	pins   int
	unpins int
}

func (d *pinDevice) PinHost(b []float64) error {
	d.pinned[&b[:1][0]] = true
	d.pins++
	return nil
}

func (d *pinDevice) UnpinHost(b []float64) {
	if d.pinned[&b[:1][0]] {
		delete(d.pinned, &b[:1][0])
		d.unpins++
	}
}

// TestHostPinnedAhead: Reserve pins the host buffers it allocates ahead
// (not the tasks), and each is unpinned before the pool gives it back to
// the system (Trim, Close).
func TestHostPinnedAhead(t *testing.T) {
	d := &pinDevice{HostTest: HostTest{Bytes: 1 << 20}, pinned: map[*float64]bool{}}
	rt := New(Options{Workers: 1, Devices: []Device{d}})
	rt.Reserve(Dense{M: 8, N: 8}, 3)
	if d.pins != 3 {
		t.Fatalf("%d buffers pinned by Reserve, want 3", d.pins)
	}
	h := rt.Register("a", 0, Dense{M: 8, N: 8})
	rt.Submit(Task{Kind: "host", Access: []Access{{h, W}}, Run: func(Context) error { return nil }})
	if err := rt.Wait(); err != nil {
		t.Fatal(err)
	}
	rt.Trim() // the 2 free buffers go back to the system
	if d.unpins != 2 {
		t.Errorf("Trim unpinned %d buffers, want 2", d.unpins)
	}
	if err := rt.Close(); err != nil {
		t.Fatal(err)
	}
	if d.pins != 3 || d.unpins != 2 || len(d.pinned) != 1 {
		t.Errorf("pins %d, unpins %d, still pinned %d (the handle's buffer, kept by its owner)", d.pins, d.unpins, len(d.pinned))
	}
}
