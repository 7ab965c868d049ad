package bench

import (
	"math"
	"sync/atomic"
	"testing"
	"time"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/config"
)

// plantedLink is a rank's endpoint of an in-process group on a simulated
// clock: each send moves the clock shared by the ranks forward by the
// planted latency + bytes / bandwidth before the message is posted.
type plantedLink struct {
	comm.Comm
	net   config.Network
	clock *atomic.Int64 // nanoseconds
}

func (s plantedLink) Isend(buf []float64, dst, tag int) (comm.Request, error) {
	s.clock.Add(int64(math.Round((s.net.Latency + 8*float64(len(buf))/s.net.Bandwidth) * 1e9)))
	return s.Comm.Isend(buf, dst, tag)
}

// TestPingPong measures a planted link of 5 us and 10 GB/s between ranks 0
// and 1 of three. In a round trip only the two sends move the clock, so the
// latency is that of a one-word message, 5 us + 8 B / 10 GB/s, and the
// bandwidth comes from the large message less that: 8 Large B over
// 8 (Large - 1) B / 10 GB/s (the nanosecond clock rounds each send).
func TestPingPong(t *testing.T) {
	planted := config.Network{Latency: 5e-6, Bandwidth: 1e10}
	const large = 1 << 16
	var clock atomic.Int64
	now := func() time.Time { return time.Unix(0, clock.Load()) }
	nets := make([]config.Network, 3)
	onRanks(t, 3, func(r int, w comm.Comm) (err error) {
		nets[r], err = PingPong(plantedLink{w, planted, &clock}, PingPongOptions{Reps: 9, Large: large, Now: now})
		return err
	})
	for r := range 3 {
		if nets[r] != nets[0] {
			t.Errorf("rank %d measured %+v, rank 0 %+v: every rank returns rank 0's", r, nets[r], nets[0])
		}
	}
	small := math.Round((planted.Latency+8/planted.Bandwidth)*1e9) * 1e-9
	big := math.Round((planted.Latency+8*large/planted.Bandwidth)*1e9) * 1e-9
	wantLat, wantBW := small, 8*large/(big-small)
	if n := nets[0]; math.Abs(n.Latency-wantLat) > 1e-12 || math.Abs(n.Bandwidth/wantBW-1) > 1e-9 {
		t.Errorf("measured %.6g s, %.6g B/s; want %.6g s, %.6g B/s", n.Latency, n.Bandwidth, wantLat, wantBW)
	}
	if _, err := PingPong(comm.Self{}, PingPongOptions{}); err == nil {
		t.Error("one rank: no error")
	}
}
