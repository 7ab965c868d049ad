//go:build cgo && !purego

package linalg

/*
#cgo LDFLAGS: -lopenblas
#include <stddef.h>
#include <cblas.h>

// OpenBLAS' Fortran symbols (32-bit integers, as Debian builds it). gonum's
// blas enumerations are the Fortran characters ('N', 'T', 'C', 'L', 'U',
// 'R'), passed as they are. The wrappers take values and pass their
// addresses, so that Go passes no pointer to a scalar of its own.
extern void dgemm_(const char *ta, const char *tb, const blasint *m, const blasint *n, const blasint *k,
	const double *alpha, const double *a, const blasint *lda, const double *b, const blasint *ldb,
	const double *beta, double *c, const blasint *ldc);
extern void dsyrk_(const char *uplo, const char *t, const blasint *n, const blasint *k, const double *alpha,
	const double *a, const blasint *lda, const double *beta, double *c, const blasint *ldc);
extern void dtrsm_(const char *side, const char *uplo, const char *t, const char *diag, const blasint *m,
	const blasint *n, const double *alpha, const double *a, const blasint *lda, double *b, const blasint *ldb);
extern void dtrmm_(const char *side, const char *uplo, const char *t, const char *diag, const blasint *m,
	const blasint *n, const double *alpha, const double *a, const blasint *lda, double *b, const blasint *ldb);
extern void dgemv_(const char *t, const blasint *m, const blasint *n, const double *alpha, const double *a,
	const blasint *lda, const double *x, const blasint *incx, const double *beta, double *y, const blasint *incy);
extern void dtrsv_(const char *uplo, const char *t, const char *diag, const blasint *n, const double *a,
	const blasint *lda, double *x, const blasint *incx);
extern double ddot_(const blasint *n, const double *x, const blasint *incx, const double *y, const blasint *incy);
extern void sgemm_(const char *ta, const char *tb, const blasint *m, const blasint *n, const blasint *k,
	const float *alpha, const float *a, const blasint *lda, const float *b, const blasint *ldb,
	const float *beta, float *c, const blasint *ldc);
extern void strsm_(const char *side, const char *uplo, const char *t, const char *diag, const blasint *m,
	const blasint *n, const float *alpha, const float *a, const blasint *lda, float *b, const blasint *ldb);

extern void dpotrf_(const char *uplo, const blasint *n, double *a, const blasint *lda, blasint *info);
extern void dtrtri_(const char *uplo, const char *diag, const blasint *n, double *a, const blasint *lda,
	blasint *info);
// dgesdd_ comes from the reference LAPACK, built with gfortran: its one
// character argument has a hidden length, passed last.
extern void dgesdd_(const char *jobz, const blasint *m, const blasint *n, double *a, const blasint *lda,
	double *s, double *u, const blasint *ldu, double *vt, const blasint *ldvt, double *work,
	const blasint *lwork, blasint *iwork, blasint *info, size_t jobz_len);
extern void dgeqrf_(const blasint *m, const blasint *n, double *a, const blasint *lda, double *tau,
	double *work, const blasint *lwork, blasint *info);
extern void dorgqr_(const blasint *m, const blasint *n, const blasint *k, double *a, const blasint *lda,
	const double *tau, double *work, const blasint *lwork, blasint *info);
extern void dgeqp3_(const blasint *m, const blasint *n, double *a, const blasint *lda, blasint *jpvt,
	double *tau, double *work, const blasint *lwork, blasint *info);

static void gemm(char ta, char tb, blasint m, blasint n, blasint k, double alpha, const double *a, blasint lda,
		const double *b, blasint ldb, double beta, double *c, blasint ldc) {
	dgemm_(&ta, &tb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc);
}
static void syrk(char uplo, char t, blasint n, blasint k, double alpha, const double *a, blasint lda,
		double beta, double *c, blasint ldc) {
	dsyrk_(&uplo, &t, &n, &k, &alpha, a, &lda, &beta, c, &ldc);
}
static void trsm(char side, char uplo, char t, char diag, blasint m, blasint n, double alpha,
		const double *a, blasint lda, double *b, blasint ldb) {
	dtrsm_(&side, &uplo, &t, &diag, &m, &n, &alpha, a, &lda, b, &ldb);
}
static void trmm(char side, char uplo, char t, char diag, blasint m, blasint n, double alpha,
		const double *a, blasint lda, double *b, blasint ldb) {
	dtrmm_(&side, &uplo, &t, &diag, &m, &n, &alpha, a, &lda, b, &ldb);
}
static void gemv(char t, blasint m, blasint n, double alpha, const double *a, blasint lda, const double *x,
		blasint incx, double beta, double *y, blasint incy) {
	dgemv_(&t, &m, &n, &alpha, a, &lda, x, &incx, &beta, y, &incy);
}
static void trsv(char uplo, char t, char diag, blasint n, const double *a, blasint lda, double *x, blasint incx) {
	dtrsv_(&uplo, &t, &diag, &n, a, &lda, x, &incx);
}
static double dot(blasint n, const double *x, blasint incx, const double *y, blasint incy) {
	return ddot_(&n, x, &incx, y, &incy);
}
static void sgemm(char ta, char tb, blasint m, blasint n, blasint k, float alpha, const float *a, blasint lda,
		const float *b, blasint ldb, float beta, float *c, blasint ldc) {
	sgemm_(&ta, &tb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc);
}
static void strsm(char side, char uplo, char t, char diag, blasint m, blasint n, float alpha,
		const float *a, blasint lda, float *b, blasint ldb) {
	strsm_(&side, &uplo, &t, &diag, &m, &n, &alpha, a, &lda, b, &ldb);
}
static blasint potrf(blasint n, double *a, blasint lda) {
	blasint info = 0;
	char uplo = 'L';
	dpotrf_(&uplo, &n, a, &lda, &info);
	return info;
}
static blasint trtri(char uplo, char diag, blasint n, double *a, blasint lda) {
	blasint info = 0;
	dtrtri_(&uplo, &diag, &n, a, &lda, &info);
	return info;
}
// The thin SVD of the m x n a (lda m): u m x r (ldu m), vt r x n (ldvt r).
static blasint gesdd(blasint m, blasint n, double *a, double *s, double *u, double *vt, double *work,
		blasint lwork, blasint *iwork) {
	blasint info = 0, r = m < n ? m : n;
	char jobz = 'S';
	dgesdd_(&jobz, &m, &n, a, &m, s, u, &m, vt, &r, work, &lwork, iwork, &info, 1);
	return info;
}
static blasint geqrf(blasint m, blasint n, double *a, double *tau, double *work, blasint lwork) {
	blasint info = 0;
	dgeqrf_(&m, &n, a, &m, tau, work, &lwork, &info);
	return info;
}
static blasint orgqr(blasint m, blasint n, blasint k, double *a, double *tau, double *work, blasint lwork) {
	blasint info = 0;
	dorgqr_(&m, &n, &k, a, &m, tau, work, &lwork, &info);
	return info;
}
static blasint geqp3(blasint m, blasint n, double *a, blasint *jpvt, double *tau, double *work, blasint lwork) {
	blasint info = 0;
	dgeqp3_(&m, &n, a, &m, jpvt, tau, work, &lwork, &info);
	return info;
}
*/
import "C"

import (
	"unsafe"

	"gonum.org/v1/gonum/blas"
)

// openblasRaw is OpenBLAS: its BLAS and LAPACK Fortran symbols, called in
// place on the caller's column-major memory, without copies.
type openblasRaw struct{}

func defaultRaw() raw { return openblasRaw{} }
func allRaw() []raw   { return []raw{openblasRaw{}, gonumRaw{}} }

// OpenBLAS returns OpenBLAS through cgo (in a build with cgo and without
// the purego tag).
func OpenBLAS() Backend { return Backend{openblasRaw{}} }

func dp(x []float64) *C.double {
	if len(x) == 0 {
		return nil
	}
	return (*C.double)(unsafe.Pointer(&x[0]))
}

func sp(x []float32) *C.float {
	if len(x) == 0 {
		return nil
	}
	return (*C.float)(unsafe.Pointer(&x[0]))
}

// ch is a gonum enumeration as its Fortran character.
func ch[T ~byte](x T) C.char { return C.char(x) }

func (openblasRaw) name() string     { return "openblas" }
func (openblasRaw) setThreads(n int) { C.openblas_set_num_threads(C.int(n)) }
func (openblasRaw) coreName() string { return C.GoString(C.openblas_get_corename()) }
func (openblasRaw) Ddot(n int, x []float64, incX int, y []float64, incY int) float64 {
	return float64(C.dot(C.blasint(n), dp(x), C.blasint(incX), dp(y), C.blasint(incY)))
}

func (openblasRaw) Dgeadd(m, n int, alpha float64, a []float64, lda int, beta float64, b []float64, ldb int) {
	geadd(m, n, alpha, a, lda, beta, b, ldb)
}

func (openblasRaw) Dpotrf(n int, a []float64, lda int) int {
	return int(C.potrf(C.blasint(n), dp(a), C.blasint(lda)))
}

func (openblasRaw) Dtrtri(uplo blas.Uplo, diag blas.Diag, n int, a []float64, lda int) int {
	return int(C.trtri(ch(uplo), ch(diag), C.blasint(n), dp(a), C.blasint(lda)))
}

func (openblasRaw) Dtrsm(side blas.Side, uplo blas.Uplo, tA blas.Transpose, diag blas.Diag, m, n int,
	alpha float64, a []float64, lda int, b []float64, ldb int) {
	C.trsm(ch(side), ch(uplo), ch(tA), ch(diag), C.blasint(m), C.blasint(n), C.double(alpha),
		dp(a), C.blasint(lda), dp(b), C.blasint(ldb))
}

func (openblasRaw) Dtrmm(side blas.Side, uplo blas.Uplo, tA blas.Transpose, diag blas.Diag, m, n int,
	alpha float64, a []float64, lda int, b []float64, ldb int) {
	C.trmm(ch(side), ch(uplo), ch(tA), ch(diag), C.blasint(m), C.blasint(n), C.double(alpha),
		dp(a), C.blasint(lda), dp(b), C.blasint(ldb))
}

func (openblasRaw) Dsyrk(uplo blas.Uplo, tA blas.Transpose, n, k int, alpha float64, a []float64, lda int,
	beta float64, c []float64, ldc int) {
	C.syrk(ch(uplo), ch(tA), C.blasint(n), C.blasint(k), C.double(alpha), dp(a), C.blasint(lda),
		C.double(beta), dp(c), C.blasint(ldc))
}

func (openblasRaw) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int,
	b []float64, ldb int, beta float64, c []float64, ldc int) {
	C.gemm(ch(tA), ch(tB), C.blasint(m), C.blasint(n), C.blasint(k), C.double(alpha), dp(a), C.blasint(lda),
		dp(b), C.blasint(ldb), C.double(beta), dp(c), C.blasint(ldc))
}

func (openblasRaw) Dgemv(tA blas.Transpose, m, n int, alpha float64, a []float64, lda int,
	x []float64, incX int, beta float64, y []float64, incY int) {
	C.gemv(ch(tA), C.blasint(m), C.blasint(n), C.double(alpha), dp(a), C.blasint(lda), dp(x), C.blasint(incX),
		C.double(beta), dp(y), C.blasint(incY))
}

func (openblasRaw) Dtrsv(uplo blas.Uplo, tA blas.Transpose, diag blas.Diag, n int, a []float64, lda int,
	x []float64, incX int) {
	C.trsv(ch(uplo), ch(tA), ch(diag), C.blasint(n), dp(a), C.blasint(lda), dp(x), C.blasint(incX))
}

func (openblasRaw) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int,
	b []float32, ldb int, beta float32, c []float32, ldc int) {
	C.sgemm(ch(tA), ch(tB), C.blasint(m), C.blasint(n), C.blasint(k), C.float(alpha), sp(a), C.blasint(lda),
		sp(b), C.blasint(ldb), C.float(beta), sp(c), C.blasint(ldc))
}

func (openblasRaw) Strsm(side blas.Side, uplo blas.Uplo, tA blas.Transpose, diag blas.Diag, m, n int,
	alpha float32, a []float32, lda int, b []float32, ldb int) {
	C.strsm(ch(side), ch(uplo), ch(tA), ch(diag), C.blasint(m), C.blasint(n), C.float(alpha),
		sp(a), C.blasint(lda), sp(b), C.blasint(ldb))
}

// query returns LAPACK's workspace answer (lwork = -1) as a length.
func query(f func(work *C.double, lwork C.blasint)) int {
	var q [1]float64
	f(dp(q[:]), -1)
	return int(q[0])
}

func (openblasRaw) SVD(m, n int, a, s, u, vt []float64) bool {
	iwork := make([]C.blasint, 8*min(m, n))
	call := func(work *C.double, lwork C.blasint) C.blasint {
		return C.gesdd(C.blasint(m), C.blasint(n), dp(a), dp(s), dp(u), dp(vt), work, lwork, &iwork[0])
	}
	work := make([]float64, query(func(w *C.double, lw C.blasint) { call(w, lw) })+1)
	return call(dp(work), C.blasint(len(work))) == 0
}

func (openblasRaw) QR(m, n int, a, r []float64) {
	tau := make([]float64, n)
	cm, cn := C.blasint(m), C.blasint(n)
	lw := max(n, query(func(w *C.double, lw C.blasint) { C.geqrf(cm, cn, dp(a), dp(tau), w, lw) }),
		query(func(w *C.double, lw C.blasint) { C.orgqr(cm, cn, cn, dp(a), dp(tau), w, lw) }))
	work := make([]float64, lw)
	C.geqrf(cm, cn, dp(a), dp(tau), dp(work), C.blasint(lw))
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			v := 0.0
			if i <= j {
				v = a[i+j*m]
			}
			r[i+j*n] = v
		}
	}
	C.orgqr(cm, cn, cn, dp(a), dp(tau), dp(work), C.blasint(lw))
}

func (openblasRaw) QRCP(m, n int, a []float64, jpvt []int, tau []float64) {
	jp := make([]C.blasint, n)
	cm, cn := C.blasint(m), C.blasint(n)
	lw := max(3*n+1, query(func(w *C.double, lw C.blasint) { C.geqp3(cm, cn, dp(a), &jp[0], dp(tau), w, lw) }))
	work := make([]float64, lw)
	C.geqp3(cm, cn, dp(a), &jp[0], dp(tau), dp(work), C.blasint(lw))
	for j := range jp {
		jpvt[j] = int(jp[j]) - 1
	}
}

func (openblasRaw) FormQ(m, k int, a, tau []float64) {
	cm, ck := C.blasint(m), C.blasint(k)
	lw := max(k, query(func(w *C.double, lw C.blasint) { C.orgqr(cm, ck, ck, dp(a), dp(tau), w, lw) }))
	work := make([]float64, lw)
	C.orgqr(cm, ck, ck, dp(a), dp(tau), dp(work), C.blasint(lw))
}
