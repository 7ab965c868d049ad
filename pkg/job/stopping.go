package job

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/mle"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/stop"
)

// How a fit ends early.
//
// A signal (SIGINT, SIGTERM: Env.Stop) asks for an orderly stop. Before
// the search there is nothing to keep: a blocked read is given up
// (Inputs), and the run ends with nothing written. During the search the
// evaluation under way ends, or is given up (runtime.Cancel: its tasks
// are skipped) when it would not end within the grace period (Env.
// StopGrace: 20 s, half a second under mpirun, which kills its ranks a
// second after forwarding a signal), or at once on a repeated signal; the
// search stops there, the best so far is written with status
// "interrupted", and the evaluation given up is not in the checkpoint, so
// that --resume computes it and goes on bitwise. After the search the
// assessment under way (kriging, Fisher information, profile intervals,
// cross-validation) is given up at once: the estimate is written without
// it, and says so. The exit status is 128 + the signal (130, 143).
//
// A deadline (--deadline, or the end of the Slurm job: stop.SlurmEnd)
// stops the search before an evaluation that would not end in time (the
// longest so far, plus a quarter, plus the reserve to write the result:
// stop.Budget); the result is written with status "deadline", the exit
// status is 143, and --resume goes on bitwise. Past the deadline less the
// reserve, the work under way is given up as for a signal.
//
// The ranks agree after every evaluation (one AllreduceMin) on whether to
// stop and why: a signal any rank received (the smallest number), else
// rank 0's deadline.

// StopGrace is how long an evaluation under way may go on after a signal
// before it is given up, unless the launcher kills sooner (stopGrace).
const StopGrace = 20 * time.Second

// DeadlineReserve is the time a fit keeps before its deadline to write
// its result.
const DeadlineReserve = 2 * time.Second

// Interrupted is the error of a fit that a signal or its deadline stopped:
// the best result so far was written (JSON, checkpoint) with status
// "interrupted" or "deadline", and comes back with the error, unless the
// run stopped before its first evaluation (Evaluations 0, or Reading a
// file). The ranks agree on it. The process should exit with ExitCode,
// 128 + the signal's number (130 for SIGINT, 143 for SIGTERM and the
// deadline).
type Interrupted struct {
	// Cmd is the command stopped ("" : fit).
	Cmd         string
	Signal      syscall.Signal
	Evaluations int    // evaluations of the search (replayed included)
	Checkpoint  string // the checkpoint to resume from ("" without one)
	// Deadline is set when the deadline, not a signal, stopped the run;
	// Next is then the time the next evaluation would have taken.
	Deadline *stop.Deadline
	Next     time.Duration
	// Reading is the input file whose read the signal gave up.
	Reading string
	// Complete is set when the signal came after the search: the
	// estimate is complete; Skipped names what of the assessment was
	// given up ("" : nothing).
	Complete bool
	Skipped  string
}

func (e *Interrupted) Error() string {
	name := stop.Name(e.Signal)
	cmd := e.Cmd
	if cmd == "" {
		cmd = "fit"
	}
	switch {
	case e.Reading != "":
		return fmt.Sprintf("%s: %s while reading %s: stopped before any work, nothing written", cmd, name, e.Reading)
	case e.Complete && e.Skipped != "":
		return fmt.Sprintf("%s: %s after the search: the estimate is complete and written; not computed: %s", cmd, name, e.Skipped)
	case e.Complete:
		return fmt.Sprintf("%s: %s after the search: the result is complete", cmd, name)
	case cmd != "fit":
		return fmt.Sprintf("%s: interrupted by %s: nothing written", cmd, name)
	}
	var msg string
	if e.Deadline != nil {
		msg = fmt.Sprintf("fit: stopped for the deadline %s (%s) after %d evaluations", e.Deadline.At.Format("2006-01-02 15:04:05"), e.Deadline.Source, e.Evaluations)
		if e.Next > 0 {
			msg += fmt.Sprintf(": the next would take about %.1fs", e.Next.Seconds())
		}
	} else {
		msg = fmt.Sprintf("fit: interrupted by %s after %d evaluations", name, e.Evaluations)
	}
	if e.Evaluations == 0 {
		return msg + "; nothing written"
	}
	if e.Checkpoint != "" {
		msg += fmt.Sprintf("; continue with --resume %s", e.Checkpoint)
	}
	return msg
}

// ExitCode returns 128 + the signal's number.
func (e *Interrupted) ExitCode() int { return 128 + int(e.Signal) }

// Status is the status of an interrupted search in the results.
func (e *Interrupted) Status() string {
	if e.Deadline != nil {
		return "deadline"
	}
	return mle.StatusInterrupted
}

// Votes of the ranks after each evaluation (AllreduceMin): a signal's
// number, else deadlineVote, else noSignal.
const (
	deadlineVote = 1 << 20
	noSignal     = 1 << 30
)

// Phases of a fit, for the stop watcher.
const (
	phaseSetup = iota
	phaseSearch
	phaseAfter
)

// runStop carries a run's stop request, its deadline and the runtime to
// give up, and makes the ranks' stop decisions (see above). A command
// without a search (predict, simulate) is in phaseAfter from the start:
// a signal gives its work up at once.
type runStop struct {
	w      comm.Comm
	req    *stop.Request
	grace  time.Duration
	budget stop.Budget // rank 0's deadline

	mu        sync.Mutex
	rt        *runtime.Runtime
	phase     int
	evalStart time.Time
	cancelled bool
	done      chan struct{}

	// Agreed by check: the signal, or the deadline.
	sig      syscall.Signal
	deadline bool
}

// newRunStop returns the stop control of a fit on w with env's request
// and the deadline dl (zero: none; only rank 0's counts), and starts
// watching it.
func newRunStop(w comm.Comm, env Env, dl stop.Deadline) *runStop {
	s := &runStop{w: w, req: env.Stop, grace: env.StopGrace, done: make(chan struct{})}
	if s.grace == 0 {
		s.grace = stopGrace(os.Getenv)
	}
	if w.Rank() == 0 {
		s.budget = stop.Budget{Deadline: dl, Reserve: DeadlineReserve}
	}
	go s.watch()
	return s
}

// stopGrace is the grace period of an evaluation under way after a
// signal: StopGrace, or half of what mpirun waits between forwarding a
// signal and killing its ranks (odls_base_sigkill_timeout, 1 s unless
// given), for the result to be written before.
func stopGrace(getenv func(string) string) time.Duration {
	if getenv("OMPI_MCA_orte_hnp_uri") == "" { // not started by mpirun
		return StopGrace
	}
	sec := 1.0
	if v := getenv("OMPI_MCA_odls_base_sigkill_timeout"); v != "" {
		fmt.Sscan(v, &sec)
	}
	return time.Duration(sec * float64(time.Second) / 2)
}

// attach gives the watcher the runtime to give up (Cancel).
func (s *runStop) attach(rt *runtime.Runtime) {
	s.mu.Lock()
	s.rt = rt
	c := s.cancelled
	s.mu.Unlock()
	if c {
		rt.Cancel(s.cause())
	}
}

// cause is the error the runtime is cancelled with.
func (s *runStop) cause() error {
	if sig := s.req.Number(); sig != 0 {
		return fmt.Errorf("%s", stop.Name(sig))
	}
	return errors.New("the deadline")
}

// cancel gives up the runtime's work.
func (s *runStop) cancel() {
	s.mu.Lock()
	s.cancelled = true
	rt := s.rt
	s.mu.Unlock()
	if rt != nil {
		rt.Cancel(s.cause())
	}
}

// setPhase moves the fit to phase p (phaseSearch: the first evaluation
// starts).
func (s *runStop) setPhase(p int) {
	s.mu.Lock()
	s.phase, s.evalStart = p, time.Now()
	s.mu.Unlock()
}

// close stops the watcher.
func (s *runStop) close() { close(s.done) }

// watch waits for a signal or the deadline and gives up the work under
// way when it must (see above).
func (s *runStop) watch() {
	var timer <-chan time.Time
	if !s.budget.Deadline.Zero() {
		t := time.NewTimer(time.Until(s.budget.GiveUpAt()))
		defer t.Stop()
		timer = t.C
	}
	select {
	case <-s.done:
		return
	case <-timer:
		s.cancel()
		return
	case <-s.req.Asked():
	}
	asked := time.Now()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if s.mustGiveUp(asked, time.Now()) {
			s.cancel()
			return
		}
		select {
		case <-s.done:
			return
		case <-s.req.Now():
			s.cancel()
			return
		case <-timer:
			s.cancel()
			return
		case <-tick.C:
		}
	}
}

// mustGiveUp reports whether, a signal having come at asked, the work
// under way at now must be given up: any work but an evaluation of the
// search, an evaluation past the grace period, or one that would end
// after it by the longest so far.
func (s *runStop) mustGiveUp(asked, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.phase != phaseSearch {
		return true
	}
	end := asked.Add(s.grace)
	if now.After(end) {
		return true
	}
	if l := s.budget.Longest(); l > 0 {
		return s.evalStart.Add(l + l/4).After(end)
	}
	return false
}

// step records an evaluation's wall time (rank 0's budget; replayed
// ones cost nothing).
func (s *runStop) step(st mle.Step) {
	if !st.Replayed {
		s.mu.Lock()
		s.budget.Took(time.Duration(st.Stats.Wall * float64(time.Second)))
		s.mu.Unlock()
	}
}

// check is the search's stop test (mle.Options.Stop), after every
// evaluation on every rank: the ranks agree on a signal (the smallest
// number any received) or rank 0's deadline. The next evaluation starts
// when it returns false.
func (s *runStop) check() bool {
	var mine int64 = noSignal
	s.mu.Lock()
	late := !s.budget.CanStart(time.Now())
	s.mu.Unlock()
	if sig := s.req.Number(); sig > 0 {
		mine = int64(sig)
	} else if late {
		mine = deadlineVote
	}
	if s.w.Size() > 1 {
		m, err := s.w.AllreduceMin(mine)
		if err != nil {
			return false
		}
		mine = m
	}
	switch {
	case mine < deadlineVote:
		s.sig = syscall.Signal(mine)
		return true
	case mine == deadlineVote:
		s.sig, s.deadline = syscall.SIGTERM, true
		return true
	}
	s.mu.Lock()
	s.evalStart = time.Now()
	s.mu.Unlock()
	return false
}

// stopped reports, outside the search, whether a signal came (this
// rank's), for the fit to end before starting more work.
func (s *runStop) stopped() bool { return s.req.Number() != 0 || s.isCancelled() }

func (s *runStop) isCancelled() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cancelled
}

// interrupted returns the error of a search the agreed stop ended after
// evals evaluations, with the checkpoint to resume.
func (s *runStop) interrupted(evals int, ckpt string) *Interrupted {
	e := &Interrupted{Signal: s.sig, Evaluations: evals, Checkpoint: ckpt}
	if e.Signal == 0 { // an evaluation given up on the deadline's timer
		e.Signal = s.req.Number()
		if e.Signal == 0 {
			e.Signal, s.deadline = syscall.SIGTERM, true
		}
	}
	if s.deadline && s.w.Rank() == 0 {
		s.mu.Lock()
		dl, l := s.budget.Deadline, s.budget.Longest()
		s.mu.Unlock()
		e.Deadline, e.Next = &dl, l+l/4
	} else if s.deadline {
		e.Deadline = &stop.Deadline{Source: "rank 0's deadline"}
	}
	return e
}

// early returns the error of a fit that a signal stopped before its
// search (nothing computed), or nil.
func (s *runStop) early() error {
	if sig := s.req.Number(); sig != 0 {
		return &Interrupted{Signal: sig}
	}
	return nil
}

// given up reports whether err comes from work this fit gave up.
func givenUp(err error) bool {
	return errors.Is(err, runtime.ErrCanceled) || errors.Is(err, mle.ErrAbandoned) || errors.Is(err, mle.ErrInterrupted)
}

// fitDeadline returns the deadline of a fit on rank 0 (the others decide
// nothing alone): --deadline ("none": no deadline), else the end of the
// Slurm job it runs in, if any (a Slurm job whose end cannot be read gets
// a note and no deadline). A deadline that leaves less than the reserve
// is bad input.
func fitDeadline(w comm.Comm, cfg config.Fit, env Env) (stop.Deadline, error) {
	if w.Rank() != 0 || cfg.Deadline == "none" {
		return stop.Deadline{}, nil
	}
	now := time.Now()
	if cfg.Deadline != "" {
		at, err := stop.ParseDeadline(cfg.Deadline, now)
		if err == nil && at.Before(now.Add(DeadlineReserve)) {
			err = fmt.Errorf("%s is past, or less than %v away (the time kept to write the result)", at.Format("2006-01-02 15:04:05"), DeadlineReserve)
		}
		if err != nil {
			return stop.Deadline{}, cfg.Locate(&config.Error{File: cfg.File, Key: "deadline", Msg: "--deadline: " + err.Error()})
		}
		return stop.Deadline{At: at, Source: "--deadline " + cfg.Deadline}, nil
	}
	dl, err := stop.SlurmEnd(os.Getenv, stop.RunCommand, time.Local)
	switch {
	case errors.Is(err, stop.ErrNoJob):
		return stop.Deadline{}, nil
	case err != nil:
		env.warnf("note: no deadline from Slurm: %v (--deadline sets one)\n", err)
		return stop.Deadline{}, nil
	}
	env.logf("fit: deadline %s (%s): no evaluation starts that would end later; the result is written %v before\n",
		dl.At.Format("2006-01-02 15:04:05"), dl.Source, DeadlineReserve)
	return dl, nil
}
