package job

import (
	"encoding/csv"
	"io"
	"math"
	"strconv"

	"github.com/exageostat/exageostat/pkg/atomicfile"
	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/gdal"
	"github.com/exageostat/exageostat/pkg/likelihood"
	"github.com/exageostat/exageostat/pkg/predict"
)

// checkBlocks refuses --blocks with what it cannot go with, before any
// work: cv, draws, a raster --out, the bivariate and space-time models.
func checkBlocks(cfg config.Predict) error {
	switch {
	case cfg.Blocks == "":
		return nil
	case cfg.CV || cfg.Draws > 0:
		return badInput("predict: --blocks gives block means: not with --draws or cv")
	case rasterOut(cfg.Out) || gdal.IsPoints(cfg.Out):
		return badInput("predict: --blocks writes a table (block,cells,z_hat,variance,sd): --out %s must be a CSV", cfg.Out)
	case cfg.Scale == config.ScaleOriginal:
		return badInput("predict: --blocks with --scale original: a block's mean is kriged on the transformed scale (the mean of back-transformed values is not the back-transformed mean)")
	}
	if m := likelihood.Model(cfg.Kernel); m == likelihood.BivariateMatern || m == likelihood.SpaceTimeMatern {
		return badInput("predict: --blocks is for a univariate spatial kernel, not %s", cfg.Kernel)
	}
	return nil
}

// blocksOf groups the locations of nw by the polygons of cfg.Blocks that
// contain them (the first that does; the others are left out), the
// mean's covariates averaged over each block. A polygon with no location
// inside is refused by name. GDAL reads the polygons on rank 0, which
// sends them to every rank (readDecoded).
func blocksOf(in *Inputs, cfg config.Predict, nw *dataset.Data) (predict.Blocks, []gdal.Polygon, error) {
	var b predict.Blocks
	polys, err := readDecoded(in, "blocks", cfg.Blocks, gdal.ReadPolygons)
	if err != nil {
		if isInterrupted(err) {
			return b, nil, err
		}
		return b, nil, badInput("predict: --blocks %v", err)
	}
	_, x0, err := dataset.Design(nw, cfg.Mean)
	if err != nil {
		return b, nil, badInput("%s: %v", cfg.At, err)
	}
	of := make([]int, nw.Len())
	for i := range of {
		of[i] = -1
		for k := range polys {
			if polys[k].Contains(nw.X[i], nw.Y[i]) {
				of[i] = k
				break
			}
		}
	}
	b.Start = []int{0}
	b.X0 = make([][]float64, len(x0))
	for k, p := range polys {
		n := 0
		for i, o := range of {
			if o != k {
				continue
			}
			b.Points.X, b.Points.Y = append(b.Points.X, nw.X[i]), append(b.Points.Y, nw.Y[i])
			n++
		}
		if n == 0 {
			return b, nil, badInput("predict: --blocks %s: polygon %s contains none of the %d locations of %s", cfg.Blocks, p.Name, nw.Len(), cfg.At)
		}
		for c := range x0 {
			s := 0.0
			for i, o := range of {
				if o == k {
					s += x0[c][i]
				}
			}
			b.X0[c] = append(b.X0[c], s/float64(n))
		}
		b.Start = append(b.Start, len(b.Points.X))
	}
	return b, polys, nil
}

// writeBlocks kriges the blocks' means and writes block,cells,z_hat,
// variance,sd (prefixed with the transform: log_z_hat, ...) to cfg.Out.
func writeBlocks(ev *likelihood.Evaluator, cfg config.Predict, nw *dataset.Data, env Env) (*predict.Result, error) {
	b, polys, err := blocksOf(env.inputs(), cfg, nw)
	if err != nil {
		return nil, sameOnEveryRank(err, env.comm()) // rank 0's polygons on every rank
	}
	r, err := predict.KrigeBlocks(ev, cfg.Theta, b)
	if err != nil {
		return nil, err
	}
	if err := checkPrediction(cfg.Command(), r.Z, r.Var, cfg.Blocks); err != nil {
		return nil, err
	}
	if env.comm().Rank() != 0 {
		return r, nil
	}
	p := cfg.Transformation().Prefix()
	if p != "" {
		p += "_"
	}
	names, cells, sd := make([]string, len(polys)), make([]float64, len(polys)), make([]float64, len(polys))
	for k := range polys {
		names[k], cells[k], sd[k] = polys[k].Name, float64(b.Start[k+1]-b.Start[k]), math.Sqrt(r.Var[k])
	}
	hdr := []string{"cells", p + "z_hat", p + "variance", p + "sd"}
	cols := [][]float64{cells, r.Z, r.Var, sd}
	write := func(w io.Writer) error { return labelledTable(w, names, hdr, cols) }
	if cfg.Out == StdoutPath {
		err = write(env.stdout())
	} else {
		err = atomicfile.Write(cfg.Out, write)
	}
	if err != nil {
		return nil, badInput("predict: %v", err)
	}
	return r, nil
}

// labelledTable writes a CSV whose first column, block, holds names, then
// the columns cols under hdr (shortest decimals that read back exactly).
func labelledTable(w io.Writer, names, hdr []string, cols [][]float64) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(append([]string{"block"}, hdr...)); err != nil {
		return err
	}
	for i, n := range names {
		row := []string{n}
		for _, c := range cols {
			row = append(row, strconv.FormatFloat(c[i], 'g', -1, 64))
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
