package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.txt")
	if err := Write(p, func(w io.Writer) error { _, err := io.WriteString(w, "first\n"); return err }); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(p, func(w io.Writer) error { io.WriteString(w, "half"); return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("error %v, want boom", err)
	}
	b, _ := os.ReadFile(p)
	if string(b) != "first\n" {
		t.Fatalf("a failed write changed the file: %q", b)
	}
	if err := Write(p, func(w io.Writer) error { _, err := io.WriteString(w, "second\n"); return err }); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(p)
	b, _ = os.ReadFile(p)
	if string(b) != "second\n" || fi.Mode().Perm() != 0o600 {
		t.Fatalf("content %q mode %v", b, fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("temporary files left: %v", entries)
	}
	if err := Write(filepath.Join(dir, "missing", "x"), func(io.Writer) error { return nil }); err == nil {
		t.Fatal("no error for a missing directory")
	}
}

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

func TestWriteThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(sub, "target.txt")
	if err := os.WriteFile(target, []byte("old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink("sub/target.txt", link); err != nil {
		t.Fatal(err)
	}
	link2 := filepath.Join(dir, "link2.txt") // a link to the link
	if err := os.Symlink(link, link2); err != nil {
		t.Fatal(err)
	}
	if err := Write(link2, writeString("new\n")); err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{link, link2} {
		fi, err := os.Lstat(l)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Fatalf("%s is no longer a link: %v %v", l, fi.Mode(), err)
		}
	}
	b, _ := os.ReadFile(target)
	fi, _ := os.Stat(target)
	if string(b) != "new\n" || fi.Mode().Perm() != 0o600 {
		t.Fatalf("target %q mode %v", b, fi.Mode().Perm())
	}
	if entries, _ := os.ReadDir(sub); len(entries) != 1 {
		t.Fatalf("temporary files left: %v", entries)
	}
	// A dangling link creates its target.
	dang := filepath.Join(dir, "dangling")
	if err := os.Symlink(filepath.Join(sub, "new.txt"), dang); err != nil {
		t.Fatal(err)
	}
	if err := Write(dang, writeString("x")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(sub, "new.txt")); string(b) != "x" {
		t.Fatalf("dangling link target %q", b)
	}
	// A loop is an error, not a hang.
	loop := filepath.Join(dir, "loop")
	if err := os.Symlink("loop", loop); err != nil {
		t.Fatal(err)
	}
	if err := Write(loop, writeString("x")); err == nil {
		t.Fatal("no error for a link loop")
	}
	if err := CheckWritable(loop); err == nil {
		t.Fatal("CheckWritable: no error for a link loop")
	}
}

func TestCheckWritable(t *testing.T) {
	dir := t.TempDir()
	if err := CheckWritable(filepath.Join(dir, "new.json")); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("CheckWritable left %v", entries)
	}
	f := filepath.Join(dir, "file")
	os.WriteFile(f, nil, 0o644)
	for _, c := range []struct{ path, want string }{
		{dir, "is a directory"},
		{filepath.Join(dir, "missing", "x"), "does not exist"},
		{filepath.Join(f, "x"), "is not a directory"},
		{"/proc/exageostat-out.json", "cannot create a file in /proc"},
		{"", "empty path"},
	} {
		err := CheckWritable(c.path)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("CheckWritable(%q) = %v, want %q", c.path, err, c.want)
		}
	}
}

func TestSame(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.csv")
	os.WriteFile(a, []byte("x"), 0o644)
	l := filepath.Join(dir, "l.csv")
	os.Symlink("a.csv", l)
	h := filepath.Join(dir, "h.csv")
	os.Link(a, h)
	wd, _ := os.Getwd()
	rel, _ := filepath.Rel(wd, a)
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{a, a, true},
		{a, filepath.Join(dir, ".", "x", "..", "a.csv"), true},
		{a, rel, true},
		{a, l, true},
		{l, a, true},
		{a, h, true},
		{a, filepath.Join(dir, "b.csv"), false},
		{filepath.Join(dir, "new"), filepath.Join(dir, "new"), true},
		{"", "", false},
	} {
		if got := Same(c.a, c.b); got != c.same {
			t.Errorf("Same(%q, %q) = %v", c.a, c.b, got)
		}
	}
}

// TestRemoveTemps: the temporary files a killed Write leaves beside a
// path (".NAME.tmp*") are removed, those of other names are not, and a
// name with pattern characters is taken literally.
func TestRemoveTemps(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{".r.ckpt.tmp123", ".r.ckpt.tmp9", ".r.json.tmp1", "r.ckpt", ".a[1].ckpt.tmp5", ".a1.ckpt.tmp5"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := RemoveTemps(filepath.Join(dir, "r.ckpt")); err != nil || n != 2 {
		t.Fatalf("removed %d (%v), want 2", n, err)
	}
	if n, err := RemoveTemps(filepath.Join(dir, "a[1].ckpt")); err != nil || n != 1 {
		t.Fatalf("pattern characters: removed %d (%v), want 1", n, err)
	}
	left := dirNames(dir)
	if strings.Join(left, " ") != ".a1.ckpt.tmp5 .r.json.tmp1 r.ckpt" {
		t.Fatalf("left %v, want .a1.ckpt.tmp5, .r.json.tmp1 and r.ckpt", left)
	}
}

// TestWriteAll: the files are written all or none. A failing fill of the
// second file leaves the first file's old content and no temporary file;
// a second target that is a directory fails before any rename.
func TestWriteAll(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.svg"), filepath.Join(dir, "b.svg")
	if err := WriteAll([]string{a, b}, []func(io.Writer) error{writeString("a1"), writeString("b1")}); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	failing := func(w io.Writer) error { io.WriteString(w, "half"); return boom }
	if err := WriteAll([]string{a, b}, []func(io.Writer) error{writeString("a2"), failing}); !errors.Is(err, boom) || !strings.Contains(err.Error(), "write "+b+": ") {
		t.Fatalf("error %v, want boom naming %s", err, b)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteAll([]string{a, sub}, []func(io.Writer) error{writeString("a3"), writeString("x")}); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("error %v, want not a regular file", err)
	}
	for p, want := range map[string]string{a: "a1", b: "b1"} {
		if got, _ := os.ReadFile(p); string(got) != want {
			t.Errorf("%s = %q, want %q (a failed WriteAll changed it)", p, got, want)
		}
	}
	names := dirNames(dir)
	if strings.Join(names, " ") != "a.svg b.svg sub" {
		t.Fatalf("files %v, want a.svg b.svg sub (no temporary file)", names)
	}
}

// dirNames returns the names in dir, sorted.
func dirNames(dir string) []string {
	var names []string
	es, _ := os.ReadDir(dir)
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}
