package job

import (
	"fmt"
	"os"
	goruntime "runtime"
	"strconv"
	"strings"
	"testing"
)

// TestCoresOf: the cores the default of --workers uses, from the affinity
// mask, SLURM_CPUS_PER_TASK (when fewer, or when the mask is unreadable)
// and, failing both, the machine's CPUs.
func TestCoresOf(t *testing.T) {
	for _, c := range []struct {
		name        string
		cpus        int
		mask, slurm string
		machine     int
		want        Cores
	}{
		{"mask", 4, "0-3", "", 16, Cores{N: 4, Mask: "0-3", MaskCPUs: 4, Source: "CPU affinity mask 0-3"}},
		{"one core", 1, "0", "", 16, Cores{N: 1, Mask: "0", MaskCPUs: 1, Source: "CPU affinity mask 0"}},
		{"slurm fewer", 16, "0-15", "4", 16, Cores{N: 4, Mask: "0-15", MaskCPUs: 16, Slurm: 4, Source: "SLURM_CPUS_PER_TASK=4"}},
		{"slurm more", 2, "0-1", "8", 16, Cores{N: 2, Mask: "0-1", MaskCPUs: 2, Slurm: 8, Source: "CPU affinity mask 0-1"}},
		{"slurm equal", 4, "0-3", "4", 16, Cores{N: 4, Mask: "0-3", MaskCPUs: 4, Slurm: 4, Source: "CPU affinity mask 0-3"}},
		{"slurm spaces, leading zero", 8, "0-7", " 03 ", 16, Cores{N: 3, Mask: "0-7", MaskCPUs: 8, Slurm: 3, Source: "SLURM_CPUS_PER_TASK=3"}},
		{"slurm not a number", 8, "0-7", "all", 16, Cores{N: 8, Mask: "0-7", MaskCPUs: 8, Source: "CPU affinity mask 0-7"}},
		{"slurm zero", 8, "0-7", "0", 16, Cores{N: 8, Mask: "0-7", MaskCPUs: 8, Source: "CPU affinity mask 0-7"}},
		{"slurm negative", 8, "0-7", "-2", 16, Cores{N: 8, Mask: "0-7", MaskCPUs: 8, Source: "CPU affinity mask 0-7"}},
		// An unreadable mask: the machine's CPUs, not one worker.
		{"no mask", 0, "", "", 12, Cores{N: 12, Source: "the CPUs of the machine"}},
		{"no mask, slurm", 0, "", "6", 12, Cores{N: 6, Slurm: 6, Source: "SLURM_CPUS_PER_TASK=6"}},
		{"no mask, slurm above the machine", 0, "", "24", 12, Cores{N: 24, Slurm: 24, Source: "SLURM_CPUS_PER_TASK=24"}},
		{"no mask, no count", 0, "", "", 0, Cores{N: 1, Source: "the CPUs of the machine"}},
		// Outside Linux: the CPUs Go reports, no mask.
		{"no mask read", 8, "", "", 8, Cores{N: 8, MaskCPUs: 8, Source: "the CPUs of the machine"}},
	} {
		if got := coresOf(c.cpus, c.mask, c.slurm, c.machine); got != c.want {
			t.Errorf("%s: coresOf(%d, %q, %q, %d) = %+v, want %+v", c.name, c.cpus, c.mask, c.slurm, c.machine, got, c.want)
		}
	}
}

// TestCPUList: the set CPUs as taskset and Cpus_allowed_list write them.
func TestCPUList(t *testing.T) {
	for _, c := range []struct {
		n    int
		set  []int
		want string
	}{
		{16, nil, ""},
		{16, []int{0}, "0"},
		{16, []int{5}, "5"},
		{16, []int{0, 1, 2, 3, 8}, "0-3,8"},
		{16, []int{0, 2, 4}, "0,2,4"},
		{16, []int{1, 2, 5, 6, 7, 15}, "1-2,5-7,15"},
		{16, []int{14, 15}, "14-15"},
		{4, []int{0, 1, 2, 3}, "0-3"},
		{4, []int{3, 7}, "3"}, // ids from n on are not looked at
		{1024, []int{1000, 1001, 1002, 1023}, "1000-1002,1023"},
	} {
		in := map[int]bool{}
		for _, i := range c.set {
			in[i] = true
		}
		if got := cpuList(c.n, func(i int) bool { return in[i] }); got != c.want {
			t.Errorf("cpuList(%d, %v) = %q, want %q", c.n, c.set, got, c.want)
		}
	}
}

// TestOversubscribed: the one warning when workers share cores: who, how
// many on what, and the fix for how the process was started.
func TestOversubscribed(t *testing.T) {
	const share = ": the workers share the cores and run slower; "
	mask0 := Cores{N: 1, Mask: "0", MaskCPUs: 1, Source: "CPU affinity mask 0"}
	mask4 := Cores{N: 4, Mask: "0-3", MaskCPUs: 4, Source: "CPU affinity mask 0-3"}
	for _, c := range []struct {
		name     string
		c        Cores
		workers  int
		ranks    []int
		launched bool
		want     string
	}{
		{"enough cores", mask4, 4, nil, false, ""},
		{"fewer workers", mask4, 2, []int{1}, true, ""},
		{"2 workers on mask 0", mask0, 2, nil, false,
			"warning: this process runs 2 workers on 1 core (CPU affinity mask 0)" + share + "widen the mask (taskset) or run --workers 1"},
		{"in-process ranks are not named", mask4, 6, []int{1, 2}, false,
			"warning: this process runs 6 workers on 4 cores (CPU affinity mask 0-3)" + share + "widen the mask (taskset) or run --workers 4"},
		{"mpirun, one rank", mask0, 4, []int{2}, true,
			"warning: rank 2 runs 4 workers on 1 core (CPU affinity mask 0)" + share + "start with `mpirun --map-by slot:PE=4` (4 cores per rank) or `mpirun --bind-to none`, or run --workers 1"},
		{"mpirun, ranks", mask4, 8, []int{0, 1, 3}, true,
			"warning: ranks 0, 1, 3 each run 8 workers on 4 cores (CPU affinity mask 0-3)" + share + "start with `mpirun --map-by slot:PE=8` (8 cores per rank) or `mpirun --bind-to none`, or run --workers 4"},
		{"mpirun, no ranks given", mask4, 8, nil, true,
			"warning: this process runs 8 workers on 4 cores (CPU affinity mask 0-3)" + share + "start with `mpirun --map-by slot:PE=8` (8 cores per rank) or `mpirun --bind-to none`, or run --workers 4"},
		{"slurm allots fewer", coresOf(16, "0-15", "4", 16), 8, nil, false,
			"warning: this process runs 8 workers on 4 cores (SLURM_CPUS_PER_TASK=4)" + share + "ask Slurm for 8 CPUs per task (srun/sbatch --cpus-per-task=8) or run --workers 4"},
		{"slurm's mask", coresOf(4, "0-3", "4", 16), 6, []int{1}, true,
			"warning: rank 1 runs 6 workers on 4 cores (CPU affinity mask 0-3, SLURM_CPUS_PER_TASK=4)" + share + "ask Slurm for 6 CPUs per task (srun/sbatch --cpus-per-task=6) or run --workers 4"},
		// Slurm allots 8 but the mask has 2: more CPUs from Slurm would not help.
		{"mask narrower than slurm", coresOf(2, "0-1", "8", 16), 4, nil, false,
			"warning: this process runs 4 workers on 2 cores (CPU affinity mask 0-1, SLURM_CPUS_PER_TASK=8)" + share + "widen the mask (taskset) or run --workers 2"},
		{"no mask, slurm", coresOf(0, "", "2", 16), 3, nil, false,
			"warning: this process runs 3 workers on 2 cores (SLURM_CPUS_PER_TASK=2)" + share + "ask Slurm for 3 CPUs per task (srun/sbatch --cpus-per-task=3) or run --workers 2"},
	} {
		if got := oversubscribed(c.c, c.workers, c.ranks, c.launched); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

// TestCoresWarning: rank 0's one warning over the ranks' reports, for the
// first oversubscribed rank that did not fail, naming the others when
// launched.
func TestCoresWarning(t *testing.T) {
	one := Cores{N: 1, Mask: "0", MaskCPUs: 1, Source: "CPU affinity mask 0"}
	two := Cores{N: 2, Mask: "2-3", MaskCPUs: 2, Source: "CPU affinity mask 2-3"}
	reps := []rankReport{
		{Cores: two, Workers: 2},
		{Cores: one, Workers: 3, Err: "failed"}, // stopped: not counted
		{Cores: two, Workers: 4},
		{Cores: one, Workers: 2},
		{Cores: Cores{}, Workers: 9}, // nothing known: no warning
	}
	for _, c := range []struct {
		launched bool
		want     string
	}{
		{false, "warning: this process runs 4 workers on 2 cores (CPU affinity mask 2-3): the workers share the cores and run slower; widen the mask (taskset) or run --workers 2"},
		{true, "warning: ranks 2, 3 each run 4 workers on 2 cores (CPU affinity mask 2-3): the workers share the cores and run slower; start with `mpirun --map-by slot:PE=4` (4 cores per rank) or `mpirun --bind-to none`, or run --workers 2"},
	} {
		if got := coresWarning(reps, c.launched); got != c.want {
			t.Errorf("launched %t:\n got %q\nwant %q", c.launched, got, c.want)
		}
	}
	if got := coresWarning(reps[:2], true); got != "" {
		t.Errorf("no rank oversubscribed: %q", got)
	}
}

// TestCoresNote: the workers as the fit's log line shows them.
func TestCoresNote(t *testing.T) {
	for _, c := range []struct {
		c       Cores
		workers int
		want    string
	}{
		{coresOf(4, "0-3", "", 4), 4, "4"},
		{coresOf(4, "0-3", "", 4), 1, "1"},
		{coresOf(1, "0", "", 4), 2, "2 (on 1 core: CPU affinity mask 0)"},
		{coresOf(8, "0-7", "2", 8), 5, "5 (on 2 cores: SLURM_CPUS_PER_TASK=2)"},
	} {
		if got := coresNote(c.c, c.workers); got != c.want {
			t.Errorf("coresNote(%+v, %d) = %q, want %q", c.c, c.workers, got, c.want)
		}
	}
}

// TestReadCores: on Linux the mask read is the kernel's Cpus_allowed_list;
// SLURM_CPUS_PER_TASK=1 makes the default one worker.
func TestReadCores(t *testing.T) {
	t.Setenv(SlurmCPUsEnv, "")
	c := ReadCores()
	if c.N < 1 || c.Slurm != 0 {
		t.Errorf("ReadCores() = %+v", c)
	}
	if goruntime.GOOS == "linux" {
		b, err := os.ReadFile("/proc/self/status")
		if err != nil {
			t.Skip(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			list, ok := strings.CutPrefix(line, "Cpus_allowed_list:")
			if !ok {
				continue
			}
			list = strings.TrimSpace(list)
			count := 0
			for _, part := range strings.Split(list, ",") {
				lo, hi, rng := strings.Cut(part, "-")
				a, _ := strconv.Atoi(lo)
				z := a
				if rng {
					z, _ = strconv.Atoi(hi)
				}
				count += z - a + 1
			}
			if c.Mask != list || c.MaskCPUs != count || c.N != count || c.Source != "CPU affinity mask "+list {
				t.Errorf("ReadCores() = %+v; Cpus_allowed_list %s (%d CPUs)", c, list, count)
			}
		}
	}
	t.Setenv(SlurmCPUsEnv, "1")
	if c := ReadCores(); c.N != 1 || c.Slurm != 1 || c.Source != "SLURM_CPUS_PER_TASK=1" {
		t.Errorf("SLURM_CPUS_PER_TASK=1: %+v", c)
	}
	if DefaultWorkers() != 1 || workersOr(0) != 1 || workersOr(-1) != 1 || workersOr(3) != 3 {
		t.Errorf("SLURM_CPUS_PER_TASK=1: DefaultWorkers %d, workersOr(0) %d, workersOr(3) %d", DefaultWorkers(), workersOr(0), workersOr(3))
	}
	if got := workersNote(3); got != "3 (on 1 core: SLURM_CPUS_PER_TASK=1)" {
		t.Errorf("workersNote(3) = %q", got)
	}
}

// TestSharedCoresWarning: ranks on one host whose masks overlap, with more
// workers in all than the CPUs of the masks' union, get one warning; ranks
// on cores of their own, or on other hosts, get none.
func TestSharedCoresWarning(t *testing.T) {
	mask := func(m string, n int) Cores {
		return Cores{N: n, Mask: m, MaskCPUs: n, Source: "CPU affinity mask " + m}
	}
	cases := []struct {
		name string
		reps []rankReport
		want string
	}{
		{"oversubscribed on one node", []rankReport{
			{Cores: mask("0-1", 2), Workers: 2, Host: "a"}, {Cores: mask("0-1", 2), Workers: 2, Host: "a"},
			{Cores: mask("0-1", 2), Workers: 2, Host: "a"}, {Cores: mask("0-1", 2), Workers: 2, Host: "a"}},
			"warning: ranks 0, 1, 2, 3 on a run 8 workers in all on 2 cores (their CPU affinity masks 0-1 / 0-1 / 0-1 / 0-1 overlap): the workers share the cores and run slower; start fewer ranks per node, bind each rank to cores of its own (`mpirun --map-by slot:PE=N`), or run fewer --workers"},
		{"own cores", []rankReport{
			{Cores: mask("0-1", 2), Workers: 2, Host: "a"}, {Cores: mask("2-3", 2), Workers: 2, Host: "a"}}, ""},
		{"two hosts", []rankReport{
			{Cores: mask("0-1", 2), Workers: 2, Host: "a"}, {Cores: mask("0-1", 2), Workers: 2, Host: "b"}}, ""},
		{"partial overlap", []rankReport{
			{Cores: mask("0-2", 3), Workers: 3, Host: "a"}, {Cores: mask("2,5", 2), Workers: 2, Host: "a"}},
			"warning: ranks 0, 1 on a run 5 workers in all on 4 cores (their CPU affinity masks 0-2 / 2,5 overlap): the workers share the cores and run slower; start fewer ranks per node, bind each rank to cores of its own (`mpirun --map-by slot:PE=N`), or run fewer --workers"},
		{"unknown mask", []rankReport{
			{Cores: Cores{N: 2}, Workers: 2, Host: "a"}, {Cores: Cores{N: 2}, Workers: 2, Host: "a"}}, ""},
	}
	for _, c := range cases {
		if got := coresWarning(c.reps, true); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
	for _, c := range []struct {
		in   string
		want []int
		ok   bool
	}{{"0-3,8", []int{0, 1, 2, 3, 8}, true}, {"5", []int{5}, true}, {"", nil, false}, {"3-1", nil, false}, {"a", nil, false}} {
		got, ok := parseCPUList(c.in)
		if ok != c.ok || fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("parseCPUList(%q) = %v, %v; want %v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}
