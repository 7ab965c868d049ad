package plot

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// DPI is the default resolution of the PNG files, in dots per inch (each
// drawing function's options may set another): a figure of w x h inches
// is a PNG of round(w*dpi) x round(h*dpi) pixels.
const DPI = 300

// dpiOr returns dpi if it is positive and finite, else DPI.
func dpiOr(dpi float64) float64 {
	if dpi > 0 && !math.IsInf(dpi, 0) {
		return dpi
	}
	return DPI
}

// Figure sizes. The PNG files are 1800 x 1350 pixels (semivariogram),
// 1950 x 1500 pixels (Map and Grid) and 1500 x 1500 (NormalQQ) at the
// default DPI.
const (
	semivarWidth  = 6 * vg.Inch
	semivarHeight = 4.5 * vg.Inch
	mapWidth      = 6.5 * vg.Inch
	mapHeight     = 5 * vg.Inch
	qqSize        = 5 * vg.Inch
)

// sansFont is the typeface of every text of the figures.
func sansFont(size vg.Length) font.Font {
	return font.Font{Typeface: "Liberation", Variant: "Sans", Size: size}
}

// setSans switches a text style to the sans-serif face, keeping its size.
func setSans(s *text.Style) { s.Font = sansFont(s.Font.Size) }

// newPlot returns a gonum plot with the package's look: sans-serif text,
// a slightly larger title and the given title and axis labels.
func newPlot(title, xlabel, ylabel string) *gplot.Plot {
	p := gplot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = sansFont(13)
	p.Title.Padding = vg.Points(8)
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	for _, a := range []*gplot.Axis{&p.X, &p.Y} {
		setSans(&a.Label.TextStyle)
		setSans(&a.Tick.Label)
		a.Label.Padding = vg.Points(3)
		a.Tick.Length = vg.Points(5)
		a.Tick.Marker = niceTicks{}
	}
	setSans(&p.Legend.TextStyle)
	return p
}

// trimExt removes a trailing ".svg" or ".png" (any case) from base.
func trimExt(base string) string {
	switch strings.ToLower(filepath.Ext(base)) {
	case ".svg", ".png":
		return strings.TrimSuffix(base, filepath.Ext(base))
	}
	return base
}

// save is saveDPI at the default DPI.
func save(base string, w, h vg.Length, fig func(dc draw.Canvas) error) error {
	return saveDPI(base, w, h, DPI, fig)
}

// saveDPI renders a figure of w x h with fig into an SVG and a PNG canvas
// of dpi dots per inch (dpiOr) and writes them to base.svg and base.png
// (see writeAtomic). A panic of fig (gonum's plotters panic on some
// invalid input) is returned as an error.
func saveDPI(base string, w, h vg.Length, dpi float64, fig func(dc draw.Canvas) error) error {
	base = trimExt(base)
	if base == "" || strings.HasSuffix(base, string(filepath.Separator)) {
		return fmt.Errorf("plot: empty file name in %q", base)
	}
	svgC := vgsvg.New(w, h)
	if err := render(draw.New(svgC), fig); err != nil {
		return err
	}
	pngC := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(int(math.Round(dpiOr(dpi)))))
	if err := render(draw.New(pngC), fig); err != nil {
		return err
	}
	var svgBuf, pngBuf bytes.Buffer
	if _, err := svgC.WriteTo(&svgBuf); err != nil {
		return fmt.Errorf("plot: encoding SVG: %w", err)
	}
	if _, err := (vgimg.PngCanvas{Canvas: pngC}).WriteTo(&pngBuf); err != nil {
		return fmt.Errorf("plot: encoding PNG: %w", err)
	}
	return writeAtomic([]outFile{
		{base + ".svg", fixSVG(svgBuf.Bytes())},
		{base + ".png", pngBuf.Bytes()},
	})
}

// fixSVG corrects three details of gonum's SVG output. Its embedded
// images, PNG data, are declared as JPEG (which some renderers, librsvg for
// one, refuse to draw), and keep their own aspect ratio inside the
// rectangle they should fill (SVG's default preserveAspectRatio), which
// would squeeze the colour bar and the heat map. Its text names only the
// font Liberation Sans, whose metrics the layout assumes: Arial and
// Helvetica, which have the same metrics, are added as fallbacks.
func fixSVG(b []byte) []byte {
	b = bytes.ReplaceAll(b, []byte(`<image `), []byte(`<image preserveAspectRatio="none" `))
	b = bytes.ReplaceAll(b, []byte(`xlink:href="data:image/jpg;base64,`), []byte(`xlink:href="data:image/png;base64,`))
	return bytes.ReplaceAll(b, []byte(`style="font-family:Liberation Sans;`),
		[]byte(`style="font-family:'Liberation Sans',Arial,Helvetica,sans-serif;`))
}

// render fills the canvas white and calls fig, turning a panic into an
// error.
func render(dc draw.Canvas, fig func(dc draw.Canvas) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("plot: drawing failed: %v", r)
		}
	}()
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	return fig(dc)
}

// outFile is a file to write: its final name and its content.
type outFile struct {
	name string
	data []byte
}

// writeAtomic writes every file to a temporary file in its directory
// (written, given mode 0644, synced and closed) and, only when all are
// complete, renames them to their names. On error it removes the
// temporary files not yet renamed: the renames are the only steps that
// touch the final names.
func writeAtomic(files []outFile) (err error) {
	tmps := make([]string, 0, len(files))
	defer func() {
		if err != nil {
			for _, t := range tmps {
				os.Remove(t)
			}
		}
	}()
	for _, f := range files {
		t, err := writeTemp(f)
		if t != "" {
			tmps = append(tmps, t)
		}
		if err != nil {
			return err
		}
	}
	for i, f := range files {
		if err := os.Rename(tmps[i], f.name); err != nil {
			tmps = tmps[i:] // the earlier ones are no longer temporary
			return fmt.Errorf("plot: %w", err)
		}
	}
	return nil
}

// writeTemp writes f.data to a new temporary file next to f.name and
// returns its name (also on error, if the file was created).
func writeTemp(f outFile) (string, error) {
	dir, name := filepath.Split(f.name)
	if dir == "" {
		dir = "."
	}
	t, err := os.CreateTemp(dir, "."+name+".tmp-*")
	if err != nil {
		return "", fmt.Errorf("plot: %w", err)
	}
	_, err = t.Write(f.data)
	if err == nil {
		err = t.Chmod(0o644)
	}
	if err == nil {
		err = t.Sync()
	}
	if cerr := t.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return t.Name(), fmt.Errorf("plot: writing %s: %w", f.name, err)
	}
	return t.Name(), nil
}

// finite reports whether x is neither NaN nor infinite.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
