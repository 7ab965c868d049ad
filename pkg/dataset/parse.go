package dataset

import (
	"bytes"
	"io"
	"sync"
)

// chunkBytes is the fewest bytes of a piece that ParseCSV parses on a
// thread of its own.
const chunkBytes = 1 << 20

// ParseCSV reads the CSV table b (a file's content, read already; name
// is the file's name in the messages) as ReadCSVFrom does, on workers
// threads: b is cut at line ends into up to workers pieces of at least
// chunkBytes, the header and the first row are read from the first
// piece, then every piece's rows at once, each piece counting its lines
// from the number of line ends before it. The pieces' columns are joined
// in the file's order and their dropped rows added up; the error is the
// first piece's that has one (the one a single pass would meet first:
// the same file, line and message). The result is ReadCSVFrom's, bitwise,
// for any number of workers.
func ParseCSV(name string, b []byte, opt Options, workers int) (*Data, error) {
	return parseCSV(name, b, opt, workers, chunkBytes)
}

// parseCSV is ParseCSV with pieces of at least least bytes.
func parseCSV(name string, b []byte, opt Options, workers, least int) (*Data, error) {
	cuts := cutLines(b, workers, least)
	whole := func() (*Data, error) { return readCSV(newLines(name, bytes.NewReader(b)), opt) }
	if len(cuts) < 3 {
		return whole()
	}
	// The header and the first row (whether rows carry row names) from
	// the first piece; a file whose first piece ends before them is read
	// in one pass.
	r := newLines(name, bytes.NewReader(b[:cuts[1]]))
	s, sep, err := readHeader(r, opt)
	if err == io.EOF {
		return whole() // the header is not in the first piece
	}
	if err != nil {
		return nil, err
	}
	lines := bytes.Count(b[:cuts[1]], []byte{'\n'}) // line ends before piece k
	s.reserve(lines + 1 - r.line)
	more, err := s.rows(sep, 1)
	if err != nil {
		return nil, err
	}
	if !more {
		return whole()
	}
	parts := make([]*reading, len(cuts)-1)
	errs := make([]error, len(parts))
	parts[0] = s
	for k := 1; k < len(parts); k++ {
		rk := newLines(name, bytes.NewReader(b[cuts[k]:cuts[k+1]]))
		rk.line = lines
		piece := bytes.Count(b[cuts[k]:cuts[k+1]], []byte{'\n'})
		lines += piece
		p := newReading(rk, s.opt, s.l)
		p.reserve(piece + 1)
		p.rowNames, p.first = s.rowNames, false
		parts[k] = p
	}
	var wg sync.WaitGroup
	for k, p := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[k] = p.rows(sep, -1)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	join(parts)
	return s.finish(), nil
}

// join sets the columns of parts[0] to the rows that all parts read, in
// their order (each part read the lines after the previous part's, with
// the same layout), and adds up their dropped rows.
func join(parts []*reading) {
	d := parts[0].d
	cat := func(col func(d *Data) *[]float64) {
		if *col(d) == nil {
			return
		}
		n := 0
		for _, p := range parts {
			n += len(*col(p.d))
		}
		out := make([]float64, 0, n)
		for _, p := range parts {
			out = append(out, *col(p.d)...)
		}
		*col(d) = out
	}
	cat(func(d *Data) *[]float64 { return &d.X })
	cat(func(d *Data) *[]float64 { return &d.Y })
	cat(func(d *Data) *[]float64 { return &d.Z })
	cat(func(d *Data) *[]float64 { return &d.T })
	cat(func(d *Data) *[]float64 { return &d.Obs })
	cat(func(d *Data) *[]float64 { return &d.Obs2 })
	for j := range d.Columns {
		cat(func(d *Data) *[]float64 { return &d.Columns[j].Values })
	}
	for _, p := range parts[1:] {
		parts[0].dropped += p.dropped
		for j, k := range p.missing {
			parts[0].missing[j] += k
		}
	}
}

// reserve gives the columns of s room for n rows more.
func (s *reading) reserve(n int) {
	for _, dst := range s.dst {
		for _, p := range dst {
			*p = append(make([]float64, 0, len(*p)+n), *p...)
		}
	}
}

// cutLines returns the starts of the pieces of b, and len(b) last: up to
// workers pieces of at least least bytes, each but the last ending
// just after a line end ('\n'). Fewer than three values: one piece.
func cutLines(b []byte, workers, least int) []int {
	pieces := min(workers, len(b)/max(least, 1))
	cuts := []int{0}
	for k := 1; k < pieces; k++ {
		at := max(k*len(b)/pieces, cuts[len(cuts)-1])
		nl := bytes.IndexByte(b[at:], '\n')
		if nl < 0 {
			break
		}
		if at+nl+1 < len(b) && at+nl+1 > cuts[len(cuts)-1] {
			cuts = append(cuts, at+nl+1)
		}
	}
	return append(cuts, len(b))
}
