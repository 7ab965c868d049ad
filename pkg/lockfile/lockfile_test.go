package lockfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAcquire: a second Acquire of a held path fails with the holder's
// pid and what it does; after Release the path is free and no lock file
// is left; a lock file left by a holder that died (its descriptor closed
// without Release, as kill -9 leaves it) is taken over.
func TestAcquire(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "r.ckpt")
	l, err := Acquire(p, "exageostat fit --resume r.ckpt")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Acquire(p, "second")
	var he *HeldError
	want := fmt.Sprintf("in use by pid %d on host ", os.Getpid())
	if !errors.As(err, &he) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "exageostat fit --resume r.ckpt (lock "+p+".lock)") {
		t.Fatalf("second Acquire: %v, want a HeldError with %q", err, want)
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p + Suffix); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("lock file after Release: %v", err)
	}
	// A dead holder: the file stays, its lock went with the descriptor.
	f, err := os.OpenFile(p+Suffix, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := flock(f); err != nil {
		t.Fatal(err)
	}
	f.WriteString("pid 1 on host gone since then: killed\n")
	f.Close()
	l, err = Acquire(p, "third")
	if err != nil {
		t.Fatalf("taking over a dead holder's lock file: %v", err)
	}
	b, _ := os.ReadFile(p + Suffix)
	if !strings.Contains(string(b), "third") || strings.Contains(string(b), "killed") {
		t.Fatalf("lock file holds %q", b)
	}
	l.Release()
	if _, err := Acquire(filepath.Join(dir, "no", "x"), "w"); err == nil {
		t.Fatal("Acquire in a missing directory succeeded")
	}
}
