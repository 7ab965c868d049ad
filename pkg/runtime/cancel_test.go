package runtime

import (
	"errors"
	"sync/atomic"
	"testing"

	"github.com/exageostat/exageostat/pkg/comm"
)

// TestCancel: a task that cancels the runtime leaves the later tasks of
// its chain unrun; Wait returns the cancellation (errors.Is ErrCanceled,
// the caller's error kept) at this and every later call; on three ranks a
// cancellation on rank 1 alone reaches every rank's Wait.
func TestCancel(t *testing.T) {
	why := errors.New("SIGTERM")
	for _, ranks := range []int{1, 3} {
		errs := make([][2]error, ranks)
		var ran atomic.Int64
		const chain = 50
		runRanks(t, ranks, func(c comm.Comm) {
			rt := New(Options{Workers: 2, Comm: c})
			defer rt.Close()
			// One chain per rank, on a handle that rank owns.
			hs := make([]*Handle, ranks)
			for q := range hs {
				hs[q] = rt.Register("x", q, Vector{N: 1})
			}
			for i := range chain {
				for q, h := range hs {
					mode := RW
					if i == 0 {
						mode = W
					}
					rt.Submit(Task{Kind: "step", Access: []Access{{H: h, Mode: mode}}, Run: func(Context) error {
						ran.Add(1)
						if i == 10 && q == ranks/2 {
							rt.Cancel(why)
						}
						return nil
					}})
				}
			}
			errs[c.Rank()][0] = rt.Wait()
			for _, h := range hs {
				rt.Submit(Task{Kind: "after", Access: []Access{{H: h, Mode: RW}}, Run: func(Context) error {
					ran.Add(1000)
					return nil
				}})
			}
			errs[c.Rank()][1] = rt.Wait()
		})
		for r, e := range errs {
			for k, err := range e {
				if !errors.Is(err, ErrCanceled) {
					t.Errorf("%d ranks: rank %d: Wait %d: %v, want ErrCanceled", ranks, r, k+1, err)
				}
			}
		}
		if !errors.Is(errs[ranks/2][0], why) {
			t.Errorf("%d ranks: the cancelling rank's error %v does not keep the cause", ranks, errs[ranks/2][0])
		}
		// The cancelling chain stops after its 11th task; the others may
		// have run further, never to the end, nor past the first Wait.
		if n := ran.Load(); n >= 1000 || n >= int64(ranks*chain) || (ranks == 1 && n != 11) {
			t.Errorf("%d ranks: %d tasks ran (%d chains of %d)", ranks, n, ranks, chain)
		}
	}
}
