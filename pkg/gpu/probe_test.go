package gpu

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fakeDriver builds a shared library whose cuInit returns initCode and whose
// cuDeviceGetCount reports count devices: the driver as the probe sees it.
func fakeDriver(t *testing.T, initCode, count int) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "cuda.c")
	code := "int cuInit(unsigned int f) { return " + strconv.Itoa(initCode) + "; }\n" +
		"int cuDeviceGetCount(int *n) { *n = " + strconv.Itoa(count) + "; return 0; }\n"
	if err := os.WriteFile(src, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	lib := filepath.Join(dir, "libcuda.so.1")
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "gcc"
	}
	if out, err := exec.Command(cc, "-shared", "-fPIC", "-o", lib, src).CombinedOutput(); err != nil {
		t.Fatalf("building the fake driver: %v\n%s", err, out)
	}
	return lib
}

func TestDevices(t *testing.T) {
	libc := "libc.so.6" // loads, but is no driver
	for _, c := range []struct {
		name string
		lib  string
		n    int
		is   error
		want string
	}{
		{"missing library", filepath.Join(t.TempDir(), "libcuda.so.1"), 0, ErrNoDriver, "cannot be loaded"},
		{"not a driver", libc, 0, ErrNoDriver, "has no cuInit"},
		{"no device", fakeDriver(t, 100, 0), 0, ErrNoDevice, "cuInit failed with CUDA error 100 (CUDA_ERROR_NO_DEVICE)"},
		{"zero devices", fakeDriver(t, 0, 0), 0, ErrNoDevice, "counts 0 devices"},
		{"three devices", fakeDriver(t, 0, 3), 3, nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(driverLibEnv, c.lib)
			n, err := Devices()
			if n != c.n || !errors.Is(err, c.is) || (c.is != nil && !strings.Contains(err.Error(), c.want)) {
				t.Errorf("Devices() = %d, %v; want %d, %v (%q)", n, err, c.n, c.is, c.want)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	self := filepath.Join(dir, "exageostat")
	t.Setenv(driverLibEnv, fakeDriver(t, 0, 1))
	if p, err := Check(0, self); p != "" || err != nil {
		t.Errorf("no GPU asked for: %q, %v", p, err)
	}
	if _, err := Check(1, self); !errors.Is(err, ErrNoCUDABinary) || !strings.Contains(err.Error(), "exageostat-cuda") {
		t.Errorf("without the CUDA build: %v", err)
	}
	if _, err := Check(2, self); !errors.Is(err, ErrNoDevice) || !strings.Contains(err.Error(), "2 asked for, the driver counts 1") {
		t.Errorf("more GPUs than devices: %v", err)
	}
	cuda := filepath.Join(dir, CUDABinaryName)
	if err := os.WriteFile(cuda, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if p, err := Check(1, self); p != cuda || err != nil {
		t.Errorf("with a device and the CUDA build: %q, %v", p, err)
	}
}
