package comm

import (
	"reflect"
	"sync"
	"testing"
)

// TestGroupMatching: messages match by (source, tag) whichever side posts
// first, and the collectives combine every rank's value.
func TestGroupMatching(t *testing.T) {
	g := NewGroup(3)
	e0, e1, e2 := g.Endpoint(0), g.Endpoint(1), g.Endpoint(2)
	// Receive posted before the send, and a send before its receive, with
	// tags out of order.
	a := make([]float64, 2)
	ra, _ := e1.Irecv(a, 0, 7)
	if _, err := e0.Isend([]float64{3, 4}, 1, 9); err != nil {
		t.Fatal(err)
	}
	if done, _ := e1.Test([]Request{ra}, nil); len(done) != 0 {
		t.Fatal("receive with tag 7 completed by a message with tag 9")
	}
	if _, err := e0.Isend([]float64{1, 2}, 1, 7); err != nil {
		t.Fatal(err)
	}
	b := make([]float64, 2)
	rb, _ := e1.Irecv(b, 0, 9)
	done, _ := e1.Test([]Request{nil, ra, rb}, nil)
	if !reflect.DeepEqual(done, []int{1, 2}) || !reflect.DeepEqual(a, []float64{1, 2}) || !reflect.DeepEqual(b, []float64{3, 4}) {
		t.Fatalf("done %v, a %v, b %v", done, a, b)
	}
	if _, err := e2.Irecv(make([]float64, 1), 2, 0); err == nil {
		t.Error("a rank received from itself")
	}
	var wg sync.WaitGroup
	mins := make([]int64, 3)
	sums := make([][]int64, 3)
	bc := make([][]byte, 3)
	for r, e := range []Comm{e0, e1, e2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mins[r], _ = e.AllreduceMin(int64(10 - r))
			sums[r] = []int64{int64(r), 1}
			_ = e.AllreduceSum(sums[r])
			var msg []byte
			if r == 2 {
				msg = []byte("from 2")
			}
			bc[r], _ = e.Bcast(2, msg)
		}()
	}
	wg.Wait()
	for r := 0; r < 3; r++ {
		if mins[r] != 8 || !reflect.DeepEqual(sums[r], []int64{3, 3}) || string(bc[r]) != "from 2" {
			t.Errorf("rank %d: min %d, sum %v, bcast %q", r, mins[r], sums[r], bc[r])
		}
	}
}

// TestTasks: the launcher's count of processes, from the first variable
// that says more than one.
func TestTasks(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		n    int
		from string
	}{
		{nil, 1, ""},
		{map[string]string{"SLURM_NTASKS": "4"}, 1, ""}, // an allocation, not a step: the batch script is one process
		{map[string]string{"SLURM_STEP_NUM_TASKS": "2"}, 2, "SLURM_STEP_NUM_TASKS"},
		{map[string]string{"SLURM_STEP_NUM_TASKS": "1"}, 1, ""},
		{map[string]string{"OMPI_COMM_WORLD_SIZE": "3", "SLURM_STEP_NUM_TASKS": "1"}, 3, "OMPI_COMM_WORLD_SIZE"},
		{map[string]string{"PMI_SIZE": "x"}, 1, ""},
	} {
		n, from := Tasks(func(k string) string { return c.env[k] })
		if n != c.n || from != c.from {
			t.Errorf("%v: %d from %q, want %d from %q", c.env, n, from, c.n, c.from)
		}
	}
}
