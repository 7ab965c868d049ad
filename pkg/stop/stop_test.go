package stop

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestAsk: the first signal opens Asked; a repeat within Window (Slurm's
// double SIGTERM) changes nothing; one later opens Now; a nil Request
// never asks.
func TestAsk(t *testing.T) {
	r := New()
	t0 := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	closed := func(c <-chan struct{}) bool {
		select {
		case <-c:
			return true
		default:
			return false
		}
	}
	if closed(r.Asked()) || r.Signal() != nil || r.Number() != 0 {
		t.Fatal("a new request is asked")
	}
	steps := []struct {
		at         time.Duration
		sig        syscall.Signal
		n          int
		asked, now bool
	}{
		{0, syscall.SIGTERM, 1, true, false},
		{5 * time.Millisecond, syscall.SIGTERM, 0, true, false}, // Slurm's second SIGTERM
		{900 * time.Millisecond, syscall.SIGINT, 0, true, false},
		{2 * time.Second, syscall.SIGINT, 2, true, true},
		{3 * time.Second, syscall.SIGINT, 3, true, true},
	}
	for _, s := range steps {
		if n := r.Ask(s.sig, t0.Add(s.at)); n != s.n || closed(r.Asked()) != s.asked || closed(r.Now()) != s.now {
			t.Fatalf("at %v: Ask returned %d (want %d), asked %t now %t", s.at, n, s.n, closed(r.Asked()), closed(r.Now()))
		}
	}
	if r.Number() != syscall.SIGTERM || Name(r.Signal()) != "SIGTERM" {
		t.Fatalf("the request's signal is %v, want the first one", r.Signal())
	}
	var nilReq *Request
	if nilReq.Asked() != nil || nilReq.Now() != nil || nilReq.Signal() != nil || nilReq.Number() != 0 {
		t.Fatal("a nil request asks something")
	}
	nilReq.GiveUp()
	g := New()
	g.GiveUp()
	if !closed(g.Now()) || closed(g.Asked()) {
		t.Fatal("GiveUp: Now not closed, or Asked closed")
	}
}

// TestParseDeadline: durations, clock times (tomorrow when past) and
// dates; anything else names what is accepted.
func TestParseDeadline(t *testing.T) {
	loc := time.FixedZone("X", 3600)
	now := time.Date(2026, 11, 26, 10, 0, 0, 0, loc)
	for _, c := range []struct {
		in   string
		want time.Time
	}{
		{"90s", now.Add(90 * time.Second)},
		{"2h30m", now.Add(150 * time.Minute)},
		{"17:30", time.Date(2026, 11, 26, 17, 30, 0, 0, loc)},
		{"09:15:05", time.Date(2026, 11, 27, 9, 15, 5, 0, loc)},
		{"2026-11-26T11:00", time.Date(2026, 11, 26, 11, 0, 0, 0, loc)},
		{"2026-11-26 11:00:30", time.Date(2026, 11, 26, 11, 0, 30, 0, loc)},
		{"2026-11-26T11:00:00Z", time.Date(2026, 11, 26, 11, 0, 0, 0, time.UTC)},
	} {
		got, err := ParseDeadline(c.in, now)
		if err != nil || !got.Equal(c.want) {
			t.Errorf("%q: %v %v, want %v", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "-5m", "0s", "soon", "25:00", "2026-13-01T00:00"} {
		if _, err := ParseDeadline(bad, now); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
	if _, err := ParseDeadline("soon", now); !strings.Contains(err.Error(), "a duration (90s, 45m, 2h30m), a clock time (17:30) or a date and time") {
		t.Errorf("message %q does not say what is accepted", err)
	}
}

// TestSlurmEnd: outside a job, none; SLURM_JOB_END_TIME first; squeue's
// end time in local time; a job without a limit and squeue failures are
// errors that say so.
func TestSlurmEnd(t *testing.T) {
	loc := time.FixedZone("X", -7200)
	env := func(kv ...string) Getenv {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	var asked []string
	squeue := func(out string, err error) Run {
		return func(_ context.Context, name string, args ...string) ([]byte, error) {
			asked = append(asked, name+" "+strings.Join(args, " "))
			return []byte(out), err
		}
	}
	if _, err := SlurmEnd(env(), squeue("", nil), loc); !errors.Is(err, ErrNoJob) {
		t.Fatalf("outside a job: %v", err)
	}
	d, err := SlurmEnd(env("SLURM_JOB_ID", "42", "SLURM_JOB_END_TIME", "1800000000"), squeue("", errors.New("not called")), loc)
	if err != nil || !d.At.Equal(time.Unix(1800000000, 0)) || d.Source != "the time limit of Slurm job 42" || len(asked) != 0 {
		t.Fatalf("SLURM_JOB_END_TIME: %v %v (squeue asked %v)", d, err, asked)
	}
	d, err = SlurmEnd(env("SLURM_JOB_ID", "42"), squeue("2026-11-26T17:30:15\n", nil), loc)
	if err != nil || !d.At.Equal(time.Date(2026, 11, 26, 17, 30, 15, 0, loc)) || asked[0] != "squeue -h -j 42 -o %e" {
		t.Fatalf("squeue: %v %v (asked %v)", d, err, asked)
	}
	for _, c := range []struct {
		out  string
		err  error
		want string
	}{
		{"N/A", nil, `has no end time (squeue says "N/A")`},
		{"Unknown", nil, "has no end time"},
		{"tomorrow", nil, `printed "tomorrow", not a time`},
		{"", errors.New("exit status 1"), "squeue -h -j 42 -o %e: exit status 1"},
	} {
		if _, err := SlurmEnd(env("SLURM_JOB_ID", "42"), squeue(c.out, c.err), loc); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("squeue %q %v: %v, want %q", c.out, c.err, err, c.want)
		}
	}
}

// TestBudget: the first step may start while the reserve fits; later
// steps need the longest so far plus a quarter, and the reserve.
func TestBudget(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	b := Budget{Deadline: Deadline{At: t0.Add(60 * time.Second)}, Reserve: 3 * time.Second}
	if !b.CanStart(t0) || !b.CanStart(t0.Add(57*time.Second)) || b.CanStart(t0.Add(57*time.Second+1)) {
		t.Fatal("before any step: want a start allowed until the deadline less the reserve")
	}
	b.Took(8 * time.Second)
	b.Took(4 * time.Second)
	// 8 s + 2 s + 3 s = 13 s needed.
	if !b.CanStart(t0.Add(47*time.Second)) || b.CanStart(t0.Add(47*time.Second+time.Millisecond)) || b.Longest() != 8*time.Second {
		t.Fatal("after steps of 8 s and 4 s: want starts until 13 s before the deadline")
	}
	if !b.GiveUpAt().Equal(t0.Add(57 * time.Second)) {
		t.Fatalf("GiveUpAt %v", b.GiveUpAt())
	}
	var none Budget
	none.Took(time.Hour)
	if !none.CanStart(t0) {
		t.Fatal("no deadline: a step must always start")
	}
}
