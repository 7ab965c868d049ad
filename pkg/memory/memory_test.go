package memory

import (
	"os"
	"path/filepath"
	"testing"
)

func TestParseBytes(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		bad  bool
	}{
		{"2GB", 2e9, false}, {"2G", 2e9, false}, {"1.5g", 1.5e9, false}, {"512MiB", 512 << 20, false},
		{"300MB", 300e6, false}, {"1e9", 1e9, false}, {"64KiB", 64 << 10, false}, {"1TiB", 1 << 40, false},
		{"100 b", 100, false}, {"", 0, true}, {"-1GB", 0, true}, {"0", 0, true}, {"lots", 0, true}, {"1e30GB", 0, true},
	} {
		got, err := ParseBytes(c.in)
		if c.bad != (err != nil) || got != c.want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d (error %v)", c.in, got, err, c.want, c.bad)
		}
	}
}

func TestFormat(t *testing.T) {
	for _, c := range []struct {
		b    int64
		want string
	}{{999, "999 B"}, {1000, "1 kB"}, {2_310_000_000, "2.31 GB"}, {1_752_600_000, "1.75 GB"}, {512 << 20, "537 MB"}} {
		if got := Format(c.b); got != c.want {
			t.Errorf("Format(%d) = %q, want %q", c.b, got, c.want)
		}
	}
}

func TestMeminfo(t *testing.T) {
	p := filepath.Join(t.TempDir(), "meminfo")
	os.WriteFile(p, []byte("MemTotal:       24576000 kB\nMemFree:         1000 kB\nMemAvailable:   20480000 kB\n"), 0o644)
	v, err := meminfo(p, "MemAvailable")
	if err != nil || v != 20480000*1024 {
		t.Fatalf("MemAvailable = %d, %v", v, err)
	}
	if _, err := meminfo(p, "VmHWM"); err == nil {
		t.Fatal("a missing key read as a value")
	}
}

func TestAvailable(t *testing.T) {
	l, ok := Available(3e9, 4)
	if !ok || l.Bytes != 3e9 || l.Source != "--memory-limit" {
		t.Fatalf("a user limit is per rank, as given: %+v", l)
	}
	all, ok1 := Available(0, 1)
	quarter, ok4 := Available(0, 4)
	if ok1 && ok4 && (quarter.Bytes > all.Bytes/4+1<<20 || quarter.Bytes < all.Bytes/4-1<<26) {
		t.Fatalf("4 ranks on the node get a quarter: %+v of %+v", quarter, all)
	}
	if ok1 && PeakRSS() <= 0 {
		t.Fatal("no peak RSS on a system with /proc")
	}
}

func TestLocalRanks(t *testing.T) {
	t.Setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "")
	t.Setenv("MPI_LOCALNRANKS", "")
	t.Setenv("SLURM_NTASKS_PER_NODE", "")
	if LocalRanks() != 1 {
		t.Fatal("no launcher: 1 rank")
	}
	t.Setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "4")
	if LocalRanks() != 4 {
		t.Fatal("Open MPI's local size ignored")
	}
}
