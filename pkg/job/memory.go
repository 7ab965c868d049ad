package job

import (
	"encoding/json"
	"fmt"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/memory"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/tile"
)

// RankMemory is the memory one rank of a run used, in bytes.
type RankMemory struct {
	Rank int `json:"rank"`
	// OwnedTileBytes is the size of the lower tiles of the covariance
	// matrix (and its Cholesky factor) this rank owns under the
	// factorisation distribution, computed from the distribution: the
	// rank's share of the matrix. (It is not runtime.OwnedBytes, which
	// counts every handle registered so far: vectors, prediction and
	// Fisher matrices, the simulation's tiles.)
	OwnedTileBytes int64 `json:"owned_tile_bytes"`
	// PeakTileBytes is the most tile data the rank held at once over the
	// whole run (runtime.MemStats.Peak), its own tiles and replicas.
	PeakTileBytes int64 `json:"peak_tile_bytes"`
	// PeakReplicaBytes is the most of it in copies of tiles other ranks
	// own (received replicas, tiles generated for another rank).
	PeakReplicaBytes int64 `json:"peak_replica_bytes"`
	// ReplicaBudgetBytes is the runtime's budget of replicas received
	// ahead of need during the fit (runtime.ReplicaBudget).
	ReplicaBudgetBytes int64 `json:"replica_budget_bytes"`
	// PeakRSSBytes is the process's peak resident set size (VmHWM).
	PeakRSSBytes int64 `json:"peak_rss_bytes"`
	// NeedBytes is the estimate checked before the run started
	// (likelihood.MemoryNeed and the assessment's needs), and
	// AvailableBytes what the rank had then, from AvailableSource
	// (--memory-limit, MemAvailable, cgroup); 0 and "" when unknown.
	NeedBytes       int64  `json:"need_bytes"`
	AvailableBytes  int64  `json:"available_bytes,omitempty"`
	AvailableSource string `json:"available_source,omitempty"`
}

// ownedTileBytes returns, per rank, the bytes of the lower tiles of an
// n x n symmetric matrix with tile size nb that own places on each rank.
func ownedTileBytes(n, nb int, own tile.OwnerFunc, ranks int) []int64 {
	l := tile.NewLayout(n, nb)
	out := make([]int64, ranks)
	for m := 0; m < l.NT; m++ {
		for c := 0; c <= m; c++ {
			r := 0
			if own != nil {
				r = own(m, c)
			}
			out[min(max(r, 0), ranks-1)] += int64(8 * l.Rows(m) * l.Rows(c))
		}
	}
	return out
}

// checkMemory compares each rank's need (need[r], the same table on every
// rank) with the memory that rank has (memory.Available with userLimit,
// shared by the ranks of its node), and returns the same error on every
// rank when some rank lacks memory: one line naming the first such rank,
// the bytes it needs (what describes the problem), the bytes it has and
// where that figure comes from. Every rank must call it (collective); it
// returns what this rank has.
func checkMemory(w comm.Comm, cmd string, need []int64, userLimit int64, what string) (memory.Limit, error) {
	me := w.Rank()
	lim, ok := memory.Available(userLimit, memory.LocalRanks())
	first := int64(w.Size())
	msg := ""
	if ok && need[me] > lim.Bytes {
		first = int64(me)
		msg = fmt.Sprintf("%s: rank %d needs %s (%s); %s available (%s)",
			cmd, me, memory.Format(need[me]), what, memory.Format(lim.Bytes), lim.Source)
	}
	if !ok {
		lim = memory.Limit{}
	}
	first, err := w.AllreduceMin(first)
	if err != nil {
		return lim, err
	}
	if first >= int64(w.Size()) {
		return lim, nil
	}
	b, err := w.Bcast(int(first), []byte(msg))
	if err != nil {
		return lim, err
	}
	return lim, &InputError{Err: fmt.Errorf("%s", b), Agreed: true}
}

// gatherMemory returns, on rank 0, every rank's report (nil elsewhere).
// Every rank must call it.
func gatherMemory(rt *runtime.Runtime, mine RankMemory) ([]RankMemory, error) {
	b, err := json.Marshal(mine)
	if err != nil {
		return nil, err
	}
	all, err := rt.GatherBytes(b, 0)
	if err != nil || rt.Rank() != 0 {
		return nil, err
	}
	out := make([]RankMemory, len(all))
	for i, p := range all {
		if err := json.Unmarshal(p, &out[i]); err != nil {
			return nil, fmt.Errorf("memory report of rank %d: %w", i, err)
		}
	}
	return out, nil
}

// addTo adds b to a element by element.
func addTo(a, b []int64) {
	for i := range a {
		a[i] += b[i]
	}
}

// problem describes a run's size for messages: "N=4000, nb=400, 2 ranks".
func problem(n, nb, ranks int) string {
	s := "s"
	if ranks == 1 {
		s = ""
	}
	return fmt.Sprintf("N=%d, nb=%d, %d rank%s", n, nb, ranks, s)
}
