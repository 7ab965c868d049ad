//go:build cuda

package cudalib

import (
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"gonum.org/v1/gonum/blas"

	"github.com/exageostat/exageostat/pkg/gpu"
)

// TestOpenSystem loads the real cuBLAS and cuSOLVER through the loader's
// search path (make cuda-check installs Debian's CUDA 11). It runs first:
// the fake libraries of the later tests are loaded RTLD_GLOBAL.
func TestOpenSystem(t *testing.T) {
	out, err := exec.Command("ldconfig", "-p").Output()
	if err != nil {
		t.Fatalf("ldconfig -p: %v", err)
	}
	first := func(names []string) string {
		for _, n := range names {
			if strings.Contains(string(out), n+" ") {
				return n
			}
		}
		return ""
	}
	wantBlas, wantSolver := first(CublasNames()), first(CusolverNames())
	l, err := Open(nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if l.CublasPath != wantBlas || l.CusolverPath != wantSolver {
		t.Errorf("loaded %s and %s, the loader cache's first are %s and %s", l.CublasPath, l.CusolverPath, wantBlas, wantSolver)
	}
	_, noDevice := gpu.Devices()
	b, berr := l.NewBlas()
	s, serr := l.NewSolver()
	if noDevice != nil {
		// No GPU: both creations fail with NOT_INITIALIZED, no crash.
		var st Status
		if !errors.As(berr, &st) || st.Code != 1 || berr.Error() != "cublas: cublasCreate_v2 returned 1 (CUBLAS_STATUS_NOT_INITIALIZED)" {
			t.Errorf("cublasCreate_v2 without a device: %v", berr)
		}
		if !errors.As(serr, &st) || st.Code != 1 || serr.Error() != "cusolver: cusolverDnCreate returned 1 (CUSOLVER_STATUS_NOT_INITIALIZED)" {
			t.Errorf("cusolverDnCreate without a device: %v", serr)
		}
		return
	}
	if berr != nil || serr != nil {
		t.Fatalf("with a device: %v, %v", berr, serr)
	}
	if err := b.Close(); err != nil {
		t.Error(err)
	}
	if err := s.Close(); err != nil {
		t.Error(err)
	}
}

// fakeSrc stands in for cuBLAS and cuSOLVER: dgemm computes on host
// memory (the "device" addresses are host addresses); the other routines
// return codes made of the enumeration values they received.
const fakeSrc = `
#include <stddef.h>
int cublasCreate_v2(void **h) { *h = (void *)0x1234; return 0; }
int cublasDestroy_v2(void *h) { return h == (void *)0x1234 ? 0 : 7; }
int cublasSetStream_v2(void *h, void *s) { return s == (void *)0xabc ? 0 : 7; }
int cublasDgemm_v2(void *h, int ta, int tb, int m, int n, int k, const double *alpha,
		const double *a, int lda, const double *b, int ldb, const double *beta, double *c, int ldc) {
	for (int j = 0; j < n; j++) for (int i = 0; i < m; i++) {
		double s = 0;
		for (int l = 0; l < k; l++) {
			double x = ta ? a[l + i*lda] : a[i + l*lda];
			double y = tb ? b[j + l*ldb] : b[l + j*ldb];
			s += x * y;
		}
		c[i + j*ldc] = *alpha * s + *beta * c[i + j*ldc];
	}
	return 0;
}
int cublasDsyrk_v2(void *h, int uplo, int t, int n, int k, const double *alpha, const double *a, int lda,
		const double *beta, double *c, int ldc) { return 10000 + 100*uplo + 10*t + (*alpha == -1 && *beta == 1); }
int cublasDtrsm_v2(void *h, int side, int uplo, int t, int diag, int m, int n, const double *alpha,
		const double *a, int lda, double *b, int ldb) { return 20000 + 1000*side + 100*uplo + 10*t + diag; }
#ifndef NO_DTRMM
int cublasDtrmm_v2(void *h, int side, int uplo, int t, int diag, int m, int n, const double *alpha,
		const double *a, int lda, const double *b, int ldb, double *c, int ldc) {
	return 30000 + 1000*side + 100*uplo + 10*t + diag + (b == c && ldb == ldc ? 0 : 5000);
}
#endif
int cublasDgemv_v2(void *h, int t, int m, int n, const double *alpha, const double *a, int lda,
		const double *x, int incx, const double *beta, double *y, int incy) { return 40000 + 10*t + incx; }
int cublasDcopy_v2(void *h, int n, const double *x, int incx, double *y, int incy) {
	for (int i = 0; i < n; i++) y[i*incy] = x[i*incx];
	return 0;
}
int cusolverDnCreate(void **h) { *h = (void *)0x5678; return 0; }
int cusolverDnDestroy(void *h) { return h == (void *)0x5678 ? 0 : 7; }
int cusolverDnSetStream(void *h, void *s) { return s == (void *)0xabc ? 0 : 7; }
int cusolverDnDpotrf_bufferSize(void *h, int uplo, int n, double *a, int lda, int *lwork) {
	*lwork = 1000*uplo + n; return 0;
}
int cusolverDnDpotrf(void *h, int uplo, int n, double *a, int lda, double *work, int lwork, int *info) {
	*info = lwork + lda; return 0;
}
`

// fakeDir builds the fake under the file names of CUDA 13 in a fresh
// directory, with extra C flags.
func fakeDir(t *testing.T, flags ...string) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "fake.c")
	if err := os.WriteFile(src, []byte(fakeSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "gcc"
	}
	for _, name := range []string{"libcublas.so.13", "libcusolver.so.13"} {
		args := append([]string{"-shared", "-fPIC", "-o", filepath.Join(dir, name), src}, flags...)
		if out, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", cc, err, out)
		}
	}
	return dir
}

func addr(x []float64) DevPtr { return DevPtr(uintptr(unsafe.Pointer(&x[0]))) }

func TestOpenErrors(t *testing.T) {
	empty := t.TempDir()
	cases := []struct {
		name string
		dir  string
		want string
	}{
		{"no library", empty, "cuBLAS/cuSOLVER not found: none of " + filepath.Join(empty, "libcublas.so.13") + ", "},
		{"a missing entry point", fakeDir(t, "-DNO_DTRMM"), "libcublas.so.13 has no cublasDtrmm_v2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Open([]string{c.dir}, false)
			if err == nil || !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an ErrNotFound containing %q", err, c.want)
			}
			if c.name == "no library" && !strings.Contains(err.Error(), "set "+LibsEnv) {
				t.Errorf("%v: does not name %s", err, LibsEnv)
			}
		})
	}
}

// TestCalls checks, against the fake libraries, that each wrapper calls
// its entry point with the arguments in cuBLAS' order and enumeration
// values (cublas_api.h: OP_N 0, OP_T 1; FILL_MODE_LOWER 0, UPPER 1;
// SIDE_LEFT 0, RIGHT 1; DIAG_NON_UNIT 0, UNIT 1).
func TestCalls(t *testing.T) {
	dir := fakeDir(t)
	t.Setenv(LibsEnv, "/nonexistent:"+dir)
	l, err := OpenDefault()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "libcublas.so.13"); l.CublasPath != want {
		t.Errorf("CublasPath %s, want %s", l.CublasPath, want)
	}
	b, err := l.NewBlas()
	if err != nil {
		t.Fatal(err)
	}
	s, err := l.NewSolver()
	if err != nil {
		t.Fatal(err)
	}
	stream := Stream(0xabc) // the fake checks this value
	if err := b.SetStream(stream); err != nil {
		t.Error(err)
	}
	if err := s.SetStream(stream); err != nil {
		t.Error(err)
	}

	t.Run("dgemm", func(t *testing.T) {
		// C (3 x 2, ldc 4) = 2 A^T B + 0.5 C with A 4 x 3 (lda 5), B 4 x 2.
		a := []float64{1, 2, 3, 4, 99, -1, 0, 2, 1, 99, 3, 1, -2, 5}
		bm := []float64{2, 0, 1, -1, 1, 1, 1, 1}
		c := []float64{1, 1, 1, 77, 2, 2, 2}
		want := append([]float64(nil), c...)
		for j := 0; j < 2; j++ {
			for i := 0; i < 3; i++ {
				var sum float64
				for l := 0; l < 4; l++ {
					sum += a[l+i*5] * bm[l+j*4]
				}
				want[i+j*4] = 2*sum + 0.5*c[i+j*4]
			}
		}
		if err := b.Dgemm(blas.Trans, blas.NoTrans, 3, 2, 4, 2, addr(a), 5, addr(bm), 4, 0.5, addr(c), 4); err != nil {
			t.Fatal(err)
		}
		runtime.KeepAlive(a)
		runtime.KeepAlive(bm)
		for i := range c {
			if math.Abs(c[i]-want[i]) > 1e-15 {
				t.Fatalf("c = %v, want %v", c, want)
			}
		}
	})

	t.Run("dcopy strided", func(t *testing.T) {
		a := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9} // 3 x 3: the diagonal is 1, 5, 9
		d := make([]float64, 3)
		if err := b.Dcopy(3, addr(a), 4, addr(d), 1); err != nil {
			t.Fatal(err)
		}
		runtime.KeepAlive(a)
		if d[0] != 1 || d[1] != 5 || d[2] != 9 {
			t.Fatalf("diagonal %v, want [1 5 9]", d)
		}
	})

	x := make([]float64, 4)
	p := addr(x)
	codes := []struct {
		name string
		err  error
		want int
	}{
		{"dsyrk lower notrans", b.Dsyrk(blas.Lower, blas.NoTrans, 2, 2, -1, p, 2, 1, p, 2), 10001},
		{"dsyrk upper trans", b.Dsyrk(blas.Upper, blas.Trans, 2, 2, 1, p, 2, 1, p, 2), 10110},
		{"dtrsm right lower trans nonunit", b.Dtrsm(blas.Right, blas.Lower, blas.Trans, blas.NonUnit, 2, 2, 1, p, 2, p, 2), 21010},
		{"dtrsm left upper notrans unit", b.Dtrsm(blas.Left, blas.Upper, blas.NoTrans, blas.Unit, 2, 2, 1, p, 2, p, 2), 20101},
		{"dtrmm in place right lower trans", b.Dtrmm(blas.Right, blas.Lower, blas.Trans, blas.NonUnit, 2, 2, 1, p, 2, p, 2), 31010},
		{"dtrmm in place left lower notrans", b.Dtrmm(blas.Left, blas.Lower, blas.NoTrans, blas.NonUnit, 2, 2, 1, p, 2, p, 2), 30000},
		{"dgemv trans incx 2", b.Dgemv(blas.Trans, 2, 2, 1, p, 2, p, 2, 0, p, 1), 40012},
		{"dgemv notrans incx 1", b.Dgemv(blas.NoTrans, 2, 2, 1, p, 2, p, 1, 0, p, 1), 40001},
	}
	for _, c := range codes {
		var st Status
		if !errors.As(c.err, &st) || st.Lib != "cublas" || st.Code != c.want {
			t.Errorf("%s: %v, want cublas code %d", c.name, c.err, c.want)
		}
	}

	lw, err := s.DpotrfBufferSize(7, p, 9)
	if err != nil || lw != 7 { // lower = 0: 1000*0 + n
		t.Errorf("DpotrfBufferSize = %d, %v; want 7", lw, err)
	}
	info := make([]int32, 2)
	if err := s.Dpotrf(7, p, 9, p, lw, DevPtr(uintptr(unsafe.Pointer(&info[0])))); err != nil {
		t.Error(err)
	}
	runtime.KeepAlive(info)
	if info[0] != 16 || info[1] != 0 { // lwork + lda, one 32-bit int
		t.Errorf("info = %v, want [16 0]", info)
	}
	runtime.KeepAlive(x)
	if err := b.Close(); err != nil {
		t.Error(err)
	}
	if err := s.Close(); err != nil {
		t.Error(err)
	}
}
