//go:build cuda

package cudalib

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned long long devptr;

typedef int (*fn_create)(void **h);
typedef int (*fn_destroy)(void *h);
typedef int (*fn_setstream)(void *h, void *s);
typedef int (*fn_dgemm)(void *h, int ta, int tb, int m, int n, int k, const double *alpha,
	const double *a, int lda, const double *b, int ldb, const double *beta, double *c, int ldc);
typedef int (*fn_dsyrk)(void *h, int uplo, int t, int n, int k, const double *alpha,
	const double *a, int lda, const double *beta, double *c, int ldc);
typedef int (*fn_dtrsm)(void *h, int side, int uplo, int t, int diag, int m, int n,
	const double *alpha, const double *a, int lda, double *b, int ldb);
typedef int (*fn_dtrmm)(void *h, int side, int uplo, int t, int diag, int m, int n,
	const double *alpha, const double *a, int lda, const double *b, int ldb, double *c, int ldc);
typedef int (*fn_dgemv)(void *h, int t, int m, int n, const double *alpha, const double *a, int lda,
	const double *x, int incx, const double *beta, double *y, int incy);
typedef int (*fn_dcopy)(void *h, int n, const double *x, int incx, double *y, int incy);
typedef int (*fn_potrf_bs)(void *h, int uplo, int n, double *a, int lda, int *lwork);
typedef int (*fn_potrf)(void *h, int uplo, int n, double *a, int lda, double *work, int lwork, int *info);

// The entry points, resolved once by dlsym.
typedef struct {
	void *blas, *solver;
	fn_create blasCreate, solverCreate;
	fn_destroy blasDestroy, solverDestroy;
	fn_setstream blasSetStream, solverSetStream;
	fn_dgemm dgemm;
	fn_dsyrk dsyrk;
	fn_dtrsm dtrsm;
	fn_dtrmm dtrmm;
	fn_dgemv dgemv;
	fn_dcopy dcopy;
	fn_potrf_bs potrfBufferSize;
	fn_potrf potrf;
} lib;

static void *open_global(const char *path) { return dlopen(path, RTLD_NOW | RTLD_GLOBAL); }
static const char *last_error(void) { const char *e = dlerror(); return e ? e : ""; }
static lib *new_lib(void) { lib *l = malloc(sizeof(lib)); if (l) memset(l, 0, sizeof(lib)); return l; }

// resolve looks every entry point up in l's two libraries; it returns the
// name of the first one missing, with *solver telling its library, or
// NULL when all are there.
#define SYM(field, handle, name) \
	if (!(*(void **)&l->field = dlsym(l->handle, name))) { *solver = l->handle == l->solver; return name; }
static const char *resolve(lib *l, int *solver) {
	SYM(blasCreate, blas, "cublasCreate_v2")
	SYM(blasDestroy, blas, "cublasDestroy_v2")
	SYM(blasSetStream, blas, "cublasSetStream_v2")
	SYM(dgemm, blas, "cublasDgemm_v2")
	SYM(dsyrk, blas, "cublasDsyrk_v2")
	SYM(dtrsm, blas, "cublasDtrsm_v2")
	SYM(dtrmm, blas, "cublasDtrmm_v2")
	SYM(dgemv, blas, "cublasDgemv_v2")
	SYM(dcopy, blas, "cublasDcopy_v2")
	SYM(solverCreate, solver, "cusolverDnCreate")
	SYM(solverDestroy, solver, "cusolverDnDestroy")
	SYM(solverSetStream, solver, "cusolverDnSetStream")
	SYM(potrfBufferSize, solver, "cusolverDnDpotrf_bufferSize")
	SYM(potrf, solver, "cusolverDnDpotrf")
	return NULL;
}

// The handle calls of cuBLAS (solver 0) and cuSOLVER (solver 1).
static int c_create(lib *l, int solver, void **h) { return solver ? l->solverCreate(h) : l->blasCreate(h); }
static int c_destroy(lib *l, int solver, void *h) { return solver ? l->solverDestroy(h) : l->blasDestroy(h); }
static int c_setstream(lib *l, int solver, void *h, devptr s) {
	return solver ? l->solverSetStream(h, (void *)s) : l->blasSetStream(h, (void *)s);
}

static int c_dgemm(lib *l, void *h, int ta, int tb, int m, int n, int k, double alpha,
		devptr a, int lda, devptr b, int ldb, double beta, devptr c, int ldc) {
	return l->dgemm(h, ta, tb, m, n, k, &alpha, (const double *)a, lda, (const double *)b, ldb,
		&beta, (double *)c, ldc);
}
static int c_dsyrk(lib *l, void *h, int uplo, int t, int n, int k, double alpha, devptr a, int lda,
		double beta, devptr c, int ldc) {
	return l->dsyrk(h, uplo, t, n, k, &alpha, (const double *)a, lda, &beta, (double *)c, ldc);
}
static int c_dtrsm(lib *l, void *h, int side, int uplo, int t, int diag, int m, int n, double alpha,
		devptr a, int lda, devptr b, int ldb) {
	return l->dtrsm(h, side, uplo, t, diag, m, n, &alpha, (const double *)a, lda, (double *)b, ldb);
}
// In place: cuBLAS' dtrmm writes C = alpha op(A) B and allows C == B.
static int c_dtrmm(lib *l, void *h, int side, int uplo, int t, int diag, int m, int n, double alpha,
		devptr a, int lda, devptr b, int ldb) {
	return l->dtrmm(h, side, uplo, t, diag, m, n, &alpha, (const double *)a, lda,
		(const double *)b, ldb, (double *)b, ldb);
}
static int c_dgemv(lib *l, void *h, int t, int m, int n, double alpha, devptr a, int lda,
		devptr x, int incx, double beta, devptr y, int incy) {
	return l->dgemv(h, t, m, n, &alpha, (const double *)a, lda, (const double *)x, incx, &beta,
		(double *)y, incy);
}
static int c_dcopy(lib *l, void *h, int n, devptr x, int incx, devptr y, int incy) {
	return l->dcopy(h, n, (const double *)x, incx, (double *)y, incy);
}
static int c_potrf_bs(lib *l, void *h, int uplo, int n, devptr a, int lda, int *lwork) {
	return l->potrfBufferSize(h, uplo, n, (double *)a, lda, lwork);
}
static int c_potrf(lib *l, void *h, int uplo, int n, devptr a, int lda, devptr work, int lwork,
		devptr info) {
	return l->potrf(h, uplo, n, (double *)a, lda, (double *)work, lwork, (int *)info);
}
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unsafe"

	"gonum.org/v1/gonum/blas"
)

// LibsEnv names the environment variable holding extra directories
// (colon-separated) searched first for the cuBLAS and cuSOLVER files, e.g.
// the lib folders of NVIDIA's Python wheels on the GPU machines.
const LibsEnv = "EXAGEOSTAT_CUDA_LIBS"

// CublasNames, CusolverNames and DepNames return the file names tried,
// newest CUDA first. The dependencies (DepNames: cuBLASLt for cuBLAS,
// nvJitLink for cuSOLVER from CUDA 12 on) are loaded from the given
// directories before the two libraries, so that the loader finds them
// there too.
func CublasNames() []string {
	return []string{"libcublas.so.13", "libcublas.so.12", "libcublas.so.11", "libcublas.so"}
}

// CusolverNames: see CublasNames.
func CusolverNames() []string {
	return []string{"libcusolver.so.13", "libcusolver.so.12", "libcusolver.so.11", "libcusolver.so"}
}

// DepNames: see CublasNames.
func DepNames() []string {
	return []string{"libnvJitLink.so.13", "libnvJitLink.so.12", "libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so.11"}
}

// ErrNotFound is wrapped by Open when a library or an entry point is
// missing.
var ErrNotFound = errors.New("cuBLAS/cuSOLVER not found")

// Lib holds the loaded libraries and their entry points. It is safe for
// concurrent use; handles (Blas, Solver) are not.
type Lib struct {
	l *C.lib
	// CublasPath and CusolverPath are the names dlopen accepted.
	CublasPath, CusolverPath string
}

// Open loads cuBLAS and cuSOLVER: first from each directory in dirs, then
// (when system is true) by file name through the dynamic loader's search
// path (LD_LIBRARY_PATH, ldconfig). Dependencies found in dirs are loaded
// first. The error names every file tried and the last loader message.
func Open(dirs []string, system bool) (*Lib, error) {
	for _, d := range dirs {
		for _, n := range DepNames() {
			p := filepath.Join(d, n)
			if _, err := os.Stat(p); err == nil {
				openGlobal(p) // best effort: the main library reports what is missing
			}
		}
	}
	blasH, blasPath, err := openFirst(dirs, system, CublasNames())
	if err != nil {
		return nil, err
	}
	solverH, solverPath, err := openFirst(dirs, system, CusolverNames())
	if err != nil {
		return nil, err
	}
	l := C.new_lib()
	if l == nil {
		return nil, errors.New("cudalib: out of memory")
	}
	l.blas, l.solver = blasH, solverH
	var solver C.int
	if name := C.resolve(l, &solver); name != nil {
		C.free(unsafe.Pointer(l))
		path := blasPath
		if solver != 0 {
			path = solverPath
		}
		return nil, fmt.Errorf("%w: %s has no %s", ErrNotFound, path, C.GoString(name))
	}
	return &Lib{l: l, CublasPath: blasPath, CusolverPath: solverPath}, nil
}

// OpenDefault is Open with the directories of LibsEnv and the loader's
// search path.
func OpenDefault() (*Lib, error) {
	var dirs []string
	for _, d := range strings.Split(os.Getenv(LibsEnv), ":") {
		if d != "" {
			dirs = append(dirs, d)
		}
	}
	return Open(dirs, true)
}

func openGlobal(path string) (unsafe.Pointer, string) {
	cs := C.CString(path)
	defer C.free(unsafe.Pointer(cs))
	h := C.open_global(cs)
	if h == nil {
		return nil, C.GoString(C.last_error())
	}
	return h, ""
}

func openFirst(dirs []string, system bool, names []string) (unsafe.Pointer, string, error) {
	var tried []string
	last := ""
	for _, d := range dirs {
		for _, n := range names {
			p := filepath.Join(d, n)
			if _, err := os.Stat(p); err != nil {
				tried = append(tried, p)
				continue
			}
			h, msg := openGlobal(p)
			if h != nil {
				return h, p, nil
			}
			tried, last = append(tried, p), msg
		}
	}
	if system {
		for _, n := range names {
			h, msg := openGlobal(n)
			if h != nil {
				return h, n, nil
			}
			tried, last = append(tried, n), msg
		}
	}
	if last != "" {
		last = " (last: " + last + ")"
	}
	return nil, "", fmt.Errorf("%w: none of %s could be loaded%s; set %s to the directory holding them",
		ErrNotFound, strings.Join(tried, ", "), last, LibsEnv)
}

// Status is a cuBLAS or cuSOLVER status code other than success.
type Status struct {
	// Lib is "cublas" or "cusolver"; Call the routine that returned Code.
	Lib, Call string
	Code      int
}

// Error implements error.
func (s Status) Error() string {
	return fmt.Sprintf("%s: %s returned %d (%s)", s.Lib, s.Call, s.Code, statusName(s.Lib, s.Code))
}

// statusName names the status codes shared by cublasStatus_t and
// cusolverStatus_t where they agree (1-8), and cuBLAS' own above.
func statusName(lib string, code int) string {
	p := "CUBLAS_STATUS_"
	if lib == "cusolver" {
		p = "CUSOLVER_STATUS_"
	}
	switch code {
	case 1:
		return p + "NOT_INITIALIZED"
	case 2:
		return p + "ALLOC_FAILED"
	case 3:
		return p + "INVALID_VALUE"
	case 4:
		return p + "ARCH_MISMATCH"
	case 5:
		return p + "MAPPING_ERROR"
	case 6:
		return p + "EXECUTION_FAILED"
	case 7:
		return p + "INTERNAL_ERROR"
	}
	if lib == "cublas" {
		switch code {
		case 8:
			return p + "NOT_SUPPORTED"
		case 14:
			return p + "LICENSE_ERROR"
		}
	} else if code == 8 {
		return p + "MATRIX_TYPE_NOT_SUPPORTED"
	}
	return "see the library's header"
}

// check returns nil for the status rc = 0 of call, the Status otherwise.
func check(lib, call string, rc C.int) error {
	if rc == 0 {
		return nil
	}
	return Status{Lib: lib, Call: call, Code: int(rc)}
}

func blasErr(call string, rc C.int) error   { return check("cublas", call, rc) }
func solverErr(call string, rc C.int) error { return check("cusolver", call, rc) }

// is returns 1 when x is v, 0 otherwise: the cuBLAS enumerations
// (cublas_api.h, shared by cuSOLVER's uplo) are such pairs.
func is[T comparable](x, v T) C.int {
	if x == v {
		return 1
	}
	return 0
}

// op is CUBLAS_OP_N (0) or CUBLAS_OP_T (1; Trans and ConjTrans alike).
func op(t blas.Transpose) C.int { return 1 - is(t, blas.NoTrans) }

// fill is CUBLAS_FILL_MODE_LOWER (0) or UPPER (1).
func fill(u blas.Uplo) C.int { return 1 - is(u, blas.Lower) }

// side is CUBLAS_SIDE_LEFT (0) or RIGHT (1).
func side(s blas.Side) C.int { return 1 - is(s, blas.Left) }

// diag is CUBLAS_DIAG_NON_UNIT (0) or UNIT (1).
func diag(d blas.Diag) C.int { return is(d, blas.Unit) }

// DevPtr is a device address (CUdeviceptr), e.g. gorgonia.org/cu's
// DevicePtr converted with uintptr: an alias, so that Blas and Solver
// implement package gpu's interfaces, whose addresses are uintptr.
type DevPtr = uintptr

// Stream is a CUDA stream handle (CUstream) as an address, e.g.
// uintptr(unsafe.Pointer(s.C())) for a gorgonia.org/cu Stream s.
type Stream uintptr

func dp(p DevPtr) C.devptr { return C.devptr(p) }

// handle is one cuBLAS or cuSOLVER handle, for one worker (not safe for
// concurrent use): its calls are asynchronous on the handle's stream.
type handle struct {
	lib    *Lib
	h      unsafe.Pointer
	solver bool
}

// calls names the handle's create, destroy and set-stream entry points,
// for errors.
func (h *handle) calls() (create, destroy, setStream string) {
	if h.solver {
		return "cusolverDnCreate", "cusolverDnDestroy", "cusolverDnSetStream"
	}
	return "cublasCreate_v2", "cublasDestroy_v2", "cublasSetStream_v2"
}

func (h *handle) err(call string, rc C.int) error {
	if h.solver {
		return solverErr(call, rc)
	}
	return blasErr(call, rc)
}

// open creates the handle on the calling thread's current CUDA context.
func (h *handle) open() error {
	create, _, _ := h.calls()
	return h.err(create, C.c_create(h.lib.l, is(h.solver, true), &h.h))
}

// Close destroys the handle.
func (h *handle) Close() error {
	if h.h == nil {
		return nil
	}
	_, destroy, _ := h.calls()
	err := h.err(destroy, C.c_destroy(h.lib.l, is(h.solver, true), h.h))
	h.h = nil
	return err
}

// SetStream makes the handle's calls run on stream (0 is the default
// stream).
func (h *handle) SetStream(stream Stream) error {
	_, _, set := h.calls()
	return h.err(set, C.c_setstream(h.lib.l, is(h.solver, true), h.h, C.devptr(stream)))
}

// Blas is one cuBLAS handle (cublasCreate_v2), for one worker.
type Blas struct{ handle }

// NewBlas creates a cuBLAS handle on the calling thread's current CUDA
// context.
func (l *Lib) NewBlas() (*Blas, error) {
	b := &Blas{handle{lib: l}}
	if err := b.open(); err != nil {
		return nil, err
	}
	return b, nil
}

// Dgemm computes C = alpha op(A) op(B) + beta C with C m x n and op(A)
// m x k (cublasDgemm_v2).
func (b *Blas) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a DevPtr, lda int,
	bb DevPtr, ldb int, beta float64, c DevPtr, ldc int) error {
	return blasErr("cublasDgemm_v2", C.c_dgemm(b.lib.l, b.h, op(tA), op(tB), C.int(m), C.int(n), C.int(k),
		C.double(alpha), dp(a), C.int(lda), dp(bb), C.int(ldb), C.double(beta), dp(c), C.int(ldc)))
}

// Dsyrk computes C = alpha A A^T + beta C (tA NoTrans, A n x k) or
// C = alpha A^T A + beta C (tA Trans), on the uplo triangle of C
// (cublasDsyrk_v2).
func (b *Blas) Dsyrk(uplo blas.Uplo, tA blas.Transpose, n, k int, alpha float64, a DevPtr, lda int,
	beta float64, c DevPtr, ldc int) error {
	return blasErr("cublasDsyrk_v2", C.c_dsyrk(b.lib.l, b.h, fill(uplo), op(tA), C.int(n), C.int(k),
		C.double(alpha), dp(a), C.int(lda), C.double(beta), dp(c), C.int(ldc)))
}

// Dtrsm solves op(A) X = alpha B (Left) or X op(A) = alpha B (Right),
// overwriting the m x n matrix B (cublasDtrsm_v2).
func (b *Blas) Dtrsm(s blas.Side, uplo blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int,
	alpha float64, a DevPtr, lda int, bb DevPtr, ldb int) error {
	return blasErr("cublasDtrsm_v2", C.c_dtrsm(b.lib.l, b.h, side(s), fill(uplo), op(tA), diag(d),
		C.int(m), C.int(n), C.double(alpha), dp(a), C.int(lda), dp(bb), C.int(ldb)))
}

// Dtrmm computes B = alpha op(A) B (Left) or B = alpha B op(A) (Right) in
// place (cublasDtrmm_v2 with C = B).
func (b *Blas) Dtrmm(s blas.Side, uplo blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int,
	alpha float64, a DevPtr, lda int, bb DevPtr, ldb int) error {
	return blasErr("cublasDtrmm_v2", C.c_dtrmm(b.lib.l, b.h, side(s), fill(uplo), op(tA), diag(d),
		C.int(m), C.int(n), C.double(alpha), dp(a), C.int(lda), dp(bb), C.int(ldb)))
}

// Dgemv computes y = alpha op(A) x + beta y for the m x n matrix A
// (cublasDgemv_v2).
func (b *Blas) Dgemv(tA blas.Transpose, m, n int, alpha float64, a DevPtr, lda int,
	x DevPtr, incX int, beta float64, y DevPtr, incY int) error {
	return blasErr("cublasDgemv_v2", C.c_dgemv(b.lib.l, b.h, op(tA), C.int(m), C.int(n), C.double(alpha),
		dp(a), C.int(lda), dp(x), C.int(incX), C.double(beta), dp(y), C.int(incY)))
}

// Dcopy copies the n-vector x (stride incX) into y (stride incY)
// (cublasDcopy_v2).
func (b *Blas) Dcopy(n int, x DevPtr, incX int, y DevPtr, incY int) error {
	return blasErr("cublasDcopy_v2", C.c_dcopy(b.lib.l, b.h, C.int(n), dp(x), C.int(incX), dp(y), C.int(incY)))
}

// Solver is one cuSOLVER dense handle (cusolverDnCreate), for one worker.
type Solver struct{ handle }

// NewSolver creates a cuSOLVER dense handle on the calling thread's
// current CUDA context.
func (l *Lib) NewSolver() (*Solver, error) {
	s := &Solver{handle{lib: l, solver: true}}
	if err := s.open(); err != nil {
		return nil, err
	}
	return s, nil
}

// DpotrfBufferSize returns the workspace length, in doubles, that Dpotrf
// needs for the lower Cholesky factor of an n x n matrix with leading
// dimension lda (cusolverDnDpotrf_bufferSize).
func (s *Solver) DpotrfBufferSize(n int, a DevPtr, lda int) (int, error) {
	var lw C.int
	err := solverErr("cusolverDnDpotrf_bufferSize", C.c_potrf_bs(s.lib.l, s.h, fill(blas.Lower), C.int(n), dp(a), C.int(lda), &lw))
	return int(lw), err
}

// Dpotrf overwrites the lower triangle of the n x n matrix A with L,
// A = L L^T (cusolverDnDpotrf), using the device workspace work of lwork
// doubles. LAPACK's info (0, or j > 0 when the leading minor of order j is
// not positive) is written asynchronously to the device int at info.
func (s *Solver) Dpotrf(n int, a DevPtr, lda int, work DevPtr, lwork int, info DevPtr) error {
	return solverErr("cusolverDnDpotrf", C.c_potrf(s.lib.l, s.h, fill(blas.Lower), C.int(n), dp(a), C.int(lda),
		dp(work), C.int(lwork), dp(info)))
}
