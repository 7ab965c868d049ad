package neighbors

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/exageostat/exageostat/pkg/vecchia/internal/cloud"
)

// TestWriteRead writes the ordering and sets of 300 points and reads them
// back; the text of a small case is checked line by line.
func TestWriteRead(t *testing.T) {
	c := cloud.Points("uniform", 300, 2, 9)
	perm := make([]int, 300)
	for k := range perm {
		perm[k] = (k*7 + 3) % 300 // a permutation of the data rows
	}
	s, err := Conditioning(c.Permute(perm), 12, 2)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Write(&b, perm, s); err != nil {
		t.Fatal(err)
	}
	p2, s2, err := Read(&b, "sets.txt")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p2, perm) || s2.N != s.N || s2.M != s.M || !slices.Equal(s2.Idx, s.Idx) {
		t.Fatal("read back differs from what was written")
	}
	small := &Sets{N: 4, M: 2, Idx: []int32{-1, -1, 0, -1, 1, 0, 2, 0}}
	b.Reset()
	if err := Write(&b, []int{2, 0, 3, 1}, small); err != nil {
		t.Fatal(err)
	}
	want := "# vecchia conditioning sets: n=4 m=2\n" +
		"# position, data row, then the rows it is conditioned on (nearest first); 1-based\n" +
		"1 3\n2 1 3\n3 4 1 3\n4 2 4 3\n"
	if b.String() != want {
		t.Errorf("file:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestReadErrors checks that each kind of bad input is refused with the
// file and line it is on.
func TestReadErrors(t *testing.T) {
	h := "# vecchia conditioning sets: n=3 m=2\n"
	for _, tc := range []struct{ in, want string }{
		{"", "s:1: empty file"},
		{"1 2\n", "s:1: not a sets file"},
		{"# vecchia conditioning sets: n=3\n", "s:1: header: want n=N m=M"},
		{"# vecchia conditioning sets: n=-3 m=2\n", "s:1: header: want n=K"},
		{"# vecchia conditioning sets: n=3 m=70000\n", "s:1: header: want m=K"},
		{h + "1 2\n2 x\n", "s:3: field 2: \"x\" is not an integer"},
		{h + "1 2\n3 1 2\n", "s:3: position 3, want 2"},
		{h + "1 2\n2 4 2\n", "s:3: field 2: data row 4 is outside 1..3"},
		{h + "1 2\n2 2\n3 1\n", "s:3: data row 2 is at position 1 already"},
		{h + "1 2\n2 1 2\n3 3 1 2 1\n", "s:4: 3 neighbours, more than m = 2"},
		{h + "1 2\n2 1 3\n3 3 1\n", "s:3: neighbour 1 (data row 3) is not the row of an earlier position"},
		{h + "1 2\n2 1 2\n3 3 2 2\n", "s:4: neighbour 2 (data row 2) is repeated"},
		{h + "1 2\n2 1 1\n3 3\n", "s:3: neighbour 1 (data row 1) is not the row of an earlier position"},
		{h + "1 2\n# c\n2 1\n", "s:4: 2 locations, the header says n = 3"},
		{h + "1 2\n2 1\n3 3\n4 4\n", "s:5: more than n = 3 locations"},
		{h + "1\n", "s:2: want the position and the data row"},
	} {
		_, _, err := Read(strings.NewReader(tc.in), "s")
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q...", tc.in, err, tc.want)
		}
	}
}

// FuzzRead feeds arbitrary files to Read: it must not panic, an error must
// name the file and a line, and what it accepts must be an ordering with
// conditioning sets that Write writes back and Read reads identically.
func FuzzRead(f *testing.F) {
	f.Add("# vecchia conditioning sets: n=4 m=2\n1 3\n2 1 3\n3 4 1 3\n4 2 4 3\n")
	f.Add("# vecchia conditioning sets: n=3 m=2\n1 2\n2 1 2\n3 3 2 2\n")
	f.Add("# vecchia conditioning sets: n=0 m=0\n")
	f.Add("# vecchia conditioning sets: n=2 m=65536\n# c\n\n1 1\n2 2 1\n")
	f.Fuzz(func(t *testing.T, in string) {
		perm, s, err := Read(strings.NewReader(in), "f.txt")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.txt:") {
				t.Fatalf("error without the place: %v", err)
			}
			return
		}
		if err := s.Check(); err != nil {
			t.Fatal(err)
		}
		seen := make([]bool, len(perm))
		for _, r := range perm {
			if r < 0 || r >= len(perm) || seen[r] {
				t.Fatalf("perm %v is not a permutation", perm)
			}
			seen[r] = true
		}
		var b bytes.Buffer
		if err := Write(&b, perm, s); err != nil {
			t.Fatal(err)
		}
		p2, s2, err := Read(&b, "again")
		if err != nil || !slices.Equal(p2, perm) || !slices.Equal(s2.Idx, s.Idx) {
			t.Fatalf("round trip: %v", err)
		}
	})
}
