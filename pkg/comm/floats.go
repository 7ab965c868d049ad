package comm

import (
	"encoding/binary"
	"math"
)

// floatChunk is the most values one broadcast of BcastFloats carries: its
// byte buffer (8 bytes a value) is the only copy it makes.
const floatChunk = 1 << 17

// BcastFloats sets x, on every rank of c, to root's x: every rank calls it
// with a slice of the same length (a receiver's contents are
// overwritten). The values travel in chunks of at most 2^17 (1 MiB),
// little-endian IEEE 754 bits, so a rank holds x and one chunk's buffer,
// not a second copy of x; the values arrive bitwise.
func BcastFloats(c Comm, root int, x []float64) error {
	if c.Size() == 1 {
		return nil
	}
	var buf []byte
	if c.Rank() == root {
		buf = make([]byte, 8*min(len(x), floatChunk))
	}
	for lo := 0; lo < len(x); lo += floatChunk {
		part := x[lo:min(len(x), lo+floatChunk)]
		var b []byte
		if c.Rank() == root {
			b = buf[:8*len(part)]
			for k, v := range part {
				binary.LittleEndian.PutUint64(b[8*k:], math.Float64bits(v))
			}
		}
		got, err := c.Bcast(root, b)
		if err != nil {
			return err
		}
		if c.Rank() == root {
			continue
		}
		if len(got) != 8*len(part) {
			return commError("comm: BcastFloats: the ranks' lengths differ")
		}
		for k := range part {
			part[k] = math.Float64frombits(binary.LittleEndian.Uint64(got[8*k:]))
		}
	}
	return nil
}
