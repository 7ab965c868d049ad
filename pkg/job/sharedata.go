package job

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"slices"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/dataset"
)

// dataHead is what shareData broadcasts before the columns: the data
// without their columns of values, and each column's length (-1: nil).
type dataHead struct {
	Data       dataset.Data
	Lens       []int
	NilColumns bool
}

// dataColumns returns pointers to d's columns of values, in a fixed
// order: X, Y, Obs, Z, T, Obs2, then the covariates'.
func dataColumns(d *dataset.Data) []*[]float64 {
	cols := []*[]float64{&d.X, &d.Y, &d.Obs, &d.Z, &d.T, &d.Obs2}
	for k := range d.Columns {
		cols = append(cols, &d.Columns[k].Values)
	}
	return cols
}

// shareData returns rank 0's data d on every rank of c (d is ignored on
// the others): the names, notes and counts in one broadcast, then each
// column of values by comm.BcastFloats, so that a rank holds the columns
// and one chunk, never the text or a second copy. The values arrive
// bitwise. A collective.
func shareData(c comm.Comm, d *dataset.Data) (*dataset.Data, error) {
	if c.Size() == 1 {
		return d, nil
	}
	var msg []byte
	if c.Rank() == 0 {
		h := dataHead{Data: *d, NilColumns: d.Columns == nil}
		h.Data.Columns = slices.Clone(d.Columns)
		for _, p := range dataColumns(&h.Data) {
			n := -1
			if *p != nil {
				n = len(*p)
			}
			h.Lens, *p = append(h.Lens, n), nil
		}
		var buf bytes.Buffer
		if err := gob.NewEncoder(&buf).Encode(h); err != nil {
			return nil, fmt.Errorf("inputs: encoding the data: %v", err)
		}
		msg = buf.Bytes()
	}
	msg, err := c.Bcast(0, msg)
	if err != nil {
		return nil, err
	}
	if c.Rank() != 0 {
		var h dataHead
		if err := gob.NewDecoder(bytes.NewReader(msg)).Decode(&h); err != nil {
			return nil, fmt.Errorf("inputs: the data from rank 0: %v", err)
		}
		d = &h.Data
		if h.NilColumns {
			d.Columns = nil
		} else if d.Columns == nil {
			d.Columns = []dataset.Column{}
		}
		cols := dataColumns(d)
		if len(cols) != len(h.Lens) {
			return nil, fmt.Errorf("inputs: the data from rank 0: %d columns, %d lengths", len(cols), len(h.Lens))
		}
		for k, p := range cols {
			if h.Lens[k] >= 0 {
				*p = make([]float64, h.Lens[k])
			}
		}
	}
	for _, p := range dataColumns(d) {
		if err := comm.BcastFloats(c, 0, *p); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// clipData copies each column of d that has room to spare (append's
// growth) to one of its length: the parsed data hold no slack.
func clipData(d *dataset.Data) {
	for _, p := range dataColumns(d) {
		if cap(*p) > len(*p) {
			c := make([]float64, len(*p))
			copy(c, *p)
			*p = c
		}
	}
}
