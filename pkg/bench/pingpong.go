package bench

import (
	"encoding/binary"
	"fmt"
	"math"
	goruntime "runtime"
	"time"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/config"
)

// PingPongOptions configure PingPong.
type PingPongOptions struct {
	Reps  int // round trips per message size (0: 50)
	Large int // words of the large message (0: 1 Mi words, 8 MiB)
	// Now reads the clock (nil: time.Now); tests plant a link on a clock
	// of their own.
	Now func() time.Time
}

// PingPong measures the link between ranks 0 and 1 of w by ping-pong
// (rank 0 sends, rank 1 sends back the same message; other ranks wait):
// the latency is half the median round trip of a one-word message, and
// the bandwidth is the bytes of the large message over half its median
// round trip less the latency:
//
//	latency   = t_rt(8 B) / 2
//	bandwidth = 8 Large / (t_rt(8 Large B) / 2 - latency).
//
// It is the model of config.Network (a message of b bytes takes
// latency + b / bandwidth). Every rank returns rank 0's measurement. On
// one rank there is no link: it returns an error.
func PingPong(w comm.Comm, o PingPongOptions) (config.Network, error) {
	if w.Size() < 2 {
		return config.Network{}, fmt.Errorf("bench: ping-pong needs 2 ranks or more (got %d)", w.Size())
	}
	if o.Reps <= 0 {
		o.Reps = 50
	}
	if o.Large <= 0 {
		o.Large = 1 << 20
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	var net config.Network
	var perr error
	if r := w.Rank(); r <= 1 {
		small, err := roundTrips(w, o.Now, 1-r, r == 0, 1, o.Reps)
		if err == nil {
			var large float64
			large, err = roundTrips(w, o.Now, 1-r, r == 0, o.Large, max(3, o.Reps/10))
			net.Latency = small / 2
			if d := large/2 - net.Latency; d > 0 {
				net.Bandwidth = 8 * float64(o.Large) / d
			}
		}
		perr = err
	}
	// Rank 0's result (or error) on every rank.
	buf := make([]byte, 17)
	binary.LittleEndian.PutUint64(buf, math.Float64bits(net.Latency))
	binary.LittleEndian.PutUint64(buf[8:], math.Float64bits(net.Bandwidth))
	if perr != nil {
		buf[16] = 1
	}
	out, err := w.Bcast(0, buf)
	if err != nil {
		return config.Network{}, err
	}
	if out[16] != 0 {
		return config.Network{}, fmt.Errorf("bench: ping-pong between ranks 0 and 1 failed (rank 0: %v)", perr)
	}
	net.Latency = math.Float64frombits(binary.LittleEndian.Uint64(out))
	net.Bandwidth = math.Float64frombits(binary.LittleEndian.Uint64(out[8:]))
	if !(net.Bandwidth > 0) {
		return config.Network{}, fmt.Errorf("bench: ping-pong: the large message took no longer than the small one; raise its size")
	}
	return net, nil
}

// pingPongTag is the tag of the ping-pong's messages.
const pingPongTag = 7

// roundTrips runs one untimed and reps timed round trips of a message of
// words values with peer (first: this rank sends first) and returns the
// median round trip in seconds.
func roundTrips(w comm.Comm, now func() time.Time, peer int, first bool, words, reps int) (float64, error) {
	buf := make([]float64, words)
	var times []float64
	for i := range reps + 1 {
		t0 := now()
		if first {
			if err := exchange(w, buf, peer, true, pingPongTag); err != nil {
				return 0, err
			}
			if err := exchange(w, buf, peer, false, pingPongTag); err != nil {
				return 0, err
			}
		} else {
			if err := exchange(w, buf, peer, false, pingPongTag); err != nil {
				return 0, err
			}
			if err := exchange(w, buf, peer, true, pingPongTag); err != nil {
				return 0, err
			}
		}
		if i > 0 {
			times = append(times, now().Sub(t0).Seconds())
		}
	}
	return median(times), nil
}

// exchange sends buf to peer (send) or receives it from peer under tag,
// and polls until the request completes.
func exchange(w comm.Comm, buf []float64, peer int, send bool, tag int) error {
	var req comm.Request
	var err error
	if send {
		req, err = w.Isend(buf, peer, tag)
	} else {
		req, err = w.Irecv(buf, peer, tag)
	}
	if err != nil {
		return err
	}
	reqs := []comm.Request{req}
	var done []int
	for len(done) == 0 {
		if done, err = w.Test(reqs, done[:0]); err != nil {
			return err
		}
		if len(done) == 0 {
			goruntime.Gosched() // let an in-process peer (comm.Group) run
		}
	}
	return nil
}
