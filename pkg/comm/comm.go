// Package comm is the message layer under the distributed task runtime: the
// few point-to-point and collective operations the owner-computes model of
// StarPU-MPI needs, over MPI (build tag mpi), over goroutines in one process
// (Group, for tests), or over nothing (Self, one rank).
//
// Point-to-point calls are non-blocking: Isend and Irecv return a Request that
// Test completes later, so one progress goroutine can drive every transfer of
// a rank without blocking a compute worker. Messages are matched by (source,
// tag); the runtime derives tags deterministically from its submission order
// so that sender and receiver agree without talking.
package comm

// Request is an outstanding Isend or Irecv.
type Request interface{}

// Comm is one rank's endpoint of a communicator of Size ranks.
//
// Isend, Irecv and Test are called from one goroutine (the runtime's progress
// goroutine); the collectives from the program's main goroutine, with no
// point-to-point traffic of the same runtime in flight. Buffers passed to
// Isend and Irecv must stay untouched until Test reports the request done.
type Comm interface {
	Rank() int
	Size() int
	// Isend starts sending buf to rank dst with the given tag.
	Isend(buf []float64, dst, tag int) (Request, error)
	// Irecv starts receiving at most len(buf) values from rank src with
	// the given tag.
	Irecv(buf []float64, src, tag int) (Request, error)
	// Received returns the number of values a completed Irecv received.
	Received(Request) int
	// Test checks reqs (nil entries are ignored) and appends to done the
	// indices of the requests that have completed since they were posted
	// (each index is reported once; the caller drops the request).
	Test(reqs []Request, done []int) ([]int, error)
	// MaxTag is the largest tag value Isend and Irecv accept.
	MaxTag() int
	// AllreduceMin returns the minimum of x over all ranks.
	AllreduceMin(x int64) (int64, error)
	// AllreduceSum replaces x, element by element, by its sum over all ranks.
	AllreduceSum(x []int64) error
	// Bcast returns root's b on every rank (on root it may be b itself:
	// the root holds no second copy of a large message).
	Bcast(root int, b []byte) ([]byte, error)
	// Gather returns, on root, every rank's b in rank order (nil on the
	// other ranks).
	Gather(root int, b []byte) ([][]byte, error)
	// Abort ends every rank of the communicator with the exit code.
	Abort(code int)
}

// Self is the communicator of a single rank: no messages, collectives are
// the identity.
type Self struct{}

// Rank returns 0.
func (Self) Rank() int { return 0 }

// Size returns 1.
func (Self) Size() int { return 1 }

// Isend fails: a single rank has nobody to send to.
func (Self) Isend([]float64, int, int) (Request, error) { return nil, errNoPeer }

// Irecv fails: a single rank has nobody to receive from.
func (Self) Irecv([]float64, int, int) (Request, error) { return nil, errNoPeer }

// Received returns 0.
func (Self) Received(Request) int { return 0 }

// Gather returns [b].
func (Self) Gather(_ int, b []byte) ([][]byte, error) { return [][]byte{b}, nil }

// Test reports nothing done.
func (Self) Test(_ []Request, done []int) ([]int, error) { return done, nil }

// MaxTag returns the largest int32.
func (Self) MaxTag() int { return 1<<31 - 1 }

// AllreduceMin returns x.
func (Self) AllreduceMin(x int64) (int64, error) { return x, nil }

// AllreduceSum leaves x as it is.
func (Self) AllreduceSum([]int64) error { return nil }

// Bcast returns b.
func (Self) Bcast(_ int, b []byte) ([]byte, error) { return b, nil }

// Abort does nothing: the caller exits on its own.
func (Self) Abort(int) {}

type commError string

func (e commError) Error() string { return string(e) }

const errNoPeer = commError("comm: a single rank has no peer")
