package lp

import (
	"testing"

	"github.com/exageostat/exageostat/pkg/config"
)

func TestFromCluster(t *testing.T) {
	c := config.Cluster{Groups: []config.Group{
		{Name: "cpu", Nodes: 2, CPUs: 18,
			CPU: config.Durations{"dcmg": 0.5, "potrf": 0.016, "trtri": 0.004, "trsm": 0.035, "syrk": 0.033, "gemm": 0.059, "dot": 1e-6}},
		{Name: "gpu", Nodes: 4, CPUs: 24, GPUs: 2,
			CPU: config.Durations{"dcmg": 0.4, "gemm": 0.054},
			GPU: config.Durations{"potrf": 0.0045, "gemm": 0.0068}},
	}}
	gs, err := FromCluster(c)
	if err != nil {
		t.Fatal(err)
	}
	want := []Group{
		{Name: "cpu", Nodes: 2, Workers: [NumResources]int{18, 0},
			Durations: [NumResources][NumTasks]float64{CPU: {0.5, 0.016 + 0.004, 0.035, 0.033, 0.059}}},
		{Name: "gpu", Nodes: 4, Workers: [NumResources]int{24, 2},
			Durations: [NumResources][NumTasks]float64{CPU: {0.4, 0, 0, 0, 0.054}, GPU: {0, 0.0045, 0, 0, 0.0068}}},
	}
	if len(gs) != len(want) {
		t.Fatalf("got %d groups", len(gs))
	}
	for i := range want {
		if gs[i] != want[i] {
			t.Errorf("group %d: %+v, want %+v", i, gs[i], want[i])
		}
	}
	if _, err := FromCluster(config.DefaultCluster()); err == nil {
		t.Fatal("no error for a cluster without groups")
	}
}
