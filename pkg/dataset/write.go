package dataset

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/exageostat/exageostat/pkg/atomicfile"
)

// WriteCSV writes d to path as CSV that ReadCSV reads back bit for bit: the
// header "x,y,z" or "lon,lat,z" (without ",z" when Obs is nil; "x,y,t,z"
// with times, "x,y,z,value" or "x,y,z,t,value" for 3D locations), then one row
// per location formatted with strconv's 'g', -1 (shortest exact) format.
// Non-finite values are an error naming the row. The file is written
// atomically (see WriteTable).
func WriteCSV(path string, d *Data) error {
	n := len(d.X)
	if len(d.Y) != n || (d.Obs != nil && len(d.Obs) != n) {
		return fmt.Errorf("write %s: inconsistent data: %d x, %d y, %d observations", path, n, len(d.Y), len(d.Obs))
	}
	if (d.Z != nil && len(d.Z) != n) || (d.T != nil && len(d.T) != n) {
		return fmt.Errorf("write %s: inconsistent data: %d locations, %d third coordinates, %d times", path, n, len(d.Z), len(d.T))
	}
	header, cols := d.Table()
	for _, c := range cols {
		if len(c) != n {
			return fmt.Errorf("write %s: inconsistent data: a column of %d values for %d locations", path, len(c), n)
		}
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		return writeRows(w, header, cols, true)
	})
}

// Table returns the columns WriteCSV writes and their names: x,y (or
// lon,lat), then z for 3D locations, t for times, and the observations
// (z, value for 3D, or z1,z2).
func (d *Data) Table() (header []string, cols [][]float64) {
	xn, yn := d.names()
	header = []string{xn, yn}
	cols = [][]float64{d.X, d.Y}
	obsName := "z"
	if d.Z != nil {
		header = append(header, "z")
		cols = append(cols, d.Z)
		obsName = "value"
	}
	if d.T != nil {
		header = append(header, "t")
		cols = append(cols, d.T)
	}
	if d.Obs2 != nil {
		header = append(header, "z1", "z2")
		cols = append(cols, d.Obs, d.Obs2)
	} else if d.Obs != nil {
		header = append(header, obsName)
		cols = append(cols, d.Obs)
	}
	return header, cols
}

// WriteCSVTo writes d to w as WriteCSV writes it to a file (standard
// output for --out -).
func WriteCSVTo(w io.Writer, d *Data) error {
	xn, yn := d.names()
	header := []string{xn, yn}
	cols := [][]float64{d.X, d.Y}
	if d.Obs != nil {
		header = append(header, "z")
		cols = append(cols, d.Obs)
	}
	return writeRows(w, header, cols, true)
}

// WriteTableTo writes the table to w as WriteTable writes it to a file
// (standard output for --out -).
func WriteTableTo(w io.Writer, header []string, cols [][]float64) error {
	if len(header) != len(cols) {
		return fmt.Errorf("%d header names but %d columns", len(header), len(cols))
	}
	return writeRows(w, header, cols, false)
}

// WriteTable writes a CSV table to path: the header line (names joined by
// commas) then one row per index of the columns, each value formatted with
// strconv's 'g', -1 format (non-finite values are written as NaN, +Inf,
// -Inf). All columns must have the same length, one per header name.
//
// The write is atomic: the data go to a temporary file in the same
// directory, which is synced, closed and renamed onto path only when
// everything succeeded. On any error the temporary file is removed, so path
// is either untouched (an existing file stays intact) or completely written.
// An existing file's permissions are kept; a new file gets 0644.
func WriteTable(path string, header []string, cols [][]float64) error {
	if len(header) != len(cols) {
		return fmt.Errorf("write %s: %d header names but %d columns", path, len(header), len(cols))
	}
	for i, h := range header {
		if strings.ContainsAny(h, ",\n\r") {
			return fmt.Errorf("write %s: header name %q contains a comma or newline", path, h)
		}
		if len(cols[i]) != len(cols[0]) {
			return fmt.Errorf("write %s: column %s has %d values but %s has %d", path, h, len(cols[i]), header[0], len(cols[0]))
		}
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		return writeRows(w, header, cols, false)
	})
}

// writeRows writes header and rows of cols to w. With finite set, a
// non-finite value is an error naming its 1-based row and column.
func writeRows(w io.Writer, header []string, cols [][]float64, finite bool) error {
	if _, err := io.WriteString(w, strings.Join(header, ",")+"\n"); err != nil {
		return err
	}
	n := 0
	if len(cols) > 0 {
		n = len(cols[0])
	}
	buf := make([]byte, 0, 32*len(cols)+1)
	for i := 0; i < n; i++ {
		buf = buf[:0]
		for j, c := range cols {
			v := c[i]
			if finite && (math.IsNaN(v) || math.IsInf(v, 0)) {
				return fmt.Errorf("row %d: %s is %v", i+1, header[j], v)
			}
			if j > 0 {
				buf = append(buf, ',')
			}
			buf = strconv.AppendFloat(buf, v, 'g', -1, 64)
		}
		buf = append(buf, '\n')
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return nil
}
