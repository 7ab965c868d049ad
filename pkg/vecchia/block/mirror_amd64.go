//go:build amd64 && !purego

package block

// mirror is mirrorGo with the 4 x 4 tiles above the diagonal tiles
// transposed in AVX registers where the CPU has it (the same values: a
// copy), the diagonal tiles and the last, partial column tile in Go.
func mirror(n int, a []float64) {
	nt := n / 4
	if !useVec || nt < 2 {
		mirrorGo(n, a)
		return
	}
	_ = a[n*n-1]
	mirrorAVX(nt, n, &a[0])
	for j0 := 0; j0 < n; j0 += 4 {
		lo := j0 // the diagonal tile's rows; a partial tile's all
		if j0+4 > n {
			lo = 0
		}
		for j := j0; j < min(j0+4, n); j++ {
			for i := lo; i < j; i++ {
				a[i+j*n] = a[j+i*n]
			}
		}
	}
}

//go:noescape
func mirrorAVX(nt, n int, a *float64)
