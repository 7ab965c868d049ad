package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/exageostat/exageostat/pkg/job"
)

// newPlotCmd is `exageostat plot`: maps of a predict, cv or simulate
// output.
func newPlotCmd() *cobra.Command {
	var cfg job.PlotConfig
	var layers string
	var quiet bool
	c := &cobra.Command{
		Use:   "plot FILE",
		Short: "Draw the maps of a predict, cv or simulate output (CSV or raster)",
		Long: `Draws each layer of FILE (a predict, cv or simulate output) into --out DIR
as LAYER.svg and LAYER.png, in the style of fit --plot: a CSV's columns
after x,y (or lon,lat, easting,northing), a variance column with its
square root (sd) beside it, or a raster's bands (GeoTIFF, NetCDF: a binary
built with GDAL, the gdal build tag). Points that are the centres of a
regular grid's cells (predict on a grid, a raster) are drawn as a heat map,
other points as coloured dots. Residuals (residual, standardized) take a
diverging scale symmetric about 0.

Each layer's colour bar spans that layer's values (after the mask), not
those of the other layers; --shared-scale gives the layers of the field's
values (z, z_hat, z_loo, draw_k, with the same transform prefix) one range,
as fit --plot draws its prediction and draws.

--mask polygons.gpkg (GeoPackage, shapefile, GeoJSON: GDAL) draws only
the cells and points inside its polygons (in the map's coordinates);
without it, --data obs.csv draws the observations as dots over a grid and
only the cells inside their convex hull.

Longitude/latitude maps (lon,lat columns, a geographic raster) are drawn
with one degree of latitude 1/cos(phi) times as long as one of longitude,
phi the map's middle latitude, so that distances east-west and north-south
are to one scale there; x,y maps with equal units on both axes.`,
		Example: `  exageostat plot pred.csv --out maps
  exageostat plot zinc.tif --out maps --layer z_hat,sd --mask river.gpkg --title "Zinc (mg/kg)"
  exageostat plot loo.csv --out maps --layer standardized --no-title
  exageostat plot draws.csv --out maps --data obs.csv --shared-scale`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) != 1 {
				return badInput("plot: give one file to draw (got %d arguments; see 'exageostat plot --help')", len(args))
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			cfg.In = args[0]
			if layers != "" {
				cfg.Layers = strings.Split(layers, ",")
			}
			r, err := job.Plot(cfg, job.Env{Log: os.Stderr, Quiet: quiet})
			if err != nil {
				return err
			}
			for i, p := range r.Pictures {
				fmt.Fprintf(os.Stderr, "  picture: %s (%s)\n", p, r.Layers[i])
			}
			fmt.Fprintf(os.Stderr, "plot: drew %d layers of %s -> %s\n", len(r.Pictures), cfg.In, cfg.Out)
			return nil
		},
	}
	f := c.Flags()
	f.BoolVarP(&quiet, "quiet", "q", false, "keep stderr to warnings and the summary")
	f.StringVar(&cfg.Out, "out", "", "the pictures' directory: LAYER.svg and LAYER.png per layer")
	f.StringVar(&layers, "layer", "", "the layers drawn, comma-separated (default: all): z_hat,sd, a band's description")
	f.StringVar(&cfg.Mask, "mask", "", "polygons (GeoPackage, shapefile, GeoJSON: GDAL): draw only what lies inside them")
	f.StringVar(&cfg.Data, "data", "", "observations (CSV): drawn as dots over a grid; their convex hull masks it without --mask")
	f.StringVar(&cfg.Title, "title", "", "the maps' title (\": LAYER\" added with several layers; default: the layer and the file)")
	f.BoolVar(&cfg.NoTitle, "no-title", false, "draw no title")
	f.BoolVar(&cfg.SharedScale, "shared-scale", false, "one colour range for the layers of the field's values (z, z_hat, draw_k); default: each layer its own")
	f.Float64Var(&cfg.DPI, "dpi", 0, "resolution of the PNG pictures in dots per inch (0: 300)")
	f.StringVar(&cfg.XYUnits, "xy-units", "", "the units of planar x and y on the axes (e.g. m)")
	return c
}
