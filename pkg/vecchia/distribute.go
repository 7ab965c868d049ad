package vecchia

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"math"
	mathbits "math/bits"
	"runtime"
	"slices"
	"time"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/vecchia/embed"
	"github.com/exageostat/exageostat/pkg/vecchia/neighbors"
	"github.com/exageostat/exageostat/pkg/vecchia/order"
)

// Distribute prepares problem pr over the ranks of c, every rank calling
// it with the same arguments, without any rank holding the sets or the
// blocks of the whole problem: rank 0 orders the locations (s.Order, in
// the frame of the model at theta, as Prepare); each rank then finds the
// conditioning sets of
// the locations of its own regions of Group (region c on rank c*P/K:
// contiguous runs of regions, as the evaluator assigns them; rank 0 finds
// each location's nearest earlier one to split them, and broadcasts the
// regions with the ordering), from the coordinates of every location
// (O(N)), groups them region by region and keeps the data of its blocks;
// the ranks exchange the task cuts (a few numbers a task). The regions do
// not depend on the number of ranks, so the plans of 1, 2, 4, ... ranks
// are evaluated bitwise as NewPlan's plan of the same ordering and sets
// on one rank.
//
// It returns this rank's part of the final plan (sets of s.M) and, when
// 0 < coarse < s.M, of the coarse one (each set cut to its coarse
// nearest, GpGp's warm start); their Prepared hold no Perm and no Sets.
// A failure is the same on every rank. s.Sets must be nil.
func Distribute(c comm.Comm, pr likelihood.Problem, theta []float64, s Setup, coarse int) (final, crs *Prepared, err error) {
	return DistributeHanded(c, pr, theta, s, coarse, nil)
}

// DistributeHanded is Distribute with pr handed over: before its search
// each rank keeps copies of pr's columns (points, observations,
// covariates) at its share of the locations only (N/P of them, by their
// index in pr), and the ordered coordinates the search reads; it lets pr
// go and calls release (when not nil), in which the caller drops its own
// references to pr's columns. After the search the ranks broadcast their
// shares in turn, and each keeps the points its plans read: those of its
// rows and of their sets' members (about 1.2 N/P locations). The plans
// are bitwise Distribute's: the values are copies, and the plan's N and
// RMax (the largest distance over all of pr's points) are taken before.
func DistributeHanded(c comm.Comm, pr likelihood.Problem, theta []float64, s Setup, coarse int, release func()) (final, crs *Prepared, err error) {
	if s.Sets != nil {
		return nil, nil, errors.New("vecchia: Distribute finds the sets itself")
	}
	if s.M < 1 {
		return nil, nil, fmt.Errorf("vecchia: conditioning set size %d, want >= 1", s.M)
	}
	per, err := checkProblem(pr)
	if err != nil {
		return nil, nil, err
	}
	locs := everyOther(pr.Points, per)
	nl := locs.Len()
	frame := FrameOf(pr.Model, theta)
	g := s.Grouping.withDefaults()
	if g.Workers <= 0 {
		g.Workers = s.Workers
	}
	// Collections at the phases' ends (the inputs' parsing, the search's
	// trees, the plans' temporaries) keep the heap's peak near what is
	// live: a few milliseconds each at N = 10^6.
	runtime.GC()
	t0 := time.Now()
	perm, root, err := rootOrder(c, locs, pr.Metric, frame, s, g.Region)
	if err != nil {
		return nil, nil, err
	}
	t1 := time.Now()
	rg, r0, r1 := rankRegions(root, max(1, nl/g.Region), c.Size(), c.Rank())
	rows := slices.Clone(rg.loc) // this rank's locations, those of its regions
	slices.Sort(rows)
	runtime.GC() // rank 0's ordering and its message, before the search
	m := min(s.M, max(nl-1, 1))
	r := &ranked{c: c, n: len(pr.Obs), rmax: matern.MaxDistance(pr.Metric, pr.Points), per: per, rg: rg, r0: r0, r1: r1, rows: rows, g: g}
	emb, err := embed.Embed(locs, pr.Metric, frame)
	if err != nil {
		return nil, nil, fmt.Errorf("vecchia: %v", err)
	}
	embed.PermuteInPlace(emb, perm) // in place: one copy of the coordinates, not two
	own := ownShare(pr, per, nl, c.Size(), c.Rank())
	pr, locs = likelihood.Problem{}, matern.Points{}
	if release != nil {
		release()
	}
	runtime.GC() // the columns of the other ranks' shares
	sets, err := conditioningInParts(emb, rows, m, max(s.Workers, 1))
	if err != nil {
		return nil, nil, fmt.Errorf("vecchia: %v", err)
	}
	emb = embed.Coords{}
	runtime.GC() // the search's embedding
	if err := r.gather(own, perm, sets.Idx, nl); err != nil {
		return nil, nil, err
	}
	own = likelihood.Problem{}
	runtime.GC() // the rank's share, gathered
	t2 := time.Now()
	prepared := func(fp *Plan) *Prepared {
		return &Prepared{Plan: fp, OrderSeconds: t1.Sub(t0).Seconds(), SetsSeconds: t2.Sub(t1).Seconds(), PlanSeconds: time.Since(t2).Seconds()}
	}
	if coarse <= 0 || m <= coarse { // the plan reads the sets last: they go before its blocks' data
		fp, err := r.plan(m, sets.Idx, true)
		if err != nil {
			return nil, nil, err
		}
		return prepared(fp), nil, nil
	}
	fp, err := r.plan(m, sets.Idx, false)
	if err != nil {
		return nil, nil, err
	}
	final = prepared(fp)
	t3 := time.Now()
	for k := range rows { // the coarse sets in place: the first coarse of each row
		copy(sets.Idx[k*coarse:(k+1)*coarse], sets.Idx[k*m:k*m+coarse])
	}
	sets.Idx = slices.Clone(sets.Idx[:len(rows)*coarse]) // the rest of the wide sets let go
	cp, err := r.plan(coarse, sets.Idx, true)
	if err != nil {
		return nil, nil, err
	}
	return final, &Prepared{Plan: cp, PlanSeconds: time.Since(t3).Seconds()}, nil
}

// rankRegions returns the k regions of the ordered locations (root[i]
// location i's region) as rank of size needs them, with its own regions
// r0 .. r1-1 (regionOwners): root and start as regionsOf's, but loc holds
// the locations of its own regions only (O(N/P), not O(N)), in the same
// order, and start is shifted to index it: region r's locations are
// loc[start[r]:start[r+1]] for r0 <= r < r1 (the other regions' starts
// index nothing).
func rankRegions(root []int32, k, size, rank int) (rg *regionSet, r0, r1 int) {
	rg = &regionSet{root: root, start: make([]int32, k+1)}
	for _, r := range root {
		rg.start[r+1]++
	}
	for r := 0; r < k; r++ {
		rg.start[r+1] += rg.start[r]
	}
	r0, r1 = rg.of(size, rank)
	base := rg.start[r0]
	for r := range rg.start {
		rg.start[r] -= base
	}
	rg.loc = make([]int32, rg.start[r1])
	fill := slices.Clone(rg.start[r0:r1])
	for i, r := range root {
		if int(r) >= r0 && int(r) < r1 {
			rg.loc[fill[int(r)-r0]] = int32(i)
			fill[int(r)-r0]++
		}
	}
	return rg, r0, r1
}

// of returns the regions r0 .. r1-1 of rank of size (regionOwners).
func (rg *regionSet) of(size, rank int) (r0, r1 int) {
	locs := make([]int, rg.count())
	for r := range locs {
		locs[r] = int(rg.start[r+1] - rg.start[r])
	}
	own := regionOwners(locs, size)
	r0 = len(own)
	for r, o := range own {
		if o == rank {
			r0, r1 = min(r0, r), r+1
		}
	}
	if r1 == 0 {
		return 0, 0
	}
	return r0, r1
}

// checkProblem checks pr's model and sizes and returns its number of
// points per location.
func checkProblem(pr likelihood.Problem) (per int, err error) {
	if err := pr.Model.Validate(); err != nil {
		return 0, err
	}
	n := len(pr.Obs)
	if pr.Points.Len() != n {
		return 0, fmt.Errorf("vecchia: %d locations for %d observations", pr.Points.Len(), n)
	}
	per = 1
	if pr.Model == likelihood.BivariateMatern {
		per = 2
	}
	if n%per != 0 {
		return 0, fmt.Errorf("vecchia: kernel %s needs %d values per location, got %d values", pr.Model, per, n)
	}
	return per, nil
}

// rootOrder returns, on every rank of c, rank 0's ordering of locs and
// the region of each ordered location (Group's regions of size region,
// from each location's nearest earlier one), or rank 0's error.
func rootOrder(c comm.Comm, locs matern.Points, metric matern.Metric, frame embed.Frame, s Setup, region int) (perm, root []int32, err error) {
	var msg []byte
	if c.Rank() == 0 {
		if perm, root, err = orderAndRegions(locs, metric, frame, s, region); err != nil {
			msg = append([]byte{1}, "vecchia: "+err.Error()...)
		} else {
			msg = make([]byte, 1+8*len(perm))
			for k, i := range perm {
				binary.LittleEndian.PutUint32(msg[1+4*k:], uint32(i))
				binary.LittleEndian.PutUint32(msg[1+4*(len(perm)+k):], uint32(root[k]))
			}
		}
	}
	if msg, err = c.Bcast(0, msg); err != nil {
		return nil, nil, err
	}
	if len(msg) == 0 || msg[0] != 0 {
		return nil, nil, errors.New(string(msg[min(1, len(msg)):]))
	}
	if c.Rank() == 0 { // its own arrays: the message was their copy
		return perm, root, nil
	}
	n := (len(msg) - 1) / 8
	perm, root = make([]int32, n), make([]int32, n)
	for k := range perm {
		perm[k] = int32(binary.LittleEndian.Uint32(msg[1+4*k:]))
		root[k] = int32(binary.LittleEndian.Uint32(msg[1+4*(n+k):]))
	}
	return perm, root, nil
}

// orderAndRegions orders locs (s.Order in frame) and splits the ordered
// locations into Group's regions of size region (from each location's
// nearest earlier one: the first member of its set).
func orderAndRegions(locs matern.Points, metric matern.Metric, frame embed.Frame, s Setup, region int) (perm, root []int32, err error) {
	e, err := embed.Embed(locs, metric, frame)
	if err != nil {
		return nil, nil, err
	}
	p, err := order.Order(e, s.Order, s.Seed)
	if err != nil {
		return nil, nil, err
	}
	perm = make([]int32, len(p))
	for k, i := range p {
		perm[k] = int32(i)
	}
	p = nil
	embed.PermuteInPlace(e, perm) // in place: one copy of the coordinates
	runtime.GC()                  // the ordering's trees and queues, before the search's
	nearest, err := conditioningInParts(e, nil, 1, max(s.Workers, 1))
	if err != nil {
		return nil, nil, err
	}
	rg, err := regions(len(perm), 1, nearest.Idx, region)
	if err != nil {
		return nil, nil, err
	}
	return perm, rg.root, nil
}

// conditioningInParts returns neighbors.ConditioningOf(c, rows, m,
// workers) (rows increasing; nil: every position) found in three calls,
// with a collection after each: the rows before position B/2, those
// before B, then the others, B the start of the search's last range of
// positions (its prefix trees double from 256 points: B is the largest
// 256 2^j below N). Each call builds the trees of its rows' ranges only,
// and each call's trees are let go before the next call's are built (the
// last call's tree is over every point). A row's set is its m nearest
// earlier positions whichever call finds it: bitwise the one call's.
func conditioningInParts(c embed.Coords, rows []int32, m, workers int) (*neighbors.Sets, error) {
	n := c.Len()
	if rows == nil {
		rows = make([]int32, n)
		for i := range rows {
			rows[i] = int32(i)
		}
	}
	if len(rows) == 0 {
		return neighbors.ConditioningOf(c, rows, m, workers)
	}
	last := 256
	for 2*last < n {
		last *= 2
	}
	c1, _ := slices.BinarySearch(rows, int32(last/2))
	c2, _ := slices.BinarySearch(rows, int32(last))
	out := &neighbors.Sets{N: len(rows), M: m, Idx: make([]int32, len(rows)*m)}
	for _, part := range [][2]int{{0, c1}, {c1, c2}, {c2, len(rows)}} {
		if part[0] == part[1] {
			continue
		}
		s, err := neighbors.ConditioningOf(c, rows[part[0]:part[1]], m, workers)
		if err != nil {
			return nil, err
		}
		copy(out.Idx[part[0]*m:], s.Idx)
		s = nil
		runtime.GC()
	}
	return out, nil
}

// ranked is one rank's share of a distributed preparation: the ordered
// locations rows (increasing), those of the regions r0 .. r1-1 of rg, the
// problem's point of ordered point q being at(q).
type ranked struct {
	c      comm.Comm
	pr     likelihood.Problem // its columns those of the points gather keeps
	n      int                // the problem's points
	rmax   float64            // the largest distance over the problem's points
	per    int
	at     func(q int32) int
	rg     *regionSet
	r0, r1 int
	rows   []int32
	g      Grouping
}

// shareStart returns the first location of rank's share of nl
// locations over size ranks (size: nl).
func shareStart(nl, size, rank int) int { return nl * rank / size }

// ownShare returns pr with copies of its columns (points, observations,
// covariates) at the locations of rank's share alone (per points a
// location), those of shareStart(nl, size, rank) onwards.
func ownShare(pr likelihood.Problem, per, nl, size, rank int) likelihood.Problem {
	lo, hi := per*shareStart(nl, size, rank), per*shareStart(nl, size, rank+1)
	own := pr
	own.Covariates = make([][]float64, len(pr.Covariates))
	from, to := columnsOf(&pr), columnsOf(&own)
	for j, col := range from {
		if *col != nil {
			*to[j] = slices.Clone((*col)[lo:hi:hi])
		}
	}
	return own
}

// columnsOf returns pointers to p's columns: the points' X, Y, Z and T,
// the observations and each covariate.
func columnsOf(p *likelihood.Problem) []*[]float64 {
	cols := []*[]float64{&p.Points.X, &p.Points.Y, &p.Points.Z, &p.Points.T, &p.Obs}
	for k := range p.Covariates {
		cols = append(cols, &p.Covariates[k])
	}
	return cols
}

// gather sets r.pr to own's problem with copies of the columns of the
// ordered locations the rank's plans read: its rows and their sets'
// members (sets, negative entries none; the coarse sets are their
// prefixes), perm the ordering of the nl locations. Ordered point q
// (location q/per) is then at(q) = per k + q%per in them, k the place of
// its location among the kept ones (increasing; keptIndex, O(1)). The
// values come from the ranks' shares (own this rank's, ownShare), each
// rank's broadcast in turn, one column at a time: bitwise copies.
func (r *ranked) gather(own likelihood.Problem, perm, sets []int32, nl int) error {
	ix := keptIndex{bits: make([]uint64, (nl+63)/64)}
	for _, q := range r.rows {
		ix.bits[q>>6] |= 1 << (q & 63)
	}
	for _, q := range sets {
		if q >= 0 {
			ix.bits[q>>6] |= 1 << (q & 63)
		}
	}
	ix.before = make([]int32, len(ix.bits))
	kept := make([]int32, 0, ix.count())
	for w, b := range ix.bits {
		ix.before[w] = int32(len(kept))
		for ; b != 0; b &= b - 1 {
			kept = append(kept, int32(64*w+mathbits.TrailingZeros64(b)))
		}
	}
	per, size := r.per, r.c.Size()
	pr := own
	pr.Points, pr.Obs, pr.Covariates = matern.Points{}, nil, make([][]float64, len(own.Covariates))
	from, to := columnsOf(&own), columnsOf(&pr)
	for j, col := range from {
		if *col != nil {
			*to[j] = make([]float64, per*len(kept))
		}
	}
	recv := make([]float64, per*(nl/size+1)) // another rank's column, each in turn: one buffer
	for p := range size {
		lo, hi := shareStart(nl, size, p), shareStart(nl, size, p+1)
		for j, col := range from {
			if *col == nil {
				continue
			}
			buf := *col
			if p != r.c.Rank() {
				buf = recv[:per*(hi-lo)]
			}
			if err := comm.BcastFloats(r.c, p, buf); err != nil {
				return fmt.Errorf("vecchia: the columns of rank %d's share: %v", p, err)
			}
			out := *to[j]
			for k, q := range kept {
				if i := int(perm[q]); lo <= i && i < hi {
					copy(out[per*k:per*(k+1)], buf[per*(i-lo):per*(i-lo+1)])
				}
			}
		}
	}
	r.pr = pr
	r.at = func(q int32) int { return per*ix.place(q/int32(per)) + int(q)%per }
	return nil
}

// keptIndex is a set of locations (bit q&63 of bits[q>>6] set: location
// q kept) with the number of kept locations before each word's first
// (before): place(q) is q's place among the kept locations in O(1).
type keptIndex struct {
	bits   []uint64
	before []int32
}

// count returns the number of kept locations.
func (x keptIndex) count() int {
	n := 0
	for _, b := range x.bits {
		n += mathbits.OnesCount64(b)
	}
	return n
}

// place returns the number of kept locations below q.
func (x keptIndex) place(q int32) int {
	return int(x.before[q>>6]) + mathbits.OnesCount64(x.bits[q>>6]&(1<<(q&63)-1))
}

// group groups the rank's regions (set(i) the set of location i, m its
// size) as Grouping.groupRegions does all at once, but in groupBatches
// batches of regions, each collected once packed: a batch's merge lists
// (several times its blocks' size) go before the next batch's are made.
// The batches' blocks are joined (joinBlocks): the same Blocks.
func (r *ranked) group(m int, set func(i int32) []int32) *Blocks {
	step := max(1, (r.r1-r.r0+groupBatches-1)/groupBatches)
	var parts []*Blocks
	for a := r.r0; a < r.r1 || parts == nil; a += step {
		if parts != nil {
			runtime.GC()
		}
		parts = append(parts, r.g.groupRegions(r.rg, a, min(r.r1, a+step), m, set))
	}
	if len(parts) > 1 {
		runtime.GC() // the last batch's lists, before the join copies the batches' blocks
	}
	bl := joinBlocks(parts)
	runtime.GC() // the last batch's lists and the batches' blocks (joined)
	return bl
}

// groupBatches is the number of batches of regions a rank groups a plan
// in (ranked.group): each ends with a collection.
const groupBatches = 4

// joinBlocks returns the blocks of parts one after the other, in one
// Blocks: the offsets and the regions' first blocks renumbered.
func joinBlocks(parts []*Blocks) *Blocks {
	if len(parts) == 1 {
		return parts[0]
	}
	ni, nb, nc := 0, 0, 0
	for _, p := range parts {
		ni, nb, nc = ni+len(p.Idx), nb+p.Len(), nc+len(p.Chunks)-1
	}
	out := &Blocks{Idx: make([]int32, 0, ni), Start: make([]int64, 1, nb+1), Chunks: make([]int, 1, nc+1)}
	for k, p := range parts {
		off, first := int64(len(out.Idx)), out.Len()
		out.Idx = append(out.Idx, p.Idx...)
		for _, s := range p.Start[1:] {
			out.Start = append(out.Start, off+s)
		}
		for _, c := range p.Chunks[1:] {
			out.Chunks = append(out.Chunks, first+c)
		}
		parts[k] = nil
	}
	return out
}

// rankMeta is what the ranks exchange about their shares of a plan.
type rankMeta struct {
	Err           string
	NBlocks       int
	Cuts          cuts
	RMin          float64
	UMax, RespMax int
}

// plan groups the rank's locations by their sets (stride m), keeps the
// data of its blocks and exchanges the cuts, making its part of the plan.
// With last (the caller holds the sets no longer) they are collected
// once read, before the blocks' data are made.
func (r *ranked) plan(m int, sets []int32, last bool) (*Plan, error) {
	pr := r.pr
	set := func(i int32) []int32 { // the set of the rank's location i: its row's, rows sorted (O(rows), not O(N))
		k, _ := slices.BinarySearch(r.rows, i)
		return sets[k*m : (k+1)*m]
	}
	bl := expand(r.group(m, set), r.per)
	meta := rankMeta{NBlocks: bl.Len(), Cuts: cutChunks(bl, r.g)}
	// RMin as closest's, raw over the rank's rows (the squared distance
	// for planar points): fin of the ranks' minimum is the plan's.
	dist, fin := pairDist(pr.Metric, pr.Points, r.per, func(q int) int { return r.at(int32(q)) })
	meta.RMin = closestRows(len(r.rows), func(k int) (int, []int32) { return int(r.rows[k]), sets[k*m : (k+1)*m] }, dist, r.g.Workers)
	for k := 0; k < bl.Len(); k++ {
		u, rr := bl.Size(k)
		meta.UMax, meta.RespMax = max(meta.UMax, u), max(meta.RespMax, rr)
	}
	all, first, err := exchange(r.c, meta)
	if err != nil {
		return nil, err
	}
	if last {
		runtime.GC() // the sets, read for the last time (closestRows)
	}
	p := &Plan{Model: pr.Model, Metric: pr.Metric, Nugget: pr.Nugget, REML: pr.REML, N: r.n, NCov: len(pr.Covariates), M: m,
		RMin: finite(fin(all.RMin)), RMax: r.rmax, UMax: all.UMax, RespMax: all.RespMax,
		nblocks: all.NBlocks, partSize: r.c.Size()}
	p.setCuts(all.Cuts)
	src := source{n: p.N, pts: pr.Points, obs: pr.Obs, ncov: p.NCov, at: r.at, x: func(q int32, dst []float64) {
		for k, col := range pr.Covariates {
			dst[k] = col[r.at(q)]
		}
	}}
	p.part = src.data(bl, 0, bl.Len())
	if bl.Len() > 0 {
		p.part.First = first
	}
	bl = nil
	runtime.GC() // the blocks and the gathered columns, before the next stage
	return p, nil
}

// exchange gathers the ranks' shares of a plan on rank 0, joins them (in
// rank order: the cuts renumbered after the earlier ranks') and returns
// the whole plan's on every rank, with the first block of the caller's
// share; the first rank's error, if any, as every rank's.
func exchange(c comm.Comm, mine rankMeta) (all rankMeta, first int, err error) {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(mine); err != nil {
		return all, 0, fmt.Errorf("vecchia: encoding a rank's cuts: %v", err)
	}
	parts, err := c.Gather(0, buf.Bytes())
	if err != nil {
		return all, 0, err
	}
	var msg []byte
	if c.Rank() == 0 {
		metas := make([]rankMeta, len(parts))
		for k, b := range parts {
			if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&metas[k]); err != nil {
				metas[k].Err = fmt.Sprintf("vecchia: rank %d's cuts: %v", k, err)
			}
		}
		buf.Reset()
		if err := gob.NewEncoder(&buf).Encode(join(metas)); err != nil {
			return all, 0, fmt.Errorf("vecchia: encoding the plan's cuts: %v", err)
		}
		msg = buf.Bytes()
	}
	if msg, err = c.Bcast(0, msg); err != nil {
		return all, 0, err
	}
	var j joined
	if err := gob.NewDecoder(bytes.NewReader(msg)).Decode(&j); err != nil {
		return all, 0, fmt.Errorf("vecchia: the plan's cuts from rank 0: %v", err)
	}
	if j.All.Err != "" {
		return all, 0, errors.New(j.All.Err)
	}
	return j.All, j.First[c.Rank()], nil
}

// joined is the ranks' shares of a plan joined, with the first block of
// each rank's.
type joined struct {
	All   rankMeta
	First []int
}

// join joins the ranks' shares (rankMeta) of a plan, with the first
// block of each.
func join(metas []rankMeta) joined {
	out := joined{All: rankMeta{RMin: math.Inf(1), Cuts: cuts{Tasks: []int{0}, Groups: []int{0}, ChunkGroups: []int{0}}}}
	a, o := &out.All, &out.All.Cuts
	for _, m := range metas {
		if m.Err != "" && a.Err == "" {
			a.Err = m.Err
		}
		out.First = append(out.First, a.NBlocks)
		nb, nt, ng := a.NBlocks, len(o.Tasks)-1, len(o.Groups)-1
		for _, v := range m.Cuts.Tasks[min(1, len(m.Cuts.Tasks)):] {
			o.Tasks = append(o.Tasks, nb+v)
		}
		o.TaskWork = append(o.TaskWork, m.Cuts.TaskWork...)
		o.ChunkLocs = append(o.ChunkLocs, m.Cuts.ChunkLocs...)
		for _, v := range m.Cuts.Groups[min(1, len(m.Cuts.Groups)):] {
			o.Groups = append(o.Groups, nt+v)
		}
		for _, v := range m.Cuts.ChunkGroups[min(1, len(m.Cuts.ChunkGroups)):] {
			o.ChunkGroups = append(o.ChunkGroups, ng+v)
		}
		a.NBlocks += m.NBlocks
		a.RMin = min(a.RMin, m.RMin)
		a.UMax, a.RespMax = max(a.UMax, m.UMax), max(a.RespMax, m.RespMax)
	}
	return out
}
