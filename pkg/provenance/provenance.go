// Package provenance says what a run was: the tool's version and commit,
// the command line, the input files with their SHA-256, the machine (CPU
// model, host name), the ranks and workers, and the date. Results carry it
// so that a number can be traced to the run that made it.
package provenance

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	goruntime "runtime"
	"runtime/debug"
	"strings"
	"time"
)

// Build is the binary's version: the module version (or "devel" when built
// from a checkout), the VCS commit and whether the tree had changes.
type Build struct {
	Version   string `json:"version"`
	Commit    string `json:"commit,omitempty"`
	Modified  bool   `json:"modified,omitempty"` // built from a tree with uncommitted changes
	Time      string `json:"commit_time,omitempty"`
	GoVersion string `json:"go"`
	Platform  string `json:"platform"` // GOOS/GOARCH
}

// The commit and tree state the Makefile stamps into the binary with
// -ldflags "-X ...provenance.commit=SHA -X ...provenance.modified=true"
// (go build's own VCS stamping is off where GOFLAGS has -buildvcs=false).
// Set at link time, never written.
var (
	commit   string
	modified string
)

// ReadBuild returns the build information of the binary: the commit the
// Makefile stamped, else what the Go toolchain embedded
// (debug.ReadBuildInfo: the main module's version, vcs.revision,
// vcs.modified, vcs.time).
func ReadBuild() Build {
	b := Build{Version: "devel", GoVersion: goruntime.Version(), Platform: goruntime.GOOS + "/" + goruntime.GOARCH}
	if info, ok := debug.ReadBuildInfo(); ok {
		if v := info.Main.Version; v != "" && v != "(devel)" {
			b.Version = v
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				b.Commit = s.Value
			case "vcs.modified":
				b.Modified = s.Value == "true"
			case "vcs.time":
				b.Time = s.Value
			}
		}
	}
	if commit != "" {
		b.Commit, b.Modified = commit, modified == "true"
	}
	return b
}

// String is the one line of `exageostat --version`:
// "devel (commit 0123abcd4567, modified, 2026-11-23T23:45:08Z; go1.22.2 linux/amd64)".
func (b Build) String() string {
	var parts []string
	if b.Commit != "" {
		c := b.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		parts = append(parts, "commit "+c)
		if b.Modified {
			parts = append(parts, "modified")
		}
		if b.Time != "" {
			parts = append(parts, b.Time)
		}
	} else {
		parts = append(parts, "commit unknown")
	}
	return fmt.Sprintf("%s (%s; %s %s)", b.Version, strings.Join(parts, ", "), b.GoVersion, b.Platform)
}

// Short is the version and the commit's first 12 digits ("devel 0123abcd4567+"
// with + for a modified tree), for headers.
func (b Build) Short() string {
	c := b.Commit
	if len(c) > 12 {
		c = c[:12]
	}
	if c == "" {
		c = "unknown"
	}
	if b.Modified {
		c += "+"
	}
	return b.Version + " " + c
}

// Input is one file a run read, with its SHA-256 (hex) and size.
type Input struct {
	Flag   string `json:"flag"` // the flag or config key that named it
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	Bytes  int64  `json:"bytes"`
}

// Run is what a run was.
type Run struct {
	Build
	Command []string `json:"command"` // os.Args
	Inputs  []Input  `json:"inputs,omitempty"`
	CPU     string   `json:"cpu"`
	Cores   int      `json:"machine_cpus"`
	Host    string   `json:"host"`
	Ranks   int      `json:"ranks"`
	Workers int      `json:"workers"` // per rank
	Date    string   `json:"date"`    // start, RFC 3339 UTC
}

// New describes the run started now with command line args on ranks ranks
// of workers workers each. Inputs are added with AddInput.
func New(args []string, ranks, workers int) *Run {
	host, _ := os.Hostname()
	return &Run{Build: ReadBuild(), Command: append([]string(nil), args...), CPU: CPUModel(), Cores: goruntime.NumCPU(),
		Host: host, Ranks: ranks, Workers: workers, Date: time.Now().UTC().Format(time.RFC3339)}
}

// AddInput records the file at path (named by flag) with its SHA-256; an
// empty path is skipped.
func (r *Run) AddInput(flag, path string) error {
	if path == "" {
		return nil
	}
	sum, n, err := FileSHA256(path)
	if err != nil {
		return err
	}
	r.Inputs = append(r.Inputs, Input{Flag: flag, Path: path, SHA256: sum, Bytes: n})
	return nil
}

// AddInputBytes records the file at path (named by flag) by its content
// b, read once already: the digest is of the very bytes the run parsed (a
// FIFO or standard input cannot be read twice).
func (r *Run) AddInputBytes(flag, path string, b []byte) {
	sum := sha256.Sum256(b)
	r.Inputs = append(r.Inputs, Input{Flag: flag, Path: path, SHA256: hex.EncodeToString(sum[:]), Bytes: int64(len(b))})
}

// FileSHA256 returns the hex SHA-256 of the file at path and its size.
func FileSHA256(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// CPUModel returns the CPU's model name from /proc/cpuinfo ("model name",
// or "Model"/"cpu model" on other architectures), or GOARCH when it cannot
// be read.
func CPUModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return goruntime.GOARCH
	}
	defer f.Close()
	return cpuModel(f)
}

// cpuModel reads the first model line of a /proc/cpuinfo text.
func cpuModel(r io.Reader) string {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "model name", "Model", "cpu model":
			if v = strings.TrimSpace(v); v != "" {
				return v
			}
		}
	}
	return goruntime.GOARCH
}

// Header is the one line that starts a benchmark's output: "# exageostat
// devel 0123abcd4567 | AMD EPYC (2 CPUs) | host vm | 2026-11-24T00:40:00Z".
func (r *Run) Header() string {
	return fmt.Sprintf("# exageostat %s | %s (%d CPUs) | host %s | %s", r.Short(), r.CPU, r.Cores, r.Host, r.Date)
}
