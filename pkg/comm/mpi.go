//go:build mpi

package comm

/*
#cgo pkg-config: ompi
#include <mpi.h>
#include <stdlib.h>

static int xs_isend(double *buf, int n, int dst, int tag, MPI_Request *req) {
	return MPI_Isend(buf, n, MPI_DOUBLE, dst, tag, MPI_COMM_WORLD, req);
}
static int xs_irecv(double *buf, int n, int src, int tag, MPI_Request *req) {
	return MPI_Irecv(buf, n, MPI_DOUBLE, src, tag, MPI_COMM_WORLD, req);
}
static int xs_testsome(int n, MPI_Request *reqs, int *outcount, int *idx, int *counts) {
	MPI_Status *st = malloc((n > 0 ? n : 1) * sizeof(MPI_Status));
	int rc = MPI_Testsome(n, reqs, outcount, idx, st);
	if (rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED) {
		for (int i = 0; i < *outcount; i++) {
			int c = 0;
			MPI_Get_count(&st[i], MPI_DOUBLE, &c);
			counts[i] = c;
		}
	}
	free(st);
	return rc;
}
static int xs_gather_sizes(long long n, long long *all, int root) {
	return MPI_Gather(&n, 1, MPI_LONG_LONG, all, 1, MPI_LONG_LONG, root, MPI_COMM_WORLD);
}
static int xs_gatherv(void *buf, int n, void *out, int *counts, int *displs, int root) {
	return MPI_Gatherv(buf, n, MPI_BYTE, out, counts, displs, MPI_BYTE, root, MPI_COMM_WORLD);
}
static MPI_Request xs_null(void) { return MPI_REQUEST_NULL; }
static int xs_tag_ub(void) {
	int *v = NULL, flag = 0;
	MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag);
	return flag && v ? *v : 32767;
}
static int xs_bcast(void *buf, int n, int root) {
	return MPI_Bcast(buf, n, MPI_BYTE, root, MPI_COMM_WORLD);
}
static void xs_abort(int code) { MPI_Abort(MPI_COMM_WORLD, code); }
static int xs_finalized(void) { int f = 0; MPI_Finalized(&f); return f; }
*/
import "C"

import (
	"fmt"
	"os"
	"sync"
	"unsafe"

	"github.com/emer/empi/mpi"
)

// Launched reports whether the process was started by an MPI launcher
// (mpirun, or srun with PMIx/PMI): then World initialises MPI.
func Launched() bool {
	for _, v := range []string{"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"} {
		if os.Getenv(v) != "" {
			return true
		}
	}
	return false
}

// MPI reports whether this binary was built with MPI (build tag mpi).
const MPI = true

// World initialises MPI with MPI_THREAD_MULTIPLE (the runtime's progress
// goroutine and the main goroutine both call MPI, from different threads) and
// returns MPI_COMM_WORLD, or Self when the process was not started by an MPI
// launcher. Call Finalize before exiting.
func World() (Comm, error) {
	if !Launched() {
		return Self{}, nil
	}
	if err := mpi.InitThreadSafe(); err != nil {
		return nil, err
	}
	w, err := mpi.NewComm(nil)
	if err != nil {
		return nil, err
	}
	return &mpiComm{w: w, rank: w.Rank(), size: w.Size(), tagUB: int(C.xs_tag_ub())}, nil
}

// Finalize shuts MPI down if World started it; it must run on the thread
// that called World (lock the main goroutine to its thread).
func Finalize(c Comm) {
	if _, ok := c.(*mpiComm); ok && C.xs_finalized() == 0 {
		mpi.Finalize()
	}
}

type mpiComm struct {
	w          *mpi.Comm
	rank, size int
	tagUB      int
	testMu     sync.Mutex     // guards the scratch arrays (one caller expected)
	reqs       *C.MPI_Request // scratch arrays for Testsome, grown on demand
	idx        *C.int
	counts     *C.int
	capacity   int
}

// mpiReq holds an MPI request handle (a C value) and the buffer MPI reads or
// writes until it completes. Tile buffers are Go heap memory, which the
// garbage collector does not move; the request keeps the slice alive.
type mpiReq struct {
	r   C.MPI_Request
	buf []float64
	n   int // values received (receives)
}

func mpiErr(code C.int, what string) error {
	if code == C.MPI_SUCCESS {
		return nil
	}
	return fmt.Errorf("comm: %s failed (MPI error %d)", what, int(code))
}

func (c *mpiComm) Rank() int   { return c.rank }
func (c *mpiComm) Size() int   { return c.size }
func (c *mpiComm) MaxTag() int { return c.tagUB }

func bufPtr(buf []float64) *C.double {
	if len(buf) == 0 {
		return nil
	}
	return (*C.double)(unsafe.Pointer(&buf[0]))
}

func (c *mpiComm) Isend(buf []float64, dst, tag int) (Request, error) {
	return post(buf, "MPI_Isend", func(r *C.MPI_Request) C.int {
		return C.xs_isend(bufPtr(buf), C.int(len(buf)), C.int(dst), C.int(tag), r)
	})
}

func (c *mpiComm) Irecv(buf []float64, src, tag int) (Request, error) {
	return post(buf, "MPI_Irecv", func(r *C.MPI_Request) C.int {
		return C.xs_irecv(bufPtr(buf), C.int(len(buf)), C.int(src), C.int(tag), r)
	})
}

// post starts a nonblocking transfer of buf by start (the call MPI names
// name, for its error) and returns its request, which keeps buf alive
// until the transfer completes.
func post(buf []float64, name string, start func(*C.MPI_Request) C.int) (Request, error) {
	q := &mpiReq{buf: buf}
	var r C.MPI_Request
	if err := mpiErr(start(&r), name); err != nil {
		return nil, err
	}
	q.r = r
	return q, nil
}

func (c *mpiComm) Test(reqs []Request, done []int) ([]int, error) {
	n := len(reqs)
	if n == 0 {
		return done, nil
	}
	c.testMu.Lock()
	defer c.testMu.Unlock()
	if n > c.capacity {
		if c.reqs != nil {
			C.free(unsafe.Pointer(c.reqs))
			C.free(unsafe.Pointer(c.idx))
			C.free(unsafe.Pointer(c.counts))
		}
		c.capacity = 2 * n
		c.reqs = (*C.MPI_Request)(C.malloc(C.size_t(c.capacity) * C.size_t(unsafe.Sizeof(C.MPI_Request(C.xs_null())))))
		c.idx = (*C.int)(C.malloc(C.size_t(c.capacity) * C.size_t(unsafe.Sizeof(C.int(0)))))
		c.counts = (*C.int)(C.malloc(C.size_t(c.capacity) * C.size_t(unsafe.Sizeof(C.int(0)))))
	}
	rs := unsafe.Slice(c.reqs, n)
	ix := unsafe.Slice(c.idx, n)
	cs := unsafe.Slice(c.counts, n)
	for i, q := range reqs {
		if q == nil {
			rs[i] = C.xs_null()
		} else {
			rs[i] = q.(*mpiReq).r
		}
	}
	var out C.int
	if err := mpiErr(C.xs_testsome(C.int(n), c.reqs, &out, c.idx, c.counts), "MPI_Testsome"); err != nil {
		return done, err
	}
	if out == C.MPI_UNDEFINED {
		return done, nil
	}
	if out < 0 || int(out) > n {
		return done, fmt.Errorf("comm: MPI_Testsome reported %d of %d requests done", int(out), n)
	}
	for i := 0; i < int(out); i++ {
		j := int(ix[i])
		if j < 0 || j >= n || reqs[j] == nil {
			return done, fmt.Errorf("comm: MPI_Testsome reported request %d of %d done, which is not outstanding", j, n)
		}
		q := reqs[j].(*mpiReq)
		q.r = rs[j]
		q.n = int(cs[i])
		done = append(done, j)
	}
	return done, nil
}

func (c *mpiComm) Received(q Request) int { return q.(*mpiReq).n }

func (c *mpiComm) Gather(root int, b []byte) ([][]byte, error) {
	sizes := make([]C.longlong, c.size)
	if err := mpiErr(C.xs_gather_sizes(C.longlong(len(b)), &sizes[0], C.int(root)), "MPI_Gather"); err != nil {
		return nil, err
	}
	var counts, displs []C.int
	var total int
	if c.rank == root {
		counts, displs = make([]C.int, c.size), make([]C.int, c.size)
		for i, s := range sizes {
			if total+int(s) > 1<<31-1 {
				return nil, fmt.Errorf("comm: gather of more than 2 GiB")
			}
			counts[i], displs[i] = C.int(s), C.int(total)
			total += int(s)
		}
	} else {
		counts, displs = make([]C.int, 1), make([]C.int, 1)
	}
	in := C.malloc(C.size_t(len(b) + 1))
	defer C.free(in)
	copy(unsafe.Slice((*byte)(in), len(b)+1), b)
	out := C.malloc(C.size_t(total + 1))
	defer C.free(out)
	if err := mpiErr(C.xs_gatherv(in, C.int(len(b)), out, &counts[0], &displs[0], C.int(root)), "MPI_Gatherv"); err != nil {
		return nil, err
	}
	if c.rank != root {
		return nil, nil
	}
	all := unsafe.Slice((*byte)(out), total+1)
	res := make([][]byte, c.size)
	for i := range res {
		res[i] = append([]byte(nil), all[displs[i]:int(displs[i])+int(counts[i])]...)
	}
	return res, nil
}

func (c *mpiComm) AllreduceMin(x int64) (int64, error) {
	in, out := []int64{x}, []int64{0}
	if err := c.w.AllReduceI64(mpi.OpMin, out, in); err != nil {
		return 0, err
	}
	return out[0], nil
}

func (c *mpiComm) AllreduceSum(x []int64) error {
	out := make([]int64, len(x))
	if err := c.w.AllReduceI64(mpi.OpSum, out, x); err != nil {
		return err
	}
	copy(x, out)
	return nil
}

// bcastChunk is the most bytes one MPI_Bcast carries (its count is an
// int): larger buffers go in chunks.
const bcastChunk = 1 << 30

func (c *mpiComm) Bcast(root int, b []byte) ([]byte, error) {
	n := []int64{int64(len(b))}
	if err := c.w.BcastI64(root, n); err != nil {
		return nil, err
	}
	buf := b // root sends from b itself: no second copy of a large message
	if c.rank != root || len(b) == 0 {
		buf = make([]byte, n[0]+1) // never empty: a valid pointer for C
	}
	for off := int64(0); off < n[0] || off == 0; off += bcastChunk {
		k := min(n[0]-off, bcastChunk)
		if err := mpiErr(C.xs_bcast(unsafe.Pointer(&buf[off]), C.int(k), C.int(root)), "MPI_Bcast"); err != nil {
			return nil, err
		}
		if k == 0 {
			break
		}
	}
	return buf[:n[0]], nil
}

func (c *mpiComm) Abort(code int) { C.xs_abort(C.int(code)) }
