// Package kind names the task kinds of exageostat's task graphs: one set of
// constants used by the algorithms that submit tasks, the traces, the
// cluster configuration (durations per kind), the linear program, the
// calibration and the simulator.
//
// A kind names the kernel a task runs: a task that multiplies by the
// inverse of a triangular tile (dtrmm) is Trmm, one that solves with the
// triangular tile itself (dtrsm) would be Trsm.
package kind

// Task kinds.
const (
	Dcmg   = "dcmg"   // generate a covariance tile (ExaGeoStat's dcmg)
	Zcpy   = "zcpy"   // copy observations into a vector tile
	Potrf  = "potrf"  // Cholesky of a diagonal tile
	Trtri  = "trtri"  // inverse of a lower-triangular diagonal factor tile
	Trmm   = "trmm"   // multiply a tile by a triangular tile (the inverted diagonal factor)
	Syrk   = "syrk"   // symmetric rank-k update of a diagonal tile
	Gemm   = "gemm"   // general tile product update
	Det    = "det"    // sum of the logs of a diagonal tile's diagonal
	Trsv   = "trsv"   // triangular solve of a vector tile
	Gemv   = "gemv"   // tile times vector tile
	Geadd  = "geadd"  // add a vector tile to another
	Dot    = "dot"    // inner product of two vector tiles (a squared norm)
	Trmv   = "trmv"   // lower-triangular tile times vector tile
	Colss  = "colss"  // column sums of squares of a tile
	Coldot = "coldot" // column dot products of two tiles
	Tdot   = "tdot"   // Frobenius inner product of two tiles
	Copy   = "copy"   // copy a tile in or out of the runtime
	Dderiv = "dderiv" // generate a tile of a covariance derivative

	// Tile low-rank kernels (seed 002): tiles held as U V^T.
	LRDcmg = "lr-dcmg" // generate a covariance tile in a scratch tile and compress it to U V^T
	LRTrsm = "lr-trsm" // A L^-T for A = U V^T: a triangular solve on V
	LRSyrk = "lr-syrk" // dense C - U (V^T V) U^T
	LRGemm = "lr-gemm" // C_LR - A_LR B_LR^T with recompression
	LRGemv = "lr-gemv" // y - U (V^T x)
	LRMul  = "lr-mul"  // dense C - op(A) B or C - B op(A) for a factor tile A = U V^T (prediction, Fisher)

	// Mixed-precision kernels: float32 tiles off the band.
	SDcmg = "s-dcmg" // generate a covariance tile and round it to float32
	STrsm = "s-trsm" // float32 A L^-T
	SSyrk = "s-syrk" // dense C - A A^T for a float32 A
	SGemm = "s-gemm" // C - A B^T with a float32 C, or float32 inputs
	SGemv = "s-gemv" // y - A x for a float32 A
	SMul  = "s-mul"  // dense C - op(A) B or C - B op(A) for a float32 factor tile A, in float64

	// Hierarchical potrf (seed 002's optimisation 4): the Cholesky of a
	// dense diagonal tile as a nested graph of sub-tile tasks.
	HSplit = "h-split" // copy a sub-tile out of a diagonal tile
	HPotrf = "h-potrf" // Cholesky of a diagonal sub-tile
	HTrsm  = "h-trsm"  // sub-tile B L^-T (dtrsm)
	HSyrk  = "h-syrk"  // sub-tile C - A A^T
	HGemm  = "h-gemm"  // sub-tile C - A B^T
	HJoin  = "h-join"  // copy the factored sub-tiles back into the diagonal tile

	// Vecchia's approximation (pkg/vecchia): the blocks of a task, each a
	// covariance matrix generated, factored and solved, and the fixed-order
	// sum of the tasks' partial results.
	VecchiaBlocks = "vecchia-blocks"
	VecchiaSum    = "vecchia-sum"
	// VecchiaCond computes the Gaussian conditionals of prediction,
	// simulation or cross-validation targets given their sets.
	VecchiaCond = "vecchia-cond"

	// Messages and runtime actions (not tasks of the algorithms).
	Send  = "send"
	Recv  = "recv"
	Xfer  = "xfer"  // a message of a recorded graph
	Fetch = "fetch" // the reader kind of a message that makes a result valid on other ranks
	Free  = "free"  // the runtime returns a copy's buffer to its pool
	// Barrier is the node of a recorded graph where Runtime.Barrier
	// synchronised every rank: no work, every later node waits for it.
	Barrier = "barrier"
)

// Durations lists the kinds a cluster file's duration tables may name, in
// the order of one likelihood evaluation: dcmg, zcpy, potrf, trtri, trmm
// (the panel update, a multiplication by that inverse), syrk, gemm, det,
// trsv, gemv, geadd and dot.
func Durations() []string {
	return []string{Dcmg, Zcpy, Potrf, Trtri, Trmm, Syrk, Gemm, Det, Trsv, Gemv, Geadd, Dot}
}

// Phase returns the phase of a likelihood evaluation a task kind belongs
// to: "generation", "cholesky", "solve", or "other".
func Phase(k string) string {
	switch k {
	case Dcmg, Zcpy, Dderiv, LRDcmg, SDcmg:
		return "generation"
	case Potrf, Trtri, Trmm, Syrk, Gemm, LRTrsm, LRSyrk, LRGemm, STrsm, SSyrk, SGemm,
		HSplit, HPotrf, HTrsm, HSyrk, HGemm, HJoin:
		return "cholesky"
	case Det, Trsv, Gemv, Geadd, Dot, Trmv, Colss, Coldot, Tdot, LRGemv, SGemv, LRMul, SMul:
		return "solve"
	}
	return "other"
}

// Phases lists the phases Phase returns, in evaluation order.
func Phases() []string { return []string{"generation", "cholesky", "solve", "other"} }
