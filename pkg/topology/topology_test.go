package topology

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"syscall"
	"testing"
	"unsafe"
)

// fakeSysfs writes a sysfs tree of 2 NUMA nodes x 2 cores x 2 hardware
// threads, numbered as Linux often does: CPUs 0-3 the first threads
// (cores 0, 1 of node 0, then of node 1), 4-7 their siblings.
func fakeSysfs(t *testing.T) string {
	root := t.TempDir()
	write := func(rel, s string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("cpu/online", "0-7")
	for id := range 8 {
		write(fmt.Sprintf("cpu/cpu%d/topology/core_id", id), fmt.Sprint(id%2))
		write(fmt.Sprintf("cpu/cpu%d/topology/physical_package_id", id), fmt.Sprint(id%4/2))
	}
	write("node/node0/cpulist", "0-1,4-5")
	write("node/node1/cpulist", "2-3,6-7")
	return root
}

// TestReadPlan: the fake machine reads back as built, and the plan takes
// one thread of every core, node 0's first, before any sibling; a mask
// limits it; CPUs unknown to the topology go on node 0.
func TestReadPlan(t *testing.T) {
	topo, err := Read(fakeSysfs(t))
	if err != nil {
		t.Fatal(err)
	}
	if topo.Nodes != 2 || len(topo.CPUs) != 8 || topo.CPUs[6] != (CPU{ID: 6, Core: 0, Package: 1, Node: 1}) {
		t.Fatalf("topology %+v", topo)
	}
	ids := func(cs []CPU) []int {
		var out []int
		for _, c := range cs {
			out = append(out, c.ID)
		}
		return out
	}
	for _, c := range []struct {
		mask []int
		n    int
		want []int
	}{
		{[]int{0, 1, 2, 3, 4, 5, 6, 7}, 8, []int{0, 1, 2, 3, 4, 5, 6, 7}},
		{[]int{7, 6, 5, 4, 3, 2, 1, 0}, 3, []int{0, 1, 2}},
		{[]int{4, 5, 6, 0}, 4, []int{0, 5, 6, 4}}, // 0 and 4 share core 0 of node 0
		{[]int{2, 9}, 5, []int{9, 2}},             // 9 unknown: node 0
	} {
		if got := ids(topo.Plan(c.mask, c.n)); !slices.Equal(got, c.want) {
			t.Errorf("Plan(%v, %d) = %v, want %v", c.mask, c.n, got, c.want)
		}
	}
	if got := ids(topo.Compact([]int{7, 6, 5, 4, 3, 2, 1, 0})); !slices.Equal(got, []int{0, 4, 1, 5, 2, 6, 3, 7}) {
		t.Errorf("Compact = %v, want the threads of each core together, node by node", got)
	}
	for _, bad := range []string{"x", "3-1", "-1", "1,,2"} {
		if _, err := ParseList(bad); err == nil {
			t.Errorf("ParseList(%q) accepted", bad)
		}
	}
	if l, err := ParseList("0-2,5"); err != nil || !slices.Equal(l, []int{0, 1, 2, 5}) {
		t.Errorf("ParseList = %v, %v", l, err)
	}
}

// TestPinBind: on this machine, a thread pinned to its mask's first CPU
// reports that CPU alone, and gets its mask back; page-aligned memory
// outside the Go heap binds to node 0 (every machine has it).
func TestPinBind(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	mask, err := Affinity()
	if err != nil || len(mask) == 0 {
		t.Fatalf("affinity %v, %v", mask, err)
	}
	if err := Pin(mask[0]); err != nil {
		t.Fatal(err)
	}
	if got, err := Affinity(); err != nil || !slices.Equal(got, mask[:1]) {
		t.Errorf("pinned to %d: affinity %v, %v", mask[0], got, err)
	}
	if err := Pin(mask...); err != nil {
		t.Fatal(err)
	}
	b, err := syscall.Mmap(-1, 0, 1<<16, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(b)
	if err := Bind(unsafe.Slice((*float64)(unsafe.Pointer(&b[0])), len(b)/8), 0); err != nil {
		t.Errorf("bind to node 0: %v", err)
	}
}
