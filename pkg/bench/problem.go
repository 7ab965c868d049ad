package bench

// Problem is the test problem of a benchmark and how it is timed: N
// locations drawn from Seed with observations of a zero-mean Gaussian
// field of Matérn covariance Theta = (sigma2, beta, nu), tiles of NB,
// Workers runtime workers and Reps timed repetitions. The options of the
// benchmarks that time likelihood evaluations embed it.
type Problem struct {
	N, NB, Workers, Reps int
	Theta                []float64 // Matérn (sigma2, beta, nu)
	Seed                 uint64
}
