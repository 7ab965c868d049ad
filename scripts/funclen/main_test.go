package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFuncLen writes a package with a 5-line function, a 6-line method
// and a long function in a _test.go file, and checks what a limit of 5
// reports with and without allowlist entries.
func TestFuncLen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "p")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src := "package p\n\ntype T struct{}\n\nfunc short() {\n\t_ = 1\n\t_ = 2\n\t_ = 3\n}\n\nfunc (t *T) long() {\n\t_ = 1\n\t_ = 2\n\t_ = 3\n\t_ = 4\n}\n"
	test := "package p\n\nfunc longTest() {\n" + strings.Repeat("\t_ = 1\n", 20) + "}\n"
	for name, s := range map[string]string{"p.go": src, "p_test.go": test} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	long, err := longFuncs([]string{dir}, 5)
	if err != nil {
		t.Fatal(err)
	}
	key := filepath.ToSlash(dir) + ".T.long"
	if len(long) != 1 || long[key].lines != 6 || long[key].line != 11 {
		t.Fatalf("long functions %v, want only %s: 6 lines at line 11", long, key)
	}
	for _, c := range []struct {
		allow []string
		want  []string // substrings of the lines, in order
	}{
		{nil, []string{"T.long is 6 lines (at most 5)"}},
		{[]string{key}, nil},
		{[]string{key, "x.gone"}, []string{"x.gone is no longer over 5 lines"}},
	} {
		allow := map[string]bool{}
		for _, a := range c.allow {
			allow[a] = true
		}
		got := check(long, allow, 5, "allow.txt")
		if len(got) != len(c.want) {
			t.Fatalf("allow %v: %q, want %d lines", c.allow, got, len(c.want))
		}
		for i, w := range c.want {
			if !strings.Contains(got[i], w) {
				t.Errorf("allow %v: line %q, want %q in it", c.allow, got[i], w)
			}
		}
	}
}
