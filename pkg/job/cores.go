package job

import (
	"fmt"
	"os"
	goruntime "runtime"
	"strconv"
	"strings"

	"github.com/exageostat/exageostat/pkg/config"
)

// SlurmCPUsEnv is the variable Slurm sets to the CPUs a task was given
// (srun/sbatch --cpus-per-task).
const SlurmCPUsEnv = "SLURM_CPUS_PER_TASK"

// Cores is what the process may run on: the CPUs of its affinity mask
// (set by taskset, by mpirun's binding, by Slurm's task affinity), and
// SLURM_CPUS_PER_TASK when Slurm sets it.
type Cores struct {
	// N is the number of cores the default of --workers uses: the CPUs in
	// the mask, or SLURM_CPUS_PER_TASK when that is fewer (Slurm without
	// task affinity leaves the mask open but allots only these).
	N int `json:"n"`
	// Mask is the affinity mask as a CPU list ("0-3,8"), and MaskCPUs the
	// number of CPUs in it; "" and 0 when it could not be read.
	Mask     string `json:"mask,omitempty"`
	MaskCPUs int    `json:"mask_cpus,omitempty"`
	// Slurm is SLURM_CPUS_PER_TASK (0 when not set).
	Slurm int `json:"slurm,omitempty"`
	// Source says where N comes from, for messages.
	Source string `json:"source"`
}

// ReadCores returns the cores this process may use now.
func ReadCores() Cores {
	cpus, mask := affinity()
	return coresOf(cpus, mask, os.Getenv(SlurmCPUsEnv), goruntime.NumCPU())
}

// coresOf returns the Cores of a process whose affinity mask holds cpus
// CPUs (mask as a CPU list; 0 and "" when it could not be read, then the
// machine's machineCPUs count) under SLURM_CPUS_PER_TASK=slurm ("" when
// not set).
func coresOf(cpus int, mask, slurm string, machineCPUs int) Cores {
	c := Cores{N: cpus, Mask: mask, MaskCPUs: cpus, Source: "CPU affinity mask " + mask}
	if mask == "" {
		c.Source = "the CPUs of the machine"
	}
	if cpus <= 0 {
		c.N, c.Mask, c.MaskCPUs = max(machineCPUs, 1), "", 0
	}
	if v := strings.TrimSpace(slurm); v != "" {
		if s, err := strconv.Atoi(v); err == nil && s > 0 {
			c.Slurm = s
			if s < c.N || cpus <= 0 {
				c.N, c.Source = s, SlurmCPUsEnv+"="+strconv.Itoa(s)
			}
		}
	}
	return c
}

// DefaultWorkers is the number of workers a job runs when --workers is 0:
// one per core the process may use (ReadCores).
func DefaultWorkers() int { return ReadCores().N }

// workersOr returns n, or DefaultWorkers when n <= 0.
func workersOr(n int) int {
	if n <= 0 {
		return DefaultWorkers()
	}
	return n
}

// cpuList formats the set CPUs of isSet (ids below n) as a list of ranges,
// as taskset and /proc/self/status (Cpus_allowed_list) write it: "0-3,8".
func cpuList(n int, isSet func(int) bool) string {
	var parts []string
	for i := 0; i < n; i++ {
		if !isSet(i) {
			continue
		}
		j := i
		for j+1 < n && isSet(j+1) {
			j++
		}
		if j == i {
			parts = append(parts, strconv.Itoa(i))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", i, j))
		}
		i = j
	}
	return strings.Join(parts, ",")
}

// oversubscribed returns the warning for a rank that runs workers workers
// on c (empty when it has a core for each): it names the mask and the fix,
// and, in a run an MPI launcher started (launched), the ranks.
func oversubscribed(c Cores, workers int, ranks []int, launched bool) string {
	if workers <= c.N {
		return ""
	}
	who := "this process runs"
	if len(ranks) > 0 && launched {
		who = "rank " + rankList(ranks) + " runs"
		if len(ranks) > 1 {
			who = "ranks " + rankList(ranks) + " each run"
		}
	}
	s := "s"
	if c.N == 1 {
		s = ""
	}
	where := c.Source
	if c.Slurm > 0 && c.Source != SlurmCPUsEnv+"="+strconv.Itoa(c.Slurm) {
		where += fmt.Sprintf(", %s=%d", SlurmCPUsEnv, c.Slurm)
	}
	msg := fmt.Sprintf("warning: %s %d workers on %d core%s (%s): the workers share the cores and run slower; ", who, workers, c.N, s, where)
	switch {
	case c.Slurm > 0 && c.Slurm == c.N: // Slurm's allotment is the limit (a narrower mask is not)
		msg += fmt.Sprintf("ask Slurm for %d CPUs per task (srun/sbatch --cpus-per-task=%d) or run --workers %d", workers, workers, c.N)
	case launched:
		msg += fmt.Sprintf("start with `mpirun --map-by slot:PE=%d` (%d cores per rank) or `mpirun --bind-to none`, or run --workers %d", workers, workers, c.N)
	default:
		msg += fmt.Sprintf("widen the mask (taskset) or run --workers %d", c.N)
	}
	return msg
}

// rankList formats ranks as "1, 3, 4".
func rankList(ranks []int) string { return config.FormatInts(ranks, ", ") }

// workersNote describes workers for the log: "2", or "2 (on 1 core: CPU
// affinity mask 0)" when they share cores.
func workersNote(workers int) string { return coresNote(ReadCores(), workers) }

// coresNote is workersNote on c.
func coresNote(c Cores, workers int) string {
	if workers <= c.N {
		return strconv.Itoa(workers)
	}
	s := "s"
	if c.N == 1 {
		s = ""
	}
	return fmt.Sprintf("%d (on %d core%s: %s)", workers, c.N, s, c.Source)
}
