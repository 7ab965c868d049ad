//go:build cgo && !purego

package tlr

/*
#cgo LDFLAGS: -lopenblas
extern void dgesdd_(const char *jobz, const int *m, const int *n, double *a, const int *lda, double *s,
	double *u, const int *ldu, double *vt, const int *ldvt, double *work, const int *lwork, int *iwork, int *info);
extern void dgeqrf_(const int *m, const int *n, double *a, const int *lda, double *tau, double *work,
	const int *lwork, int *info);
extern void dorgqr_(const int *m, const int *n, const int *k, double *a, const int *lda, const double *tau,
	double *work, const int *lwork, int *info);
extern void dgeqp3_(const int *m, const int *n, double *a, const int *lda, int *jpvt, double *tau, double *work,
	const int *lwork, int *info);

static int gesdd(int m, int n, double *a, double *s, double *u, double *vt, double *work, int lwork, int *iwork) {
	int info = 0, r = m < n ? m : n;
	char jobz = 'S';
	dgesdd_(&jobz, &m, &n, a, &m, s, u, &m, vt, &r, work, &lwork, iwork, &info);
	return info;
}
static int geqrf(int m, int n, double *a, double *tau, double *work, int lwork) {
	int info = 0;
	dgeqrf_(&m, &n, a, &m, tau, work, &lwork, &info);
	return info;
}
static int orgqr(int m, int n, int k, double *a, double *tau, double *work, int lwork) {
	int info = 0;
	dorgqr_(&m, &n, &k, a, &m, tau, work, &lwork, &info);
	return info;
}
static int geqp3(int m, int n, double *a, int *jpvt, double *tau, double *work, int lwork) {
	int info = 0;
	dgeqp3_(&m, &n, a, &m, jpvt, tau, work, &lwork, &info);
	return info;
}
*/
import "C"

import "unsafe"

// OpenBLAS implements LAPACK with OpenBLAS' Fortran LAPACK symbols (dgesdd_,
// dgeqrf_, dorgqr_, dgeqp3_), in place on column-major memory.
type OpenBLAS struct{}

// DefaultLAPACK returns the fastest LAPACK compiled in: OpenBLAS'.
func DefaultLAPACK() LAPACK { return OpenBLAS{} }

// AllLAPACK returns every LAPACK compiled in, the default first.
func AllLAPACK() []LAPACK { return []LAPACK{OpenBLAS{}, Gonum{}} }

func dp(x []float64) *C.double {
	if len(x) == 0 {
		return nil
	}
	return (*C.double)(unsafe.Pointer(&x[0]))
}

// Name implements LAPACK.
func (OpenBLAS) Name() string { return "openblas" }

// SVD implements LAPACK with the divide-and-conquer dgesdd.
func (OpenBLAS) SVD(m, n int, a, s, u, vt []float64) bool {
	r := min(m, n)
	if r == 0 {
		return true
	}
	_, _, _, _ = a[m*n-1], s[r-1], u[m*r-1], vt[r*n-1]
	iwork := make([]C.int, 8*r)
	var q [1]float64
	C.gesdd(C.int(m), C.int(n), dp(a), dp(s), dp(u), dp(vt), dp(q[:]), -1, &iwork[0])
	work := make([]float64, int(q[0])+1)
	return C.gesdd(C.int(m), C.int(n), dp(a), dp(s), dp(u), dp(vt), dp(work), C.int(len(work)), &iwork[0]) == 0
}

// QR implements LAPACK.
func (OpenBLAS) QR(m, n int, a, r []float64) {
	if n == 0 {
		return
	}
	_, _ = a[m*n-1], r[n*n-1]
	tau := make([]float64, n)
	var q [1]float64
	C.geqrf(C.int(m), C.int(n), dp(a), dp(tau), dp(q[:]), -1)
	lw := max(int(q[0]), n)
	C.orgqr(C.int(m), C.int(n), C.int(n), dp(a), dp(tau), dp(q[:]), -1)
	work := make([]float64, max(lw, int(q[0])))
	C.geqrf(C.int(m), C.int(n), dp(a), dp(tau), dp(work), C.int(len(work)))
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			v := 0.0
			if i <= j {
				v = a[i+j*m]
			}
			r[i+j*n] = v
		}
	}
	C.orgqr(C.int(m), C.int(n), C.int(n), dp(a), dp(tau), dp(work), C.int(len(work)))
}

// QRCP implements LAPACK with dgeqp3.
func (OpenBLAS) QRCP(m, n int, a []float64, jpvt []int, tau []float64) {
	if m == 0 || n == 0 {
		return
	}
	_ = a[m*n-1]
	jp := make([]C.int, n)
	var q [1]float64
	C.geqp3(C.int(m), C.int(n), dp(a), &jp[0], dp(tau), dp(q[:]), -1)
	work := make([]float64, max(int(q[0]), 3*n+1))
	C.geqp3(C.int(m), C.int(n), dp(a), &jp[0], dp(tau), dp(work), C.int(len(work)))
	for j := range jp {
		jpvt[j] = int(jp[j]) - 1
	}
}

// FormQ implements LAPACK.
func (OpenBLAS) FormQ(m, k int, a, tau []float64) {
	if k == 0 {
		return
	}
	var q [1]float64
	C.orgqr(C.int(m), C.int(k), C.int(k), dp(a), dp(tau), dp(q[:]), -1)
	work := make([]float64, max(int(q[0]), k))
	C.orgqr(C.int(m), C.int(k), C.int(k), dp(a), dp(tau), dp(work), C.int(len(work)))
}
