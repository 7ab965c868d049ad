package bench

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/trace"
)

// MessageDelay is what messages took in real runs (messageDelays).
type MessageDelay struct {
	// Messages counts the messages measured: those whose receiving rank
	// had an idle worker when their data became ready at the sender.
	Messages int `json:"messages"`
	// Median and Mean are their delays' from the data being ready at
	// the sender (the send's dependency, the task that wrote the tile,
	// ended) to the receive completing at the receiver, seconds.
	Median float64 `json:"median_seconds"`
	Mean   float64 `json:"mean_seconds"`
	// Link is their mean link time in the model, latency + bytes /
	// bandwidth, seconds.
	Link float64 `json:"link_seconds"`
	// Delay is the median over the messages of their delay less their
	// link time, at least 0: what the runtime adds to the wire, the
	// simulator's message delay (sim.Options.MessageDelay).
	Delay float64 `json:"delay_seconds"`
	// Extra holds each message's delay less its link time, at least 0,
	// sorted: the distribution the history simulations draw each
	// message's delay from (sim.Options.MessageDelays). P90 and P99 are
	// its 90th and 99th percentiles (quantile), Max its largest.
	Extra []float64 `json:"-"`
	P90   float64   `json:"extra_p90_seconds"`
	P99   float64   `json:"extra_p99_seconds"`
	Max   float64   `json:"extra_max_seconds"`
	// Busy counts the messages that would arrive (data ready + link +
	// Delay) while every worker of their receiving rank ran a task, and
	// After holds, sorted, each one's receive end less the end of the
	// receiver's first task to end from then on, at least 0
	// (sim.Options.BusyReceives); BusyMedian is its median.
	Busy       int       `json:"busy_messages"`
	After      []float64 `json:"-"`
	BusyMedian float64   `json:"busy_receive_median_seconds"`
}

// trimmed returns the values of the sorted x at or below its q-quantile
// (quantile; all of them for q >= 1).
func trimmed(x []float64, q float64) []float64 {
	if q >= 1 || len(x) == 0 {
		return x
	}
	t := quantile(x, q)
	i, _ := slices.BinarySearch(x, math.Nextafter(t, math.Inf(1)))
	return x[:i]
}

// messageDelays measures, in ev (the send, receive and task events of
// every rank, on one clock), the delay of the messages whose receiving
// rank had an idle worker when their data became ready at the sender
// (the send's Ready): the receiver could use them at once, so their
// delay, recv.End - send.Ready, is the message's own (posting the send,
// the copy, the receiver's progress goroutine noticing it, each waiting
// for a core while the workers compute), not the time the receiving
// workers were busy with other tasks. The choice depends on the
// receiver's state, not on the delay, so long delays are not favoured
// (taking the messages a worker waited for would: a message that came
// early is never waited for). The result's Delay is the median of each
// message's delay less its link time net.Latency + bytes /
// net.Bandwidth, at least 0: the median, not the mean, because the delays
// have a long tail that a burst of another process's load on the shared
// machine lengthens (one history run at load 4 had a mean of 14.7 ms
// where the median stays at 2-3 ms, with quiet timed runs after it).
func messageDelays(ev []trace.Event, net config.Network) MessageDelay {
	type lane struct{ rank, worker int }
	busy := map[lane][][2]int64{} // per worker: its tasks' [start, end), by start
	workers := map[int][]int{}    // per rank: its workers
	for _, e := range ev {
		if e.IsTransfer() || e.Kind == trace.MemoryKind || e.Worker < 0 {
			continue
		}
		l := lane{e.Rank, e.Worker}
		if _, ok := busy[l]; !ok {
			workers[e.Rank] = append(workers[e.Rank], e.Worker)
		}
		busy[l] = append(busy[l], [2]int64{e.Start, e.End})
	}
	for _, iv := range busy {
		slices.SortFunc(iv, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
	}
	idleAt := func(rank int, x int64) bool {
		for _, w := range workers[rank] {
			iv := busy[lane{rank, w}]
			i, _ := slices.BinarySearchFunc(iv, x+1, func(s [2]int64, t int64) int { return cmp.Compare(s[0], t) })
			if i == 0 || iv[i-1][1] <= x { // no task started by x is still running
				return true
			}
		}
		return false
	}
	var d MessageDelay
	var obs, extra []float64
	transfers := trace.Transfers(ev)
	for _, t := range transfers {
		if t.Send == nil || t.Recv == nil || !idleAt(t.Dst, t.Send.Ready) {
			continue
		}
		o, l := float64(t.Recv.End-t.Send.Ready)*1e-9, net.Latency+float64(t.Recv.Bytes)/net.Bandwidth
		obs, extra = append(obs, o), append(extra, max(o-l, 0))
		d.Mean += o
		d.Link += l
	}
	if d.Messages = len(obs); d.Messages > 0 {
		d.Mean /= float64(d.Messages)
		d.Link /= float64(d.Messages)
		d.Median, d.Delay = median(obs), median(extra)
		slices.Sort(extra)
		d.Extra, d.P90, d.P99, d.Max = extra, quantile(extra, 0.9), quantile(extra, 0.99), extra[len(extra)-1]
	}
	ends := map[int][]int64{}
	for l, iv := range busy {
		for _, x := range iv {
			ends[l.rank] = append(ends[l.rank], x[1])
		}
	}
	for _, e := range ends {
		slices.Sort(e)
	}
	d.After = busyReceives(transfers, net, d.Delay, idleAt, ends)
	if d.Busy = len(d.After); d.Busy > 0 {
		d.BusyMedian = median(d.After)
	}
	return d
}

// busyReceives returns, sorted, for each message that would arrive (data
// ready + link + delay) while every worker of its receiver runs a task,
// its receive's end less the end of the receiver's first task to end
// from then on, at least 0.
// ends holds each rank's tasks' ends, sorted.
func busyReceives(transfers []trace.Transfer, net config.Network, delay float64, idleAt func(int, int64) bool, ends map[int][]int64) []float64 {
	var after []float64
	for _, t := range transfers {
		if t.Send == nil || t.Recv == nil {
			continue
		}
		x := t.Send.Ready + int64(math.Round(1e9*(net.Latency+float64(t.Recv.Bytes)/net.Bandwidth+delay)))
		if idleAt(t.Dst, x) {
			continue
		}
		e := ends[t.Dst]
		if i, _ := slices.BinarySearch(e, x); i < len(e) {
			after = append(after, max(float64(t.Recv.End-e[i])*1e-9, 0))
		}
	}
	slices.Sort(after)
	return after
}

// clockTag is the tag of clockOffsets' messages.
const clockTag = 9

// clockRounds is the number of round trips clockOffsets makes per rank.
const clockRounds = 16

// clockOffsets returns, on rank 0, the offset of each rank's clock now
// (nanoseconds) from rank 0's, off[r] = now_r - now_0, estimated as NTP
// does: rank 0 sends its time t0, rank r answers with its time tr, rank 0
// reads t2 on the answer, and off[r] = tr - (t0 + t2) / 2 over the round
// trip of the smallest t2 - t0 among clockRounds (the least disturbed by
// the OS; the error is at most half that round trip, plus the asymmetry of
// the two ways). Other ranks get nil. Every rank must call it, with no
// other point-to-point traffic on w (a runtime on w closed).
func clockOffsets(w comm.Comm, now func() int64) ([]int64, error) {
	buf := make([]float64, 1)
	if r := w.Rank(); r > 0 {
		for range clockRounds {
			if err := exchange(w, buf, 0, false, clockTag); err != nil {
				return nil, err
			}
			buf[0] = float64(now())
			if err := exchange(w, buf, 0, true, clockTag); err != nil {
				return nil, err
			}
		}
		return nil, nil
	}
	off := make([]int64, w.Size())
	for r := 1; r < w.Size(); r++ {
		best := int64(math.MaxInt64)
		for range clockRounds {
			t0 := now()
			buf[0] = float64(t0)
			if err := exchange(w, buf, r, true, clockTag); err != nil {
				return nil, err
			}
			if err := exchange(w, buf, r, false, clockTag); err != nil {
				return nil, err
			}
			if t2 := now(); t2-t0 < best {
				best, off[r] = t2-t0, int64(buf[0])-(t0+t2)/2
			}
		}
	}
	return off, nil
}

// onClock shifts each event of ev from its rank's clock to rank 0's
// (off from clockOffsets): times less off[Rank]. Unset times (0) stay 0.
func onClock(ev []trace.Event, off []int64) error {
	for i := range ev {
		e := &ev[i]
		if e.Rank < 0 || e.Rank >= len(off) {
			return fmt.Errorf("bench: event of rank %d, clock offsets of %d ranks", e.Rank, len(off))
		}
		o := off[e.Rank]
		for _, t := range []*int64{&e.Start, &e.End, &e.Ready, &e.Submit, &e.Exec} {
			if *t != 0 {
				*t -= o
			}
		}
	}
	return nil
}
