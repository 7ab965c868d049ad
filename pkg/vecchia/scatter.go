package vecchia

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"runtime"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/vecchia/block"
)

// part is what a rank of a scattered plan holds: the plan's scalars, its
// task cuts with every task's modelled work (for the task graph, which
// every rank submits whole), and the data of the rank's own blocks only.
type part struct {
	Model         likelihood.Model
	Metric        matern.Metric
	Nugget        float64
	REML          bool
	N, NCov, M    int
	NBlocks       int
	Cuts          cuts
	RMin, RMax    float64
	UMax, RespMax int
	Size          int // the number of ranks the part was cut for
	Data          block.Data
}

// Scatter distributes rank 0's plan p over the ranks of c: every rank
// gets a plan that holds the scalars, the task cuts and the data (points,
// observations, covariates, block member lists) of the blocks it owns on
// c (the groups of tasks NewEvaluator assigns it), not the whole data
// set, rank 0 too (p itself is left as it was). The evaluation of the
// scattered plans on c is bitwise that of p on one rank. Every rank calls
// Scatter; p is ignored but on rank 0. Each other rank's part passes
// through every rank (a broadcast) and is collected before the next.
func Scatter(c comm.Comm, p *Plan) (*Plan, error) {
	size, rank := c.Size(), c.Rank()
	if size == 1 {
		return p, nil
	}
	runtime.GC() // rank 0: the preparation's garbage, before the parts
	var owner []int
	var mine *Plan
	if rank == 0 {
		owner = p.groupOwners(size)
		pt := p.partOf(owner, 0, size)
		mine = pt.plan()
	}
	for r := 1; r < size; r++ {
		var b []byte
		if rank == 0 {
			b = encodePart(p.partOf(owner, r, size))
		}
		b, err := c.Bcast(0, b)
		if err != nil {
			return nil, err
		}
		if rank == r {
			if mine, err = decodePart(b); err != nil {
				return nil, err
			}
		}
		runtime.GC() // the part just sent or passed through: before the next one
	}
	return mine, nil
}

// partOf returns the part of rank r of size ranks, owner the ranks of the
// groups of tasks.
func (p *Plan) partOf(owner []int, r, size int) *part {
	b0, b1 := p.blocksOf(owner, r)
	d, _ := p.localData(b0, b1)
	d.First = b0
	return &part{Model: p.Model, Metric: p.Metric, Nugget: p.Nugget, REML: p.REML, N: p.N, NCov: p.NCov, M: p.M,
		NBlocks: p.NumBlocks(), Cuts: p.cuts(), RMin: p.RMin, RMax: p.RMax,
		UMax: p.UMax, RespMax: p.RespMax, Size: size, Data: *d}
}

// plan makes the plan of a part.
func (pt *part) plan() *Plan {
	d := pt.Data
	p := &Plan{Model: pt.Model, Metric: pt.Metric, Nugget: pt.Nugget, REML: pt.REML, N: pt.N, NCov: pt.NCov, M: pt.M,
		RMin: pt.RMin, RMax: pt.RMax, UMax: pt.UMax, RespMax: pt.RespMax, nblocks: pt.NBlocks, part: &d, partSize: pt.Size}
	p.setCuts(pt.Cuts)
	return p
}

// encodePart encodes a part for the other ranks.
func encodePart(pt *part) []byte {
	var buf bytes.Buffer
	d := &pt.Data
	// gob writes at most 9 bytes a number (5 an int32) and a little
	// framing: one allocation, its untouched end never resident.
	c := &pt.Cuts
	buf.Grow(1024 + 9*(len(c.Tasks)+len(c.TaskWork)+len(c.Groups)+len(c.ChunkGroups)+len(d.Start)+len(d.Rows)) +
		5*(len(d.Idx)+len(d.Global)))
	if err := gob.NewEncoder(&buf).Encode(pt); err != nil {
		panic(fmt.Sprintf("vecchia: encoding a plan's part: %v", err)) // plain slices and numbers: cannot fail
	}
	return buf.Bytes()
}

// decodePart makes the plan of a received part.
func decodePart(b []byte) (*Plan, error) {
	var pt part
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&pt); err != nil {
		return nil, fmt.Errorf("vecchia: the plan's part from rank 0: %v", err)
	}
	return pt.plan(), nil
}

// NumBlocks returns the number of blocks of the plan (of the whole plan,
// on a rank of a scattered one too).
func (p *Plan) NumBlocks() int {
	if p.Blocks == nil {
		return p.nblocks
	}
	return p.Blocks.Len()
}

// blocksOf returns the range of blocks of rank's tasks, owner the ranks
// of the groups of tasks (contiguous runs).
func (p *Plan) blocksOf(owner []int, rank int) (b0, b1 int) {
	g0, g1 := -1, -1
	for g, r := range owner {
		if r != rank {
			continue
		}
		if g0 < 0 {
			g0 = g
		}
		g1 = g + 1
	}
	if g0 < 0 {
		return 0, 0
	}
	return p.Tasks[p.Groups[g0]], p.Tasks[p.Groups[g1]]
}
