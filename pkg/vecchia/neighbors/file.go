package neighbors

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
)

// The sets file (--vecchia-sets-out writes it, --vecchia-sets reads it)
// holds an ordering and its conditioning sets, so that a fit can be
// reproduced or compared with another implementation on identical sets:
//
//	# vecchia conditioning sets: n=5 m=2
//	1 3
//	2 1 3
//	3 5 3 1
//	...
//
// The first line is the header with the number of locations n and the
// largest set size m; further lines starting with '#' are comments. Then
// one line per location, in the ordering: its position k (1..n, in
// sequence), the data row of the k-th location (1-based: row 1 is the
// first data row of the input file), and the data rows of its conditioning
// set, nearest first; all of them are rows of earlier positions. GpGp's
// NNarray is the same table in positions: NNarray[k, ] = (k, pos(row_1),
// pos(row_2), ...) with pos the inverse of the second column.

// Header is the start of a sets file's first line.
const Header = "# vecchia conditioning sets:"

// Write writes the ordering perm (perm[k] = the 0-based data row of
// position k) and its conditioning sets s (positions) as a sets file.
func Write(w io.Writer, perm []int, s *Sets) error {
	if len(perm) != s.N {
		return fmt.Errorf("neighbors: %d positions for %d rows of sets", len(perm), s.N)
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	fmt.Fprintf(bw, "%s n=%d m=%d\n", Header, s.N, s.M)
	fmt.Fprintf(bw, "# position, data row, then the rows it is conditioned on (nearest first); 1-based\n")
	var b []byte
	for k := range s.N {
		b = strconv.AppendInt(b[:0], int64(k+1), 10)
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(perm[k]+1), 10)
		for _, j := range s.Row(k) {
			b = append(b, ' ')
			b = strconv.AppendInt(b, int64(perm[j]+1), 10)
		}
		b = append(b, '\n')
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// Read reads a sets file (see Write) named name (for messages): the
// ordering perm (0-based rows) and the sets in positions, of width the
// largest set in the file. An error names the place, "name:line: what is
// wrong": a header missing or not of the form above, a field that is not
// an integer, a position out of sequence, a row outside 1..n or given
// twice, a neighbour that is not a row of an earlier position or is
// repeated, more than m neighbours, a number of locations other than n.
// The caller checks n against its data. Memory: O(size of the file) while
// reading, then the Sets.
func Read(r io.Reader, name string) (perm []int, s *Sets, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	fr := &fileRows{name: name}
	n, m := -1, 0
	for sc.Scan() {
		fr.line++
		t := bytes.TrimSpace(sc.Bytes())
		if fr.line == 1 {
			if n, m, err = parseHeader(t); err != nil {
				return nil, nil, fr.fail(fr.line, "%v", err)
			}
			continue
		}
		if len(t) == 0 || t[0] == '#' {
			continue
		}
		if len(fr.rows) == n {
			return nil, nil, fr.fail(fr.line, "more than n = %d locations", n)
		}
		if err := fr.add(t, n, m); err != nil {
			return nil, nil, fr.fail(fr.line, "%v", err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fr.fail(fr.line+1, "%v", err)
	}
	if fr.line == 0 {
		return nil, nil, fr.fail(1, "empty file (want the header %q)", Header+" n=N m=M")
	}
	if len(fr.rows) != n {
		return nil, nil, fr.fail(fr.line, "%d locations, the header says n = %d", len(fr.rows), n)
	}
	return fr.sets()
}

// maxN bounds the header's n.
const maxN = 1<<31 - 1

// parseHeader parses "# vecchia conditioning sets: n=N m=M".
func parseHeader(t []byte) (n, m int, err error) {
	rest, ok := bytes.CutPrefix(t, []byte(Header))
	if !ok {
		return 0, 0, fmt.Errorf("not a sets file: want the header %q", Header+" n=N m=M")
	}
	f := bytes.Fields(rest)
	if len(f) < 2 {
		return 0, 0, fmt.Errorf("header: want n=N m=M after %q", Header)
	}
	if n, err = headerInt(f[0], "n=", maxN); err != nil {
		return 0, 0, err
	}
	if m, err = headerInt(f[1], "m=", MaxM); err != nil {
		return 0, 0, err
	}
	return n, m, nil
}

func headerInt(f []byte, key string, max int) (int, error) {
	v, ok := bytes.CutPrefix(f, []byte(key))
	x, err := strconv.Atoi(string(v))
	if !ok || err != nil || x < 0 || x > max {
		return 0, fmt.Errorf("header: want %sK with 0 <= K <= %d, got %q", key, max, f)
	}
	return x, nil
}

// fileRows holds what Read has parsed: per location its data row, its
// line and its neighbours' rows (all 0-based; the neighbours flat, row k's
// at nb[off[k]:off[k+1]]).
type fileRows struct {
	name string
	line int
	rows []int32
	at   []int32 // the line of each location
	off  []int
	nb   []int32
}

func (fr *fileRows) fail(line int, f string, a ...any) error {
	return fmt.Errorf("%s:%d: %s", fr.name, line, fmt.Sprintf(f, a...))
}

// add parses the line of the next location: its position, its row and
// its neighbours' rows, each in 1..n, at most m neighbours.
func (fr *fileRows) add(t []byte, n, m int) error {
	k := len(fr.rows)
	f := bytes.Fields(t)
	if len(f) < 2 {
		return fmt.Errorf("want the position and the data row, got %q", t)
	}
	if len(f)-2 > m {
		return fmt.Errorf("%d neighbours, more than m = %d", len(f)-2, m)
	}
	if len(fr.off) == 0 {
		fr.off = append(fr.off, 0)
	}
	for i, x := range f {
		v, err := strconv.Atoi(string(x))
		switch {
		case err != nil:
			return fmt.Errorf("field %d: %q is not an integer", i+1, x)
		case i == 0 && v != k+1:
			return fmt.Errorf("position %d, want %d (one line per location, in the ordering)", v, k+1)
		case i > 0 && (v < 1 || v > n):
			return fmt.Errorf("field %d: data row %d is outside 1..%d", i+1, v, n)
		case i == 1:
			fr.rows = append(fr.rows, int32(v-1))
		case i > 1:
			fr.nb = append(fr.nb, int32(v-1))
		}
	}
	fr.at = append(fr.at, int32(fr.line))
	fr.off = append(fr.off, len(fr.nb))
	return nil
}

// sets checks the rows (a permutation; neighbours of earlier positions,
// not repeated) and returns the ordering and the sets in positions.
func (fr *fileRows) sets() ([]int, *Sets, error) {
	n := len(fr.rows)
	pos := make([]int32, n) // row -> position + 1
	width := 0
	for k, r := range fr.rows {
		if pos[r] != 0 {
			return nil, nil, fr.fail(int(fr.at[k]), "data row %d is at position %d already", r+1, pos[r])
		}
		pos[r] = int32(k + 1)
		width = max(width, fr.off[k+1]-fr.off[k])
	}
	s := NewSets(n, width)
	seen := make([]int32, n) // seen[p] = k+1: position p is in row k
	for k := range n {
		dst := s.Idx[k*width : (k+1)*width]
		for i, r := range fr.nb[fr.off[k]:fr.off[k+1]] {
			p := pos[r] - 1
			if int(p) >= k {
				return nil, nil, fr.fail(int(fr.at[k]), "neighbour %d (data row %d) is not the row of an earlier position", i+1, r+1)
			}
			if seen[p] == int32(k+1) {
				return nil, nil, fr.fail(int(fr.at[k]), "neighbour %d (data row %d) is repeated", i+1, r+1)
			}
			seen[p] = int32(k + 1)
			dst[i] = p
		}
	}
	perm := make([]int, n)
	for k, r := range fr.rows {
		perm[k] = int(r)
	}
	return perm, s, nil
}
