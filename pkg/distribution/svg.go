package distribution

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"strconv"
	"strings"
)

// tableau10 holds the first ten node colours (Tableau 10) as hex RGB; further
// nodes get hues spaced by the golden angle.
const tableau10 = "4e79a7f28e2be1575976b7b259a14fedc948b07aa1ff9da79c755fbab0ac"

// rgb returns the colour of node i.
func rgb(i int) color.RGBA {
	if i < len(tableau10)/6 {
		v, _ := strconv.ParseUint(tableau10[6*i:6*i+6], 16, 32)
		return color.RGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 0xff}
	}
	// HSL with S = 0.55, L = 0.55 and hue i times the golden angle.
	h := math.Mod(float64(i)*137.50776405, 360) / 60
	const l, sat = 0.55, 0.55
	c := (1 - math.Abs(2*l-1)) * sat
	x := c * (1 - math.Abs(math.Mod(h, 2)-1))
	var r, g, b float64
	switch int(h) {
	case 0:
		r, g = c, x
	case 1:
		r, g = x, c
	case 2:
		g, b = c, x
	case 3:
		g, b = x, c
	case 4:
		r, b = x, c
	default:
		r, b = c, x
	}
	m := l - c/2
	u := func(v float64) uint8 { return uint8(math.Round(255 * (v + m))) }
	return color.RGBA{u(r), u(g), u(b), 0xff}
}

// Colour returns the fill colour of node i in the ownership maps, as #rrggbb.
func Colour(i int) string {
	c := rgb(i)
	return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B)
}

// rectsUpTo is the largest tile count per side drawn as SVG rects; larger
// maps are one embedded PNG image with a pixel per tile.
const rectsUpTo = 256

// SVG writes the ownership map of the lower tiles of an nt x nt tile matrix
// under d as an SVG picture: tile (m, n) is a square in row m, column n,
// filled with its owner's colour (Colour), under the title; the legend lists
// every node with its colour, its number of tiles and their percentage.
// Up to 256 tiles per side every lower tile is one <rect class="tile">;
// above, the map is one <image class="tiles"> holding a PNG with one pixel
// per tile (transparent above the diagonal), scaled up without smoothing,
// which keeps the file small. Legend swatches are <rect class="key">.
func SVG(w io.Writer, d Distribution, nt int, title string) error {
	if nt < 1 {
		return fmt.Errorf("distribution: SVG of %d tiles", nt)
	}
	counts := Counts(d, nt)
	total := Tiles(nt)
	s := math.Max(1, math.Min(24, math.Floor(640/float64(nt)*4)/4)) // tile side in px, a multiple of 1/4
	if nt > rectsUpTo {
		s = 768 / float64(nt) // the image is drawn 768 px wide
	}
	const top, left, line = 36.0, 12.0, 18.0
	side := s * float64(nt)
	lx := left + side + 24
	width := lx + 220
	height := math.Max(top+side+12, top+line*float64(d.Nodes())+12)

	b := bufio.NewWriter(w)
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" font-family="sans-serif">`+"\n",
		num(width), num(height), num(width), num(height))
	fmt.Fprintf(b, `<rect class="background" width="100%%" height="100%%" fill="#fff"/>`+"\n")
	fmt.Fprintf(b, `<text x="%s" y="22" font-size="15">%s</text>`+"\n", num(left), escape(title))
	if nt > rectsUpTo {
		var img bytes.Buffer
		if err := png.Encode(&img, ownerImage(d, nt)); err != nil {
			return err
		}
		fmt.Fprintf(b, `<image class="tiles" x="%s" y="%s" width="%s" height="%s" preserveAspectRatio="none" style="image-rendering:pixelated" href="data:image/png;base64,%s"/>`+"\n",
			num(left), num(top), num(side), num(side), base64.StdEncoding.EncodeToString(img.Bytes()))
	} else {
		stroke := ""
		if s >= 4 {
			stroke = fmt.Sprintf(` stroke="#fff" stroke-width="%s"`, num(math.Min(1, s/12)))
		}
		fmt.Fprintf(b, `<g class="tiles"%s>`+"\n", stroke)
		for m := 0; m < nt; m++ {
			for n := 0; n <= m; n++ {
				fmt.Fprintf(b, `<rect class="tile" x="%s" y="%s" width="%s" height="%s" fill="%s"/>`+"\n",
					num(left+s*float64(n)), num(top+s*float64(m)), num(s), num(s), Colour(d.Owner(m, n)))
			}
		}
		fmt.Fprintln(b, `</g>`)
	}
	fmt.Fprintf(b, `<g class="legend" font-size="12">`+"\n")
	for i, c := range counts {
		y := top + line*float64(i)
		fmt.Fprintf(b, `<rect class="key" x="%s" y="%s" width="12" height="12" fill="%s"/>`+"\n", num(lx), num(y), Colour(i))
		fmt.Fprintf(b, `<text x="%s" y="%s">node %d: %d tiles (%.1f%%)</text>`+"\n",
			num(lx+18), num(y+10), i, c, 100*float64(c)/float64(total))
	}
	fmt.Fprintln(b, `</g>`)
	fmt.Fprintln(b, `</svg>`)
	return b.Flush()
}

// ownerImage returns the ownership map with one pixel per tile: pixel (n, m)
// has the colour of tile (m, n)'s owner, transparent above the diagonal.
func ownerImage(d Distribution, nt int) image.Image {
	r := image.Rect(0, 0, nt, nt)
	if d.Nodes() < 256 {
		pal := color.Palette{color.RGBA{}}
		for i := 0; i < d.Nodes(); i++ {
			pal = append(pal, rgb(i))
		}
		img := image.NewPaletted(r, pal)
		for m := 0; m < nt; m++ {
			for n := 0; n <= m; n++ {
				img.SetColorIndex(n, m, uint8(d.Owner(m, n)+1))
			}
		}
		return img
	}
	img := image.NewRGBA(r)
	for m := 0; m < nt; m++ {
		for n := 0; n <= m; n++ {
			img.SetRGBA(n, m, rgb(d.Owner(m, n)))
		}
	}
	return img
}

// num formats a coordinate with at most two decimals.
func num(x float64) string {
	s := fmt.Sprintf("%.2f", x)
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

func escape(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}
