package lp

import (
	"fmt"
	"github.com/exageostat/exageostat/pkg/config"
	"os"
	"path/filepath"
	"testing"
)

func TestZZDbg(t *testing.T) {
	files, _ := filepath.Glob(os.Getenv("DBG_DIR") + "/*.toml")
	for _, f := range files {
		c, err := config.LoadCluster(f)
		if err != nil {
			t.Fatal(err)
		}
		gs, _ := FromCluster(c)
		r, err := Solve(101, gs, Options{})
		if err != nil {
			t.Fatal(err)
		}
		r2, err := Solve(101, gs, Options{ExcludeCPUOnly: true})
		m2 := 0.0
		if err == nil {
			m2 = r2.Makespan
		}
		fmt.Printf("%s  LP %.1f s  (GPU-only fact %.1f)\n", filepath.Base(f), r.Makespan, m2)
	}
}
