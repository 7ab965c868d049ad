// Package memory reads what a process may use and has used: the memory
// available to it (the kernel's MemAvailable, a cgroup limit, or a limit
// the user gives, shared by the ranks of one node), its peak resident set
// size, and byte sizes as users write them ("2GB", "512MiB").
package memory

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

// Limit is the memory one rank may use, in bytes, and where that figure
// comes from (for messages).
type Limit struct {
	Bytes  int64
	Source string // "--memory-limit", "MemAvailable", "cgroup memory.max"
}

// Available returns the memory one rank may use: userLimit when > 0;
// otherwise the smaller of the kernel's MemAvailable and the room left
// under the cgroup's memory.max (v2) or limit_in_bytes (v1), divided by
// localRanks, the ranks sharing this node. ok is false when nothing could
// be read (then no check should be made).
func Available(userLimit int64, localRanks int) (l Limit, ok bool) {
	if userLimit > 0 {
		return Limit{Bytes: userLimit, Source: "--memory-limit"}, true
	}
	localRanks = max(localRanks, 1)
	best := int64(math.MaxInt64)
	src := ""
	if v, err := meminfo("/proc/meminfo", "MemAvailable"); err == nil {
		best, src = v, "MemAvailable"
	}
	if v, ok := cgroupRoom(); ok && v < best {
		best, src = v, "cgroup memory limit"
	}
	if src == "" {
		return Limit{}, false
	}
	if localRanks > 1 {
		src = fmt.Sprintf("%s / %d ranks on this node", src, localRanks)
	}
	return Limit{Bytes: best / int64(localRanks), Source: src}, true
}

// LocalRanks returns the number of ranks of this job on this node, from
// the launcher's environment (Open MPI, MPICH/Hydra, Slurm), or 1.
func LocalRanks() int {
	for _, v := range []string{"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE"} {
		if n, err := strconv.Atoi(strings.TrimSpace(os.Getenv(v))); err == nil && n > 0 {
			return n
		}
	}
	return 1
}

// meminfo returns the value of key in a /proc/meminfo-style file, in bytes.
func meminfo(path, key string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok || k != key {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			break
		}
		v, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return 0, err
		}
		if len(fields) > 1 && strings.EqualFold(fields[1], "kB") {
			v *= 1024
		}
		return v, nil
	}
	return 0, fmt.Errorf("memory: no %s in %s", key, path)
}

// cgroupRoom returns the bytes left under this process's cgroup limit.
func cgroupRoom() (int64, bool) {
	read := func(p string) (int64, bool) {
		b, err := os.ReadFile(p)
		if err != nil {
			return 0, false
		}
		v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		return v, err == nil
	}
	// cgroup v2: the process's group is the one in /proc/self/cgroup ("0::/path").
	dir := "/sys/fs/cgroup"
	if b, err := os.ReadFile("/proc/self/cgroup"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if p, ok := strings.CutPrefix(l, "0::"); ok {
				dir = "/sys/fs/cgroup" + strings.TrimSpace(p)
			}
		}
	}
	if limit, ok := read(dir + "/memory.max"); ok {
		used, _ := read(dir + "/memory.current")
		return max(limit-used, 0), true
	}
	if limit, ok := read("/sys/fs/cgroup/memory/memory.limit_in_bytes"); ok && limit < 1<<60 {
		used, _ := read("/sys/fs/cgroup/memory/memory.usage_in_bytes")
		return max(limit-used, 0), true
	}
	return 0, false
}

// PeakRSS returns this process's peak resident set size in bytes (VmHWM),
// or 0 where it cannot be read.
func PeakRSS() int64 {
	v, err := meminfo("/proc/self/status", "VmHWM")
	if err != nil {
		return 0
	}
	return v
}

// ParseBytes reads a size such as 2GB, 1.5G, 512MiB, 300MB or 1e9 (bytes):
// the suffixes K, M, G, T (optionally with B) are powers of 1000, and KiB,
// MiB, GiB, TiB powers of 1024.
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := 1.0
	units := []struct {
		suffix string
		mult   float64
	}{{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
		{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12},
		{"k", 1e3}, {"m", 1e6}, {"g", 1e9}, {"t", 1e12}, {"b", 1}}
	low := strings.ToLower(t)
	for _, u := range units {
		if strings.HasSuffix(low, u.suffix) {
			mult = u.mult
			t = strings.TrimSpace(t[:len(t)-len(u.suffix)])
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || !(v > 0) || math.IsInf(v*mult, 0) || v*mult > math.MaxInt64/2 {
		return 0, fmt.Errorf("%q is not a size in bytes (e.g. 2GB, 512MiB)", s)
	}
	return int64(v * mult), nil
}

// Format returns b in the largest unit that keeps a number >= 1 (MB, GB:
// powers of 1000), with three significant digits.
func Format(b int64) string {
	v := float64(b)
	for _, u := range []string{"B", "kB", "MB", "GB", "TB"} {
		if math.Abs(v) < 1000 || u == "TB" {
			if u == "B" {
				return fmt.Sprintf("%d B", b)
			}
			return fmt.Sprintf("%.3g %s", v, u)
		}
		v /= 1000
	}
	return fmt.Sprintf("%d B", b)
}
