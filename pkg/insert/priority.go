package insert

// The priority policy of every tile algorithm, stated once: the equations
// of seed 000 (section 4, Equations (2)-(11)), with NT the number of tile
// rows. Higher runs first among ready tasks. The base is the Cholesky DAG
// walked backwards from its last task with unit costs; generation lines up
// with its first step; the solves follow the factorisation; the
// reductions (determinant, dot products) are leaves at 0.
//
//	generation (2)   dcmg(m, n)            3 NT - (m + n)/2
//	                 the observations' copies with tile (0, 0), a
//	                 cross-covariance's tile row m with tile (m, m)
//	Cholesky   (3)   potrf(k), trtri(k)    3 (NT - k)
//	           (4)   panel (m, k)          3 (NT - k) - (m - k)
//	           (5)   syrk (n, n, k)        3 (NT - k) - 2 (n - k)
//	           (6)   gemm (m, n, k)        3 (NT - k) - (n - k) - (m - k)
//	solve      (7)   diagonal step s       2 (NT - s)
//	           (8)   update of target i    2 (NT - s) - i
//	           (9)   geadd of step s       2 (NT - s)
//	reductions (10-11)                     0
//
// A solve (or triangular product) runs its steps s = 0, 1, ..., NT-1 in
// its own order (forward: s = k; backward: s = NT-1-k), and i is the
// position of the updated tile row (or column) in that order: the tiles
// the next steps need first go first. The diagonal step covers its trsv,
// trtri and trmm; the update its gemv or gemm.

// GenPriority is Equation (2): the generation of tile (m, n).
func GenPriority(nt, m, n int) int { return 3*nt - (m+n)/2 }

// PotrfPriority is Equation (3): the potrf (and trtri) of step k.
func PotrfPriority(nt, k int) int { return 3 * (nt - k) }

// PanelPriority is Equation (4): the panel task of tile (m, k).
func PanelPriority(nt, k, m int) int { return 3*(nt-k) - (m - k) }

// SyrkPriority is Equation (5): the syrk of step k on tile (n, n).
func SyrkPriority(nt, k, n int) int { return 3*(nt-k) - 2*(n-k) }

// GemmPriority is Equation (6): the gemm of step k on tile (m, n).
func GemmPriority(nt, k, m, n int) int { return 3*(nt-k) - (n - k) - (m - k) }

// SolveDiagPriority is Equations (7) and (9): the diagonal tasks of step s
// of a solve and the accumulations into its next target.
func SolveDiagPriority(nt, s int) int { return 2 * (nt - s) }

// SolveUpdatePriority is Equation (8): step s's update of the target at
// position i.
func SolveUpdatePriority(nt, s, i int) int { return 2*(nt-s) - i }
