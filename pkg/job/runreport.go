package job

import (
	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/memory"
	"github.com/exageostat/exageostat/pkg/runtime"
	"github.com/exageostat/exageostat/pkg/tile"
)

// runReport is what a simulate or predict run reports at its end besides
// its own result: every rank's memory (RankMemory) and the trace files
// written (--trace).
type runReport struct {
	Memory []RankMemory
	Traced []string
}

// reportRun gathers, on rank 0, the memory table of a run whose graphs
// are done on rt (the matrix of order n in tiles of nb under own, the
// need checked before the run and the memory the rank had, wall its
// seconds), and merges its trace tr. Collective: every rank calls it.
func reportRun(w comm.Comm, rt *runtime.Runtime, tr *traceRun, n, nb int, own tile.OwnerFunc, need []int64, lim memory.Limit, wall float64) (runReport, error) {
	var rep runReport
	mem := rt.Mem()
	owned := tile.NewLayout(n, nb).LowerBytes(own, w.Size(), nil)
	var err error
	rep.Memory, err = gatherMemory(rt, RankMemory{Rank: w.Rank(), Busy: map[string]float64{"wall": wall}, OwnedTileBytes: owned[w.Rank()],
		PeakTileBytes: mem.Peak, PeakReplicaBytes: mem.PeakReplicas, PeakRSSBytes: memory.PeakRSS(),
		NeedBytes: need[w.Rank()], AvailableBytes: lim.Bytes, AvailableSource: lim.Source})
	if err != nil {
		return rep, err
	}
	rep.Traced, err = tr.finish(w)
	return rep, err
}
