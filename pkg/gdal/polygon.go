package gdal

// Polygon is an area of a vector file: its rings (the first the outer
// boundary, the others holes; a multipolygon's parts as more rings), each
// a closed or open list of vertices (x, y).
type Polygon struct {
	Name  string // the feature's first string field, else its number from 1
	Rings [][][2]float64
}

// Contains reports whether (x, y) is inside p by the even-odd rule over
// all its rings (a point inside a hole is outside; a point exactly on an
// edge may fall either way).
func (p *Polygon) Contains(x, y float64) bool {
	in := false
	for _, r := range p.Rings {
		n := len(r)
		for i, j := 0, n-1; i < n; j, i = i, i+1 {
			xi, yi, xj, yj := r[i][0], r[i][1], r[j][0], r[j][1]
			if (yi > y) != (yj > y) && x < (xj-xi)*(y-yi)/(yj-yi)+xi {
				in = !in
			}
		}
	}
	return in
}
