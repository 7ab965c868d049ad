package distribution

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"image/color"
	"image/png"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestBlockCyclicByHand(t *testing.T) {
	b := BlockCyclic{P: 2, Q: 3}
	cases := []struct{ m, n, want int }{
		{0, 0, 0}, {1, 0, 3}, {1, 1, 4}, {2, 1, 1}, {3, 2, 5}, {5, 4, 4}, {6, 0, 0}, {7, 5, 5},
		{0, 1, 3}, {2, 3, 5}, // upper tiles: the symmetric lower one
	}
	for _, c := range cases {
		if got := b.Owner(c.m, c.n); got != c.want {
			t.Errorf("Owner(%d, %d) = %d, want %d", c.m, c.n, got, c.want)
		}
	}
	if b.Nodes() != 6 || b.Name() != "bc 2x3" {
		t.Fatalf("Nodes %d, Name %q", b.Nodes(), b.Name())
	}
	// 2 x 2 grid, 3 x 3 tiles: (0,0) 0; (1,0) 2, (1,1) 3; (2,0) 0, (2,1) 1, (2,2) 0.
	if got := Counts(BlockCyclic{2, 2}, 3); !slices.Equal(got, []int{3, 1, 1, 1}) {
		t.Fatalf("Counts = %v, want [3 1 1 1]", got)
	}
}

func TestSquareGrid(t *testing.T) {
	cases := []struct{ nodes, p, q int }{
		{0, 0, 0}, {1, 1, 1}, {2, 1, 2}, {3, 1, 3}, {4, 2, 2}, {6, 2, 3}, {7, 1, 7},
		{8, 2, 4}, {9, 3, 3}, {12, 3, 4}, {16, 4, 4}, {18, 3, 6}, {64, 8, 8}, {96, 8, 12},
	}
	for _, c := range cases {
		if p, q := SquareGrid(c.nodes); p != c.p || q != c.q {
			t.Errorf("SquareGrid(%d) = %d x %d, want %d x %d", c.nodes, p, q, c.p, c.q)
		}
	}
}

func TestQuotas(t *testing.T) {
	cases := []struct {
		powers []float64
		nt     int
		want   []int
	}{
		{[]float64{1}, 4, []int{10}},
		{[]float64{1, 1}, 2, []int{2, 1}},       // 1.5, 1.5: tie to the lower index
		{[]float64{1, 1, 1}, 2, []int{1, 1, 1}}, // exact
		{[]float64{1, 1, 4, 4}, 4, []int{1, 1, 4, 4}},
		{[]float64{1, 1, 4, 4}, 5, []int{2, 1, 6, 6}},              // 1.5 1.5 6 6
		{[]float64{60, 60, 565, 590}, 50, []int{60, 60, 565, 590}}, // the paper's 50 x 50 example
		{[]float64{1, 3}, 1, []int{0, 1}},
	}
	for _, c := range cases {
		if got := Quotas(c.powers, c.nt); !slices.Equal(got, c.want) {
			t.Errorf("Quotas(%v, %d) = %v, want %v", c.powers, c.nt, got, c.want)
		}
	}
}

// powerSets are the node powers the 1D-1D properties are checked on.
var powerSets = [][]float64{
	{1},
	{1, 1},
	{1, 1, 1},
	{1, 1, 1, 1},
	{1, 1, 4, 4},
	{60, 60, 565, 590},
	{318, 319, 319, 319},
	{1, 100},
	{3, 1, 2},
	{1, 2, 3, 4, 5, 6, 7},
	{0.5, 1, 2, 8, 8, 8},
	{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
	{2.5, 0.1, 7, 7, 1e-3},
}

func TestOneDOneDWithinOneTile(t *testing.T) {
	worst, worstCorr := 0.0, 0
	for _, powers := range powerSets {
		for nt := 1; nt <= 120; nt++ {
			d, err := NewOneDOneD(nt, powers)
			if err != nil {
				t.Fatal(err)
			}
			counts := Counts(d, nt)
			shares := Shares(powers, nt)
			sum := 0
			for i, c := range counts {
				sum += c
				dev := math.Abs(float64(c) - shares[i])
				if dev >= 1 {
					t.Fatalf("powers %v, nt %d: node %d owns %d tiles, share %.3f", powers, nt, i, c, shares[i])
				}
				worst = math.Max(worst, dev)
			}
			if sum != Tiles(nt) {
				t.Fatalf("powers %v, nt %d: counts %v sum to %d, want %d", powers, nt, counts, sum, Tiles(nt))
			}
			if !slices.Equal(counts, d.Quotas()) {
				t.Fatalf("powers %v, nt %d: counts %v, quotas %v", powers, nt, counts, d.Quotas())
			}
			if d.Corrected() > len(powers) {
				t.Errorf("powers %v, nt %d: the correction moved %d tiles", powers, nt, d.Corrected())
			}
			worstCorr = max(worstCorr, d.Corrected())
		}
	}
	t.Logf("max |tiles - share| = %.3f tile; at most %d tiles moved by the final correction", worst, worstCorr)
}

func TestOneDOneDPaperExample(t *testing.T) {
	// Section 4.4: 50 x 50 tiles, factorisation loads [60, 60, 565, 590].
	d, err := NewOneDOneD(50, []float64{60, 60, 565, 590})
	if err != nil {
		t.Fatal(err)
	}
	if got := Counts(d, 50); !slices.Equal(got, []int{60, 60, 565, 590}) {
		t.Fatalf("counts %v", got)
	}
	if got := d.Slabs(); len(got) != 2 || !slices.Equal(got[0], []int{0, 1}) || !slices.Equal(got[1], []int{2, 3}) {
		t.Fatalf("slabs %v, want [[0 1] [2 3]]", got)
	}
}

func TestColumnPartition(t *testing.T) {
	cases := []struct {
		powers []float64
		want   [][]int
	}{
		{[]float64{1}, [][]int{{0}}},
		{[]float64{1, 1, 4, 4}, [][]int{{0, 1}, {2, 3}}}, // cost 4.0: 1 slab 5, {0,1,2}{3} 4.2, 3 slabs 4.2
		{[]float64{4, 1, 4, 1}, [][]int{{1, 3}, {0, 2}}}, // sorted by power first
		{[]float64{1, 1, 1, 1}, [][]int{{0, 1}, {2, 3}}}, // a 2 x 2 grid
		{[]float64{3, 1, 2}, [][]int{{1, 2}, {0}}},
		{[]float64{1, 1, 1, 1, 1, 1, 1, 1, 1}, [][]int{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}}},
	}
	for _, c := range cases {
		got := columnPartition(c.powers)
		if !slices.EqualFunc(got, c.want, slices.Equal[[]int]) {
			t.Errorf("columnPartition(%v) = %v, want %v", c.powers, got, c.want)
		}
	}
}

func TestOneDOneDIsOneDOneD(t *testing.T) {
	// Without correction, a tile column belongs to one slab and a tile row
	// within a slab to one node: the 1D-1D pattern.
	for _, powers := range powerSets {
		for _, nt := range []int{7, 12, 31, 50} {
			d, err := NewOneDOneD(nt, powers)
			if err != nil {
				t.Fatal(err)
			}
			if d.Corrected() > 0 {
				continue
			}
			slabOf := map[int]int{}
			for g, ns := range d.Slabs() {
				for _, i := range ns {
					slabOf[i] = g
				}
			}
			cols := d.ColumnSlabs()
			for m := 0; m < nt; m++ {
				rowOwner := map[int]int{} // slab -> owner of row m there
				for n := 0; n <= m; n++ {
					o := d.Owner(m, n)
					if slabOf[o] != cols[n] {
						t.Fatalf("powers %v nt %d: tile (%d, %d) of node %d outside its slab", powers, nt, m, n, o)
					}
					if prev, ok := rowOwner[cols[n]]; ok && prev != o {
						t.Fatalf("powers %v nt %d: row %d of slab %d shared by nodes %d and %d", powers, nt, m, cols[n], prev, o)
					}
					rowOwner[cols[n]] = o
				}
			}
		}
	}
	// Equal powers on two slabs of two: columns and rows go back and forth.
	d, _ := NewOneDOneD(8, []float64{1, 1, 1, 1})
	if got := d.ColumnSlabs(); !slices.Equal(got, []int{0, 1, 1, 0, 0, 1, 1, 0}) {
		t.Fatalf("column slabs %v", got)
	}
}

func TestOneDOneDErrors(t *testing.T) {
	cases := []struct {
		nt     int
		powers []float64
		want   string
	}{
		{0, []float64{1}, "nt = 0"},
		{4, nil, "no node powers"},
		{4, []float64{1, -1}, "power of node 1 must be a positive number, got -1"},
		{4, []float64{0, 1}, "power of node 0"},
		{4, []float64{1, math.NaN()}, "power of node 1"},
		{4, []float64{math.Inf(1)}, "power of node 0"},
	}
	for _, c := range cases {
		_, err := NewOneDOneD(c.nt, c.powers)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewOneDOneD(%d, %v): %v, want %q", c.nt, c.powers, err, c.want)
		}
	}
}

func TestSymmetricOwner(t *testing.T) {
	one, _ := NewOneDOneD(9, []float64{1, 2, 5})
	for _, d := range []Distribution{BlockCyclic{2, 3}, one, Tabulate(BlockCyclic{3, 1}, 9)} {
		for m := 0; m < 9; m++ {
			for n := 0; n <= m; n++ {
				if o := d.Owner(m, n); o != d.Owner(n, m) || o < 0 || o >= d.Nodes() {
					t.Fatalf("%s: Owner(%d, %d) = %d, Owner(%d, %d) = %d", d.Name(), m, n, o, n, m, d.Owner(n, m))
				}
			}
		}
	}
}

func TestExplicit(t *testing.T) {
	e, err := NewExplicit("mine", 3, [][]int{{0}, {1, 2}, {2, 0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if e.Owner(2, 1) != 0 || e.Owner(1, 2) != 0 || e.Nodes() != 3 || e.Name() != "mine" || e.NT() != 3 {
		t.Fatalf("explicit %+v", e)
	}
	if got := Counts(e, 3); !slices.Equal(got, []int{2, 2, 2}) {
		t.Fatalf("Counts = %v", got)
	}
	bad := []struct {
		nodes int
		table [][]int
		want  string
	}{
		{0, [][]int{{0}}, "at least one node"},
		{2, [][]int{{0}, {1}}, "row 1 of the owner table has 1 entries, want 2"},
		{2, [][]int{{0}, {1, 2}}, "tile (1, 1) belongs to node 2, outside [0, 2)"},
		{2, [][]int{{-1}}, "tile (0, 0) belongs to node -1"},
	}
	for _, c := range bad {
		if _, err := NewExplicit("x", c.nodes, c.table); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewExplicit(%d, %v): %v, want %q", c.nodes, c.table, err, c.want)
		}
	}
	// Tabulate copies a distribution; the table is not shared.
	tab := Tabulate(BlockCyclic{2, 2}, 6)
	if Moves(tab, BlockCyclic{2, 2}, 6) != 0 || tab.Name() != "bc 2x2" {
		t.Fatal("Tabulate differs from its source")
	}
	tt := tab.Table()
	tt[0][0] = 3
	if tab.Owner(0, 0) != 0 {
		t.Fatal("Table shares storage")
	}
}

func TestMovesByHand(t *testing.T) {
	// 1 x 2 grid: owner n mod 2; 2 x 1 grid: owner m mod 2. On 3 x 3 tiles they
	// differ at (1, 0) and (2, 1).
	a, b := BlockCyclic{1, 2}, BlockCyclic{2, 1}
	if got := Moves(a, b, 3); got != 2 {
		t.Fatalf("Moves = %d, want 2", got)
	}
	if got := Moves(a, a, 3); got != 0 {
		t.Fatalf("Moves(a, a) = %d", got)
	}
	// A generation spread evenly over 4 nodes against the paper's 1D-1D
	// factorisation: at least the 517 tiles of section 4.4 must move.
	f, _ := NewOneDOneD(50, []float64{60, 60, 565, 590})
	if got := Moves(BlockCyclic{2, 2}, f, 50); got < 517 || got > Tiles(50) {
		t.Fatalf("Moves(bc, 1d1d) = %d", got)
	}
}

func TestCountsSum(t *testing.T) {
	one, _ := NewOneDOneD(13, []float64{1, 1, 4, 4})
	for _, d := range []Distribution{BlockCyclic{1, 1}, BlockCyclic{2, 2}, BlockCyclic{3, 5}, one} {
		c := Counts(d, 13)
		sum := 0
		for _, v := range c {
			sum += v
		}
		if len(c) != d.Nodes() || sum != Tiles(13) {
			t.Errorf("%s: counts %v (sum %d, want %d)", d.Name(), c, sum, Tiles(13))
		}
	}
}

func TestNew(t *testing.T) {
	cases := []struct {
		kind        string
		nodes, p, q int
		powers      []float64
		name        string
		err         string
	}{
		{"bc", 4, 0, 0, nil, "bc 2x2", ""},
		{"bc", 6, 0, 0, nil, "bc 3x2", ""},
		{"bc", 2, 0, 0, nil, "bc 2x1", ""},
		{"bc", 6, 2, 0, nil, "bc 2x3", ""},
		{"bc", 6, 0, 6, nil, "bc 1x6", ""},
		{"bc", 6, 4, 0, nil, "", "a 4 x 0 grid does not hold 6 nodes"},
		{"bc", 6, 2, 2, nil, "", "a 2 x 2 grid does not hold 6 nodes"},
		{"1d1d", 3, 0, 0, nil, "1d1d", ""},
		{"1d1d", 3, 0, 0, []float64{1, 2, 3}, "1d1d", ""},
		{"1d1d", 3, 0, 0, []float64{1, 2}, "", "need 3 powers, got 2"},
		{"cyclic", 3, 0, 0, nil, "", `unknown distribution "cyclic"`},
		{"bc", 0, 0, 0, nil, "", "at least one node"},
		{"hybrid", 4, 0, 0, nil, "hybrid band 0 (4x1 dense, 2x2 low-rank)", ""},
		{"hybrid", 6, 0, 3, nil, "hybrid band 0 (6x1 dense, 2x3 low-rank)", ""},
		{"hybrid", 6, 4, 0, nil, "", "a 4 x 0 grid does not hold 6 nodes"},
		{"hybrid", 0, 0, 0, nil, "", "at least one node"},
	}
	for _, c := range cases {
		d, err := New(c.kind, c.nodes, c.p, c.q, c.powers, 10)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("New(%s, %d, %d, %d, %v): %v, want %q", c.kind, c.nodes, c.p, c.q, c.powers, err, c.err)
			}
			continue
		}
		if err != nil || d.Name() != c.name || d.Nodes() != c.nodes {
			t.Errorf("New(%s, %d, %d, %d, %v) = %v, %v; want %s", c.kind, c.nodes, c.p, c.q, c.powers, d, err, c.name)
		}
	}
}

// svgRects parses an SVG, failing on malformed XML, and returns the rects of
// class cls and the text of all <text> elements.
func svgRects(t *testing.T, src []byte, cls string) (rects []map[string]string, texts []string) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(src))
	inText := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("malformed SVG: %v", err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			inText = el.Name.Local == "text"
			if el.Name.Local != "rect" {
				continue
			}
			a := map[string]string{}
			for _, at := range el.Attr {
				a[at.Name.Local] = at.Value
			}
			if a["class"] == cls {
				rects = append(rects, a)
			}
		case xml.CharData:
			if inText {
				texts = append(texts, string(el))
			}
		case xml.EndElement:
			inText = false
		}
	}
	return rects, texts
}

func TestSVG(t *testing.T) {
	d, _ := NewOneDOneD(7, []float64{1, 1, 4, 4})
	var buf bytes.Buffer
	if err := SVG(&buf, d, 7, `1d1d <powers 1,1,4,4> & "more"`); err != nil {
		t.Fatal(err)
	}
	tiles, texts := svgRects(t, buf.Bytes(), "tile")
	if len(tiles) != Tiles(7) {
		t.Fatalf("%d tile rects, want %d", len(tiles), Tiles(7))
	}
	keys, _ := svgRects(t, buf.Bytes(), "key")
	if len(keys) != 4 {
		t.Fatalf("%d legend swatches, want 4", len(keys))
	}
	// Every tile has its owner's colour: count colours.
	byColour := map[string]int{}
	for _, r := range tiles {
		byColour[r["fill"]]++
	}
	all := strings.Join(texts, "\n")
	for i, c := range Counts(d, 7) {
		if byColour[Colour(i)] != c {
			t.Errorf("node %d: %d tiles of its colour, owns %d", i, byColour[Colour(i)], c)
		}
		if want := "node " + strconv.Itoa(i) + ": " + strconv.Itoa(c) + " tiles"; !strings.Contains(all, want) {
			t.Errorf("legend lacks %q:\n%s", want, all)
		}
	}
	if !strings.Contains(all, `1d1d <powers 1,1,4,4> & "more"`) {
		t.Errorf("title lost: %q", all)
	}
	// Above 256 tiles per side the map is one PNG, a pixel per tile.
	buf.Reset()
	big, _ := NewOneDOneD(300, []float64{1, 2, 3})
	if err := SVG(&buf, big, 300, "big"); err != nil {
		t.Fatal(err)
	}
	if rects, _ := svgRects(t, buf.Bytes(), "tile"); len(rects) != 0 {
		t.Fatalf("%d tile rects in a 300 x 300 map", len(rects))
	}
	src := buf.String()
	const pre = `href="data:image/png;base64,`
	i := strings.Index(src, pre)
	if i < 0 {
		t.Fatal("no embedded PNG")
	}
	data := src[i+len(pre):]
	data = data[:strings.IndexByte(data, '"')]
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil || img.Bounds().Dx() != 300 || img.Bounds().Dy() != 300 {
		t.Fatalf("PNG: %v, %v", err, img.Bounds())
	}
	for _, p := range [][2]int{{0, 0}, {299, 0}, {150, 77}, {299, 299}, {200, 13}} {
		m, n := p[0], p[1]
		if got, want := img.At(n, m), color.Color(rgb(big.Owner(m, n))); !sameColour(got, want) {
			t.Errorf("pixel of tile (%d, %d) is %v, want %v", m, n, got, want)
		}
	}
	if _, _, _, a := img.At(10, 5).RGBA(); a != 0 {
		t.Error("upper tile (5, 10) is not transparent")
	}
	if err := SVG(io.Discard, big, 0, ""); err == nil {
		t.Fatal("SVG of 0 tiles: no error")
	}
}

func TestOneDOneDByHand(t *testing.T) {
	// 5 x 5 tiles, powers 1, 1, 4, 4: T = 15, shares 1.5 1.5 6 6, quotas
	// 2 1 6 6; slabs A = {0, 1} (target 3) and B = {2, 3} (target 12).
	// Columns left to right, weights 5 4 3 2 1, to the slab minimising
	// (load + w) / target: B (5/12 < 5/3), B (9/12 < 4/3), A (3/3 = 12/12, tie
	// to A), B (11/12 < 5/3), B (12/12 < 4/3).
	// Slab A holds column 2: rows 4, 3, 2 weigh 1, rows 1, 0 weigh 0; bottom
	// up they go to 0 (1/2 < 1/1), 0 (2/2 = 1/1, tie), 1 (1/1 < 3/2), 0, 0.
	// Slab B holds columns 0, 1, 3, 4: rows 4..0 weigh 4 3 2 2 1 and go to
	// 2 (tie), 3, 3 (5/6 < 6/6), 2 (6/6 < 7/6), 3 (6/6 < 7/6).
	want := [][]int{
		{3},
		{2, 2},
		{3, 3, 1},
		{3, 3, 0, 3},
		{2, 2, 0, 2, 2},
	}
	d, err := NewOneDOneD(5, []float64{1, 1, 4, 4})
	if err != nil {
		t.Fatal(err)
	}
	if got := Tabulate(d, 5).Table(); !slices.EqualFunc(got, want, slices.Equal[[]int]) {
		t.Fatalf("owners %v, want %v", got, want)
	}
	if !slices.Equal(d.ColumnSlabs(), []int{1, 1, 0, 1, 1}) || d.Corrected() != 0 {
		t.Fatalf("column slabs %v, corrected %d", d.ColumnSlabs(), d.Corrected())
	}
	// Against the 2 x 2 block-cyclic generation, 11 of the 15 tiles move.
	if got := Moves(BlockCyclic{2, 2}, d, 5); got != 11 {
		t.Fatalf("Moves = %d, want 11", got)
	}
}

func sameColour(a, b color.Color) bool {
	r1, g1, b1, a1 := a.RGBA()
	r2, g2, b2, a2 := b.RGBA()
	return r1 == r2 && g1 == g2 && b1 == b2 && a1 == a2
}

func TestColour(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 64; i++ {
		c := Colour(i)
		if len(c) != 7 || c[0] != '#' || seen[c] {
			t.Fatalf("Colour(%d) = %q (seen: %v)", i, c, seen[c])
		}
		seen[c] = true
	}
	if Colour(0) != "#4e79a7" {
		t.Fatalf("Colour(0) = %s", Colour(0))
	}
}
