package runtime

import "errors"

// ErrCanceled is the error of the work Cancel gave up: errors.Is finds it
// in Wait's error on every rank of a distributed run.
var ErrCanceled = errors.New("the work under way was given up")

// canceledClass is ErrCanceled's ErrorClass, which carries it to the other
// ranks (RemoteError.Is).
const canceledClass = "canceled"

// canceled is the error Cancel records: err, marked as ErrCanceled.
type canceled struct{ err error }

func (e *canceled) Error() string        { return e.err.Error() }
func (e *canceled) Unwrap() []error      { return []error{e.err, ErrCanceled} }
func (e *canceled) ErrorClass() string   { return canceledClass }
func (e *RemoteError) Is(t error) bool   { return t == ErrCanceled && e.Class == canceledClass }
func (r *Runtime) cancelErr() *TaskError { return r.cancelled.Load() }

// Cancel gives up this runtime's work, from any goroutine (a signal's, a
// deadline's timer): the tasks that have not started are skipped, as after
// a task failure, and Wait returns a *TaskError wrapping err and
// ErrCanceled, at the next call and at every later one, so that whatever
// the job does next ends at once. The tasks running finish first (a task
// is not interrupted). In a distributed run the error wins Wait's
// agreement, so every rank returns it, whichever rank cancelled. The first
// call's err is kept. Close still works.
func (r *Runtime) Cancel(err error) {
	if err == nil {
		err = ErrCanceled
	}
	te := &TaskError{Task: "(none: cancelled)", Err: &canceled{err: err}, Rank: r.rank, Ranks: r.size}
	r.cancelled.CompareAndSwap(nil, te)
	r.failed.Store(true)
	if r.work != nil { // not a recording runtime
		r.mu.Lock()
		r.work.Broadcast()
		r.mu.Unlock()
	}
}

// keepCancel makes a cancellation that Wait's agreement brought from
// another rank this rank's too: its later graphs are skipped as well.
func (r *Runtime) keepCancel(err error) {
	var te *TaskError
	if errors.Is(err, ErrCanceled) && errors.As(err, &te) {
		r.cancelled.CompareAndSwap(nil, te)
		r.failed.Store(true)
	}
}
