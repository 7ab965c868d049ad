package vecchia

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/exageostat/exageostat/pkg/kernels"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/runtime"
)

// BenchmarkEval times one evaluation (l alone, then with the gradient and
// information) of a Matérn model with nu free, a nugget and a constant
// mean on n uniform random points in a random order (VECCHIA_N, default
// 100000), m = 30, on 2 workers.
func BenchmarkEval(b *testing.B) {
	n := 100000
	if s := os.Getenv("VECCHIA_N"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	pts := randomPoints(rng, n, false)
	obs := make([]float64, n)
	one := make([]float64, n)
	for i := range obs {
		obs[i], one[i] = rng.NormFloat64(), 1
	}
	t0 := time.Now()
	const m = 30
	sets := gridSets(pts.X, pts.Y, m)
	tSets := time.Since(t0)
	g := Grouping{}
	if s := os.Getenv("VECCHIA_MAXSIZE"); s != "" {
		g.MaxSize, _ = strconv.Atoi(s)
	}
	if s := os.Getenv("VECCHIA_GRAD"); s != "" {
		g.Grad, _ = strconv.ParseFloat(s, 64)
	}
	if s := os.Getenv("VECCHIA_ENTRY"); s != "" {
		g.Entry, _ = strconv.ParseFloat(s, 64)
	}
	g.Off = os.Getenv("VECCHIA_OFF") != ""
	t0 = time.Now()
	plan, err := NewPlan(likelihood.Problem{Points: pts, Obs: obs, Model: likelihood.Matern, Covariates: [][]float64{one}}, nil, m, sets, g)
	if err != nil {
		b.Fatal(err)
	}
	tPlan := time.Since(t0)
	su, sr := 0, 0
	for k := 0; k < plan.Blocks.Len(); k++ {
		u, r := plan.Blocks.Size(k)
		su += u
		sr += r
	}
	fmt.Printf("n %d: sets %.2fs, plan %.2fs, %d blocks, mean u %.1f r %.1f, umax %d, %d tasks\n",
		n, tSets.Seconds(), tPlan.Seconds(), plan.Blocks.Len(), float64(su)/float64(plan.Blocks.Len()),
		float64(sr)/float64(plan.Blocks.Len()), plan.UMax, len(plan.Tasks)-1)
	rt := runtime.New(runtime.Options{Workers: 2})
	defer rt.Close()
	e := NewEvaluator(plan, 4, rt, kernels.Default())
	e.Timing = true
	theta := []float64{1, 0.05, 0.8, 0.1}
	for _, grad := range []bool{false, true} {
		b.Run(fmt.Sprintf("grad=%v", grad), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				c0 := cpuSeconds()
				r, err := e.Eval(theta, Want{Grad: grad})
				b.ReportMetric(cpuSeconds()-c0, "cpu-s")
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(r.Times[0], "gen-s")
				b.ReportMetric(r.Times[1], "chol-s")
				b.ReportMetric(r.Times[2], "solve-s")
				b.ReportMetric(r.Times[3], "grad-s")
			}
		})
	}
}

// cpuSeconds returns the process's user and system CPU time.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Sec+ru.Stime.Sec) + 1e-6*float64(ru.Utime.Usec+ru.Stime.Usec)
}
