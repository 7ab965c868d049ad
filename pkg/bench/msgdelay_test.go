package bench

import (
	"math"
	"sync"
	"testing"
	"time"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/kind"
	"github.com/exageostat/exageostat/pkg/trace"
)

// TestMessageDelays: the messages whose receiver had an idle worker when
// their data became ready, by hand on two ranks (times in microseconds on
// rank 0's clock; rank 1's events recorded on a clock skew ahead and put
// back by onClock), against links of 10 us and 1e9 B/s (8000 bytes:
// 18 us on the link).
func TestMessageDelays(t *testing.T) {
	us := func(x int64) int64 { return 1000 * x }
	task := func(rank, worker int, start, end int64) trace.Event {
		return trace.Event{Kind: kind.Gemm, Rank: rank, Worker: worker, Ready: us(start), Start: us(start), End: us(end)}
	}
	// msg returns the send (on src) and the receive (on dst) of a message
	// of tag whose data was ready at ready and that was received at recv.
	msg := func(src, dst, tag int, ready, recv int64) []trace.Event {
		return []trace.Event{
			{Kind: kind.Send, Rank: src, Worker: -1, Src: src, Dst: dst, Tag: tag, Ready: us(ready), Start: us(ready + 50), End: us(recv + 20), Bytes: 8000},
			{Kind: kind.Recv, Rank: dst, Worker: -1, Src: src, Dst: dst, Tag: tag, Start: us(1), End: us(recv), Bytes: 8000},
		}
	}
	cat := func(parts ...[]trace.Event) []trace.Event {
		var out []trace.Event
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	net := config.Network{Bandwidth: 1e9, Latency: 1e-5}
	cases := []struct {
		name string
		ev   []trace.Event
		skew int64 // rank 1's clock ahead of rank 0's, us
		want MessageDelay
	}{
		// Rank 1's worker is idle at 1000 (tag 1: 2000 us) and at 5600
		// (tag 3: 1400 us), busy at 4000 (tag 2: left out); rank 0's is
		// idle at 5000 (tag 5: 400 us), busy at 5500 (tag 6: left out).
		// Median 1400 us (mean 1266.67), less the link's 18 us; the
		// delays less the link, sorted: 382, 1382, 1982 us (p90 by
		// interpolation 1382 + 0.8 x 600, p99 1382 + 0.98 x 600). Tag
		// 2 would arrive at 4000 + 18 + 1382 = 5400, rank 1 busy until
		// 5500: it completed (4500) before, so 0 after.
		{"mixed", cat(
			[]trace.Event{task(0, 0, 0, 1000), task(0, 0, 5410, 6000)},
			[]trace.Event{task(1, 0, 0, 500), task(1, 0, 3020, 5000), task(1, 0, 5000, 5500)},
			msg(0, 1, 1, 1000, 3000), msg(0, 1, 2, 4000, 4500), msg(0, 1, 3, 5600, 7000),
			msg(1, 0, 5, 5000, 5400), msg(1, 0, 6, 5500, 5600),
		), 5000, MessageDelay{Messages: 3, Median: 1400e-6, Mean: 3800e-6 / 3, Link: 18e-6, Delay: 1382e-6,
			Extra: []float64{382e-6, 1382e-6, 1982e-6}, P90: 1862e-6, P99: 1970e-6, Max: 1982e-6, Busy: 1, After: []float64{0}}},
		// Rank 1's worker runs a task until 3000: both messages arrive
		// (118, 218) while it is busy (none reaches an idle worker: no
		// delay) and complete 600 and 200 us after it ends: median 400.
		{"busy receiver", cat(
			[]trace.Event{task(1, 0, 0, 3000)}, msg(0, 1, 1, 100, 3600), msg(0, 1, 2, 200, 3200),
		), 0, MessageDelay{Busy: 2, After: []float64{200e-6, 600e-6}, BusyMedian: 400e-6}},
		// One idle worker of two is enough; both busy: left out (and
		// at 100 + 18 + 282 worker 1 is idle again: not a busy receive).
		{"two workers", cat(
			[]trace.Event{task(1, 0, 0, 1000), task(1, 1, 0, 200)},
			msg(0, 1, 1, 500, 800), msg(0, 1, 2, 100, 900),
		), 0, MessageDelay{Messages: 1, Median: 300e-6, Mean: 300e-6, Link: 18e-6, Delay: 282e-6,
			Extra: []float64{282e-6}, P90: 282e-6, P99: 282e-6, Max: 282e-6}},
		// Faster than the link model: no delay.
		{"within the link", cat([]trace.Event{task(1, 0, 0, 50)}, msg(0, 1, 1, 100, 110)), 0, MessageDelay{Messages: 1, Median: 10e-6, Mean: 10e-6, Link: 18e-6, Extra: []float64{0}}},
		{"none", []trace.Event{task(0, 0, 0, 10)}, 0, MessageDelay{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ev := append([]trace.Event(nil), c.ev...)
			for i := range ev {
				if e := &ev[i]; e.Rank == 1 {
					e.Start, e.End, e.Ready = e.Start+us(c.skew), e.End+us(c.skew), e.Ready+us(c.skew)
				}
			}
			if err := onClock(ev, []int64{0, us(c.skew)}); err != nil {
				t.Fatal(err)
			}
			got := messageDelays(ev, net)
			if got.Messages != c.want.Messages || got.Busy != c.want.Busy ||
				!nearAll([]float64{got.Median, got.Mean, got.Link, got.Delay, got.P90, got.P99, got.Max, got.BusyMedian},
					[]float64{c.want.Median, c.want.Mean, c.want.Link, c.want.Delay, c.want.P90, c.want.P99, c.want.Max, c.want.BusyMedian}) ||
				!nearAll(got.Extra, c.want.Extra) || !nearAll(got.After, c.want.After) {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
		})
	}
	if err := onClock([]trace.Event{{Rank: 2}}, []int64{0, 0}); err == nil {
		t.Error("an event of rank 2 put on the clocks of 2 ranks")
	}
}

// TestClockOffsets: three in-process ranks whose clocks are 0, 1 s and
// -2 s off rank 0's: the offsets come back within 5 ms (half the best of
// the round trips between goroutines) on rank 0, nil on the others.
func TestClockOffsets(t *testing.T) {
	skew := []int64{0, 1e9, -2e9}
	base := time.Now()
	got := make([][]int64, 3)
	onRanks(t, 3, func(r int, w comm.Comm) (err error) {
		got[r], err = clockOffsets(w, func() int64 { return int64(time.Since(base)) + skew[r] })
		return err
	})
	if got[1] != nil || got[2] != nil || len(got[0]) != 3 {
		t.Fatalf("offsets %v", got)
	}
	for r, want := range skew {
		if math.Abs(float64(got[0][r]-want)) > 5e6 {
			t.Errorf("rank %d: offset %d ns, want %d", r, got[0][r], want)
		}
	}
}

// onRanks runs f on n in-process ranks (comm.NewGroup) at once and fails
// t on a rank's error.
func onRanks(t *testing.T, n int, f func(r int, w comm.Comm) error) {
	t.Helper()
	g := comm.NewGroup(n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for r := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[r] = f(r, g.Endpoint(r))
		}()
	}
	wg.Wait()
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
}
