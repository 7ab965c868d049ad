package bench

// Problem is the test problem of a benchmark and how it is timed: N
// locations drawn from Seed with observations of a zero-mean Gaussian
// field of Matérn covariance Theta = (sigma2, beta, nu), tiles of NB,
// Workers runtime workers and Reps timed repetitions. The options of the
// benchmarks that time likelihood evaluations embed it, and so do the
// results that report it as it ran.
type Problem struct {
	N       int       `json:"n"`
	NB      int       `json:"nb"`
	Workers int       `json:"workers"`
	Reps    int       `json:"reps"`
	Theta   []float64 `json:"theta"` // Matérn (sigma2, beta, nu)
	Seed    uint64    `json:"seed"`
}
