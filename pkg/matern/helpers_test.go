package matern

import (
	"bufio"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// readTable reads a CSV file of float64 columns from testdata, skipping
// lines that start with '#'.
func readTable(t *testing.T, name string, cols int) [][]float64 {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows [][]float64
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		s := strings.TrimSpace(sc.Text())
		if s == "" || s[0] == '#' {
			continue
		}
		fields := strings.Split(s, ",")
		if len(fields) != cols {
			t.Fatalf("%s:%d: %d fields, want %d", name, line, len(fields), cols)
		}
		row := make([]float64, cols)
		for i, fs := range fields {
			row[i], err = strconv.ParseFloat(fs, 64)
			if err != nil {
				t.Fatalf("%s:%d: %v", name, line, err)
			}
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatalf("%s: no rows", name)
	}
	return rows
}

// relErr returns |got-want|/|want|, or |got| when want is 0.
func relErr(got, want float64) float64 {
	if got == want {
		return 0
	}
	if want == 0 {
		return math.Abs(got)
	}
	return math.Abs(got-want) / math.Abs(want)
}
