package stop

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Deadline is the time by which a run must have written its result, and
// where it comes from (for messages): "--deadline 30m", "Slurm job 42".
type Deadline struct {
	At     time.Time
	Source string
}

// Zero reports whether there is no deadline.
func (d Deadline) Zero() bool { return d.At.IsZero() }

// ParseDeadline reads a --deadline value at time now: a duration from now
// ("90s", "45m", "2h30m": Go's time.ParseDuration, > 0), a clock time
// today ("17:30", "17:30:15"; tomorrow when already past), or a date and
// time ("2026-11-26T17:30", "2026-11-26T17:30:15", local time; RFC 3339
// with a zone, "2026-11-26T17:30:15Z"). The error says what is accepted.
func ParseDeadline(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if d, err := time.ParseDuration(s); err == nil {
		if d <= 0 {
			return time.Time{}, fmt.Errorf("the duration %q must be > 0", s)
		}
		return now.Add(d), nil
	}
	for _, layout := range []string{"15:04", "15:04:05"} {
		if t, err := time.ParseInLocation(layout, s, now.Location()); err == nil {
			at := time.Date(now.Year(), now.Month(), now.Day(), t.Hour(), t.Minute(), t.Second(), 0, now.Location())
			if !at.After(now) {
				at = at.AddDate(0, 0, 1)
			}
			return at, nil
		}
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	for _, layout := range []string{"2006-01-02T15:04", "2006-01-02T15:04:05", "2006-01-02 15:04", "2006-01-02 15:04:05"} {
		if t, err := time.ParseInLocation(layout, s, now.Location()); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a duration (90s, 45m, 2h30m), a clock time (17:30) or a date and time (2026-11-26T17:30)", s)
}

// Getenv and Run are what SlurmEnd reads the job from: the environment,
// and a command's standard output (squeue).
type (
	Getenv func(string) string
	Run    func(ctx context.Context, name string, args ...string) ([]byte, error)
)

// RunCommand runs name with args and returns its standard output.
func RunCommand(ctx context.Context, name string, args ...string) ([]byte, error) {
	return exec.CommandContext(ctx, name, args...).Output()
}

// ErrNoJob is SlurmEnd's error outside a Slurm job.
var ErrNoJob = errors.New("not in a Slurm job")

// SlurmEnd returns the end time of the Slurm job the process runs in
// (SLURM_JOB_ID): SLURM_JOB_END_TIME (Unix seconds, Slurm 23.02 and
// later) when set, else what `squeue -h -j ID -o %e` prints (the end time
// in local time, "2026-11-26T17:30:15"). A job without a time limit
// (squeue's "N/A", "NONE", "Unknown") has none: ErrNoJob's sibling error
// says so. It gives squeue 10 seconds.
func SlurmEnd(getenv Getenv, run Run, loc *time.Location) (Deadline, error) {
	id := getenv("SLURM_JOB_ID")
	if id == "" {
		return Deadline{}, ErrNoJob
	}
	src := "the time limit of Slurm job " + id
	if s := getenv("SLURM_JOB_END_TIME"); s != "" {
		sec, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil || sec <= 0 {
			return Deadline{}, fmt.Errorf("SLURM_JOB_END_TIME=%q is not a time in seconds", s)
		}
		return Deadline{At: time.Unix(sec, 0), Source: src}, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := run(ctx, "squeue", "-h", "-j", id, "-o", "%e")
	if err != nil {
		return Deadline{}, fmt.Errorf("squeue -h -j %s -o %%e: %v", id, err)
	}
	s := strings.TrimSpace(string(out))
	switch s {
	case "", "N/A", "NONE", "Unknown", "INVALID":
		return Deadline{}, fmt.Errorf("Slurm job %s has no end time (squeue says %q)", id, s)
	}
	at, err := time.ParseInLocation("2006-01-02T15:04:05", s, loc)
	if err != nil {
		return Deadline{}, fmt.Errorf("squeue -h -j %s -o %%e printed %q, not a time", id, s)
	}
	return Deadline{At: at, Source: src}, nil
}

// Budget decides, with a deadline, whether the next step of a run can
// start: a step may start when the longest step so far, with a margin of a
// quarter, and the reserve (the time to write the result) end before the
// deadline. Before any step has been timed, one may always start (the
// first step's duration is not known); a deadline already past allows
// none.
type Budget struct {
	Deadline Deadline
	Reserve  time.Duration
	longest  time.Duration
}

// Took records a step's duration.
func (b *Budget) Took(d time.Duration) { b.longest = max(b.longest, d) }

// Longest returns the longest step so far.
func (b *Budget) Longest() time.Duration { return b.longest }

// CanStart reports whether a step may start at now.
func (b *Budget) CanStart(now time.Time) bool {
	if b.Deadline.Zero() {
		return true
	}
	need := b.Reserve + b.longest + b.longest/4
	return !now.Add(need).After(b.Deadline.At)
}

// GiveUpAt is when the work under way must be given up for the result to
// be written in time: the deadline less the reserve.
func (b *Budget) GiveUpAt() time.Time { return b.Deadline.At.Add(-b.Reserve) }
