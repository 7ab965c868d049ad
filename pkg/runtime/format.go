package runtime

import (
	"fmt"
	"math"
	"unsafe"
)

// Format is the layout of a handle's data (StarPU's data interface): the
// size of a buffer, and which of its words a message carries. Buffers are
// float64 words; a format may store other types in them (a float32 tile
// takes half as many words).
type Format interface {
	// Words is the size of a buffer in float64 words: the most the data
	// can take.
	Words() int
	// Pack returns the words of buf that hold its current content, a
	// prefix of buf (no copy): what a message carries. A format whose size
	// varies (a low-rank tile of the current rank) sends only that.
	Pack(buf []float64) []float64
	// Unpack checks that the first n words of buf, just received, are a
	// content of this format.
	Unpack(buf []float64, n int) error
	String() string
}

// Dense is an M x N float64 tile, column-major with leading dimension M.
type Dense struct{ M, N int }

// Words returns M N.
func (f Dense) Words() int { return f.M * f.N }

// Pack returns buf[:M N].
func (f Dense) Pack(buf []float64) []float64 { return buf[:f.M*f.N] }

// Unpack checks n = M N.
func (f Dense) Unpack(_ []float64, n int) error { return wantWords(f, n, f.M*f.N) }

func (f Dense) String() string { return fmt.Sprintf("dense %dx%d", f.M, f.N) }

// Vector is a block of N float64 values.
type Vector struct{ N int }

// Words returns N.
func (f Vector) Words() int { return f.N }

// Pack returns buf[:N].
func (f Vector) Pack(buf []float64) []float64 { return buf[:f.N] }

// Unpack checks n = N.
func (f Vector) Unpack(_ []float64, n int) error { return wantWords(f, n, f.N) }

func (f Vector) String() string { return fmt.Sprintf("vector %d", f.N) }

// Single is an M x N float32 tile, column-major with leading dimension M,
// stored two values to a word (mixed-precision tiles).
type Single struct{ M, N int }

// Words returns ceil(M N / 2).
func (f Single) Words() int { return (f.M*f.N + 1) / 2 }

// Pack returns the words holding the M N values.
func (f Single) Pack(buf []float64) []float64 { return buf[:f.Words()] }

// Unpack checks n = ceil(M N / 2).
func (f Single) Unpack(_ []float64, n int) error { return wantWords(f, n, f.Words()) }

func (f Single) String() string { return fmt.Sprintf("float32 %dx%d", f.M, f.N) }

// Values returns buf's M N float32 values (the same memory).
func (f Single) Values(buf []float64) []float32 {
	if f.M*f.N == 0 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&buf[0])), f.M*f.N)
}

// Scalar is one float64 value (a partial sum).
type Scalar struct{}

// Words returns 1.
func (Scalar) Words() int { return 1 }

// Pack returns buf[:1].
func (Scalar) Pack(buf []float64) []float64 { return buf[:1] }

// Unpack checks n = 1.
func (f Scalar) Unpack(_ []float64, n int) error { return wantWords(f, n, 1) }

func (Scalar) String() string { return "scalar" }

// LowRank is an M x N tile held as U V^T, U of M x k and V of N x k, with
// a rank k <= MaxRank that changes as tasks write it. A buffer holds k in
// its first word, then U and V column-major: 1 + (M+N) k words are in use
// out of 1 + (M+N) MaxRank, and a message carries only those.
//
// A tile that needs a rank above MaxRank may stay dense in the same
// buffer when it fits (HoldsDense: M N <= (M+N) MaxRank, as with the
// default MaxRank = nb/2): the first word is then -1 and the M x N
// column-major tile follows (1 + M N words in use).
type LowRank struct{ M, N, MaxRank int }

// Words returns 1 + (M+N) MaxRank.
func (f LowRank) Words() int { return 1 + (f.M+f.N)*f.MaxRank }

// Rank returns the rank k held in buf, or -1 when buf holds the tile dense.
func (f LowRank) Rank(buf []float64) int { return int(buf[0]) }

// IsDense reports whether buf holds the tile dense (SetDense).
func (f LowRank) IsDense(buf []float64) bool { return buf[0] < 0 }

// HoldsDense reports whether a buffer of this format can hold the tile
// dense: M N <= (M+N) MaxRank.
func (f LowRank) HoldsDense() bool { return f.M*f.N <= (f.M+f.N)*f.MaxRank }

// Factors sets the rank held in buf to k and returns U (M x k) and V
// (N x k) within buf.
func (f LowRank) Factors(buf []float64, k int) (u, v []float64) {
	if k < 0 || k > f.MaxRank {
		panic(fmt.Sprintf("runtime: rank %d outside [0, %d] for %v", k, f.MaxRank, f))
	}
	buf[0] = float64(k)
	return buf[1 : 1+f.M*k], buf[1+f.M*k : 1+(f.M+f.N)*k]
}

// SetDense marks buf as holding the tile dense and returns the M x N
// column-major tile within it. It panics unless HoldsDense.
func (f LowRank) SetDense(buf []float64) []float64 {
	if !f.HoldsDense() {
		panic(fmt.Sprintf("runtime: %v cannot hold its tile dense", f))
	}
	buf[0] = -1
	return buf[1 : 1+f.M*f.N]
}

// used returns the words in use for rank k (-1: dense).
func (f LowRank) used(k int) int {
	if k < 0 {
		return 1 + f.M*f.N
	}
	return 1 + (f.M+f.N)*k
}

// Pack returns the rank and the factors of the current rank (or the dense
// tile).
func (f LowRank) Pack(buf []float64) []float64 { return buf[:f.used(f.Rank(buf))] }

// Unpack checks that the message holds a rank in [0, MaxRank] (or -1 for a
// dense tile the format can hold) and exactly the words of that content.
func (f LowRank) Unpack(buf []float64, n int) error {
	if n < 1 {
		return fmt.Errorf("%v: empty message", f)
	}
	k := buf[0]
	if k != math.Trunc(k) || (k < 0 && !(k == -1 && f.HoldsDense())) || int(k) > f.MaxRank {
		return fmt.Errorf("%v: message holds rank %g", f, k)
	}
	return wantWords(f, n, f.used(int(k)))
}

func (f LowRank) String() string {
	return fmt.Sprintf("low-rank %dx%d (rank <= %d)", f.M, f.N, f.MaxRank)
}

func wantWords(f Format, n, want int) error {
	if n != want {
		return fmt.Errorf("%v: message of %d words, want %d", f, n, want)
	}
	return nil
}
