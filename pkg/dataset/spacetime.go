package dataset

import "fmt"

// GridTimes returns n synthetic space-time locations: the n/times sites of
// Grid(n/times, seed), each observed at the times 1, 2, ..., times, in
// time-major order (the sites at time 1, then at time 2, ...). With
// times <= 1 it is Grid(n, seed), T nil. It panics if times does not
// divide n.
func GridTimes(n, times int, seed uint64) *Data {
	if times <= 1 {
		return Grid(n, seed)
	}
	if n%times != 0 {
		panic(fmt.Sprintf("dataset: GridTimes with n = %d, times = %d", n, times))
	}
	s := Grid(n/times, seed)
	d := &Data{Coords: Planar, X: make([]float64, 0, n), Y: make([]float64, 0, n), T: make([]float64, 0, n)}
	for t := 1; t <= times; t++ {
		d.X = append(d.X, s.X...)
		d.Y = append(d.Y, s.Y...)
		for range s.X {
			d.T = append(d.T, float64(t))
		}
	}
	return d
}
