package config

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/exageostat/exageostat/pkg/matern"
	"github.com/exageostat/exageostat/pkg/memory"
	"github.com/exageostat/exageostat/pkg/stop"
)

// MaxWorkers is the most runtime workers a command may ask for (each is
// an OS thread; runtime.MaxWorkers).
const MaxWorkers = 4096

// ParamNames returns the names of the parameters of a covariance kernel,
// in theta order: matern (sigma2, beta, nu) or powexp (sigma2, beta,
// delta), and those of the space-time, bivariate and anisotropic
// Matérns, as package matern names them.
func ParamNames(kernel string) ([]string, error) {
	switch kernel {
	case "matern":
		return matern.MaternParamNames(), nil
	case "powexp":
		return matern.PowExpParamNames(), nil
	case SpaceTimeKernel:
		return matern.SpaceTimeParamNames(), nil
	case BivariateKernel:
		return matern.BivariateParamNames(), nil
	case AnisoKernel:
		return matern.AnisoParamNames(), nil
	}
	return nil, fmt.Errorf("unknown kernel %q (want matern, powexp, %s, %s or %s)", kernel, SpaceTimeKernel, BivariateKernel, AnisoKernel)
}

// Tau2 is the name of the nugget when it is the last parameter of theta
// = (sigma2, beta, nu|delta, tau2), or (sigma2, beta, nu, angle, ratio,
// tau2) for the anisotropic Matérn.
const Tau2 = "tau2"

// NuggetParam reports whether the kernel can take its nugget tau2 as one
// more parameter at the end of theta (matern, powexp, aniso-matern; the
// space-time and bivariate Matérns take a fixed nugget only).
func NuggetParam(kernel string) bool { return kernel != SpaceTimeKernel && kernel != BivariateKernel }

// HasTau2 reports whether a theta of d values of the kernel ends with the
// nugget tau2: d is one more than its number of parameters (4 for matern
// and powexp, 6 for aniso-matern).
func HasTau2(kernel string, d int) bool {
	names, err := ParamNames(kernel)
	return err == nil && NuggetParam(kernel) && d == len(names)+1
}

// ordinal returns "fourth" or "sixth" for 4 and 6, else "4th" style.
func ordinal(i int) string {
	switch i {
	case 4:
		return "fourth"
	case 6:
		return "sixth"
	}
	return fmt.Sprintf("%dth", i)
}

// ParamNamesFor returns the names of a kernel's theta of length d: its
// parameters, then Tau2 when theta carries the nugget (HasTau2).
func ParamNamesFor(kernel string, d int) ([]string, error) {
	names, err := ParamNames(kernel)
	if err == nil && HasTau2(kernel, d) {
		names = append(names, Tau2)
	}
	return names, err
}

// CheckTheta reports a parameter vector the kernel cannot take: not its
// number of parameters (or one more, the last the nugget tau2 >= 0 and
// finite, for the kernels of NuggetParam), a value that is not positive
// and finite (the bivariate rho and the anisotropic angle aside), or a
// value outside the kernel's domain (a powexp delta above 2, ...).
func CheckTheta(kernel string, theta []float64) error {
	names, err := ParamNames(kernel)
	if err != nil {
		return err
	}
	if !NuggetParam(kernel) && len(theta) != len(names) {
		return fmt.Errorf("%s needs %d parameters (%s), got %d (its nugget is fixed with --nugget)", kernel, len(names), strings.Join(names, ","), len(theta))
	}
	if len(theta) != len(names) && len(theta) != len(names)+1 {
		return fmt.Errorf("%s needs %d parameters (%s) or %d with %s, got %d", kernel, len(names), strings.Join(names, ","), len(names)+1, Tau2, len(theta))
	}
	if HasTau2(kernel, len(theta)) {
		if t := theta[len(names)]; !(t >= 0) || math.IsInf(t, 0) {
			return fmt.Errorf("%s must be >= 0 and finite, got %g", Tau2, t)
		}
		theta = theta[:len(names)]
	}
	for i, v := range theta {
		if signed(kernel, i) {
			continue
		}
		if !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("%s must be positive and finite, got %g", names[i], v)
		}
	}
	if kernel == BivariateKernel {
		return checkBivariate(theta)
	}
	if kernel == "powexp" && theta[2] > 2 {
		return fmt.Errorf("delta must be in (0, 2], got %g", theta[2])
	}
	if kernel == SpaceTimeKernel {
		return checkSpaceTime(theta)
	}
	if kernel == AnisoKernel {
		return checkAniso(theta)
	}
	return nil
}

// CheckMean reports a mean model that is none of zero ("" too), constant,
// linear or a comma-separated list of column names (letters, digits, '_', '.',
// '-'; each once).
func CheckMean(mean string) error {
	switch mean {
	case "", "zero", "constant", "linear": // "": zero
		return nil
	}
	seen := map[string]bool{}
	for _, name := range strings.Split(mean, ",") {
		name = strings.ToLower(strings.TrimSpace(name))
		ok := name != "" && !seen[name]
		for _, r := range name {
			ok = ok && (r == '_' || r == '.' || r == '-' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
		}
		if !ok || name == "x" || name == "y" || name == "z" {
			return fmt.Errorf("mean must be zero, constant, linear or covariate column names COL1,COL2, got %q", mean)
		}
		seen[name] = true
	}
	return nil
}

// MeanNamesColumns reports whether a (valid) mean model names columns of
// the data.
func MeanNamesColumns(mean string) bool {
	switch mean {
	case "", "zero", "constant", "linear":
		return false
	}
	return true
}

// StartValues returns the explicit start of the search when Start lists
// values ("1,0.1,0.5"), or nil for "data" and "lower".
func (f *Fit) StartValues() ([]float64, error) {
	switch f.Start {
	case "", "data", "lower":
		return nil, nil
	}
	return ParseFloats(f.Start)
}

// FormatFloats writes x as ParseFloats reads it: comma-separated, each
// value in the shortest form that reads back exactly ("1,0.1,0.5").
func FormatFloats(x []float64) string {
	return formatList(x, ",", func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) })
}

// FormatInts writes v in decimal, joined by sep: "320,640" with sep ","
// (an integer-list flag's value), "1, 3, 4" with ", " (for a message).
func FormatInts(v []int, sep string) string { return formatList(v, sep, strconv.Itoa) }

// formatList writes each element of v with format, joined by sep.
func formatList[T any](v []T, sep string, format func(T) string) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = format(x)
	}
	return strings.Join(s, sep)
}

// ParseFloats parses a comma-separated list such as "1,0.1,0.5".
func ParseFloats(s string) ([]float64, error) {
	parts := strings.Split(s, ",")
	out := make([]float64, 0, len(parts))
	for _, p := range parts {
		p = strings.TrimSpace(p)
		v, err := strconv.ParseFloat(p, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", p)
		}
		out = append(out, v)
	}
	return out, nil
}

// GridSize parses Grid, "NxM", into its two sizes (0, 0 when Grid is empty).
func (f *Fit) GridSize() (nx, ny int, err error) {
	if f.Grid == "" {
		return 0, 0, nil
	}
	return ParseGrid(f.Grid)
}

func devicesOK(s string) bool {
	_, err := ParseDevices(s)
	return err == nil
}

// Devices is a parsed Fit.Devices: Count devices of Kind with Bytes of
// memory each.
type Devices struct {
	Kind  string
	Count int
	Bytes int64
}

// ParseDevices parses "host-test:N[:SIZE]" (SIZE a number of bytes as
// --memory-limit takes it, memory.ParseBytes: 256MiB, 1GB, 2G; 1GiB if
// left out). "" is no device.
func ParseDevices(s string) (Devices, error) {
	if s == "" {
		return Devices{}, nil
	}
	parts := strings.Split(s, ":")
	if parts[0] != "host-test" {
		return Devices{}, fmt.Errorf("unknown device kind %q in %q (want host-test:N[:SIZE]; GPUs are --gpus)", parts[0], s)
	}
	if len(parts) < 2 || len(parts) > 3 {
		return Devices{}, fmt.Errorf("%q: want host-test:N[:SIZE], e.g. host-test:1:256MiB", s)
	}
	d := Devices{Kind: parts[0], Bytes: 1 << 30}
	n, err := strconv.Atoi(parts[1])
	if err != nil || n < 1 || n > 8 {
		return Devices{}, fmt.Errorf("%q: the number of devices must be in [1, 8], got %q", s, parts[1])
	}
	d.Count = n
	if len(parts) == 3 {
		b, err := memory.ParseBytes(parts[2])
		if err != nil {
			return Devices{}, fmt.Errorf("%q: the size: %v", s, err)
		}
		d.Bytes = b
	}
	return d, nil
}

// ParseGrid parses "NxM" with 2 <= N, M and N M <= 1e6.
func ParseGrid(s string) (nx, ny int, err error) {
	a, b, ok := strings.Cut(strings.ToLower(s), "x")
	if ok {
		nx, err = strconv.Atoi(a)
		if err == nil {
			ny, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil || nx < 2 || ny < 2 || nx*ny > 1_000_000 {
		return 0, 0, fmt.Errorf("--grid must be NxM with 2 <= N, M and N*M <= 1e6, got %q", s)
	}
	return nx, ny, nil
}

// MemoryLimitBytes returns MemoryLimit in bytes (0 when empty).
func MemoryLimitBytes(s string) (int64, error) {
	if strings.TrimSpace(s) == "" {
		return 0, nil
	}
	return memory.ParseBytes(s)
}

// Simulated reports whether the fit simulates its data (no data given).
func (f *Fit) Simulated() bool {
	return f.Data == "" && f.Locations == "" && f.Observations == ""
}

// Validate checks f after the file and the flags are applied, and returns
// an *Error naming the first bad key (File is f.File, or "fit"): kernel
// matern or powexp; distance euclidean, great-circle (gc) or auto; lb and
// ub three positive finite values each with lb <= ub (or four: the nugget
// tau2 is then the fourth parameter, and the nugget key must be 0; for
// other kernels their number of parameters, or one more for tau2); start
// data, lower or as many values as bounds, within them; search log or
// linear; profile auto, on or off; nb, workers,
// max_evals, holdout >= 0, tolerance > 0, nugget >= 0 and finite; solve
// chained, per-rank or move-tiles; memory_limit a size ("2GB"); grid NxM
// and only with plot; true_theta a valid theta and only with holdout;
// locations and observations together; no two sources of data (data and
// locations/observations), and no key of the simulated default problem
// (n, theta; seed unless holdout or plot use it) given with data, unless
// the command line gave the data over a file's problem; without data, n
// >= 3 and a valid theta; and the directories of json and trace must
// exist. An error given by a flag names the command ("fit"), one given
// by the file names the file and the line (Locate). The
// distribution keys are checked by Cluster.Validate, which knows the
// number of ranks.
func (f *Fit) Validate() error {
	type badFunc = func(key, format string, a ...any) error
	sections := []func(badFunc) error{
		f.checkModel, f.checkOutputs, f.checkBounds, f.checkSearch, f.checkMeanModel, f.checkRuntime,
		func(bad badFunc) error { return f.Approx.Check(bad) },
		func(bad badFunc) error { return f.Vecchia.Check(f.Computation, bad) },
		f.checkVecchia, f.checkFactor,
		func(badFunc) error { return f.conflicts() },
		f.checkDependents, f.checkData,
	}
	for _, check := range sections {
		if err := check(f.badKey); err != nil {
			return err
		}
	}
	return nil
}

// badKey returns the *Error of a bad key of f, placed by Locate (the
// file and its line, or the command when a flag gave the key).
func (f *Fit) badKey(key, format string, a ...any) error {
	return f.Locate(&Error{File: f.File, Key: key, Msg: fmt.Sprintf(format, a...)})
}

// checkModel checks the model keys: a known kernel, a distance the
// kernel takes, and the columns of the data.
func (f *Fit) checkModel(bad func(key, format string, a ...any) error) error {
	if _, err := ParamNames(f.Kernel); err != nil {
		return bad("kernel", "%v", err)
	}
	switch f.Distance {
	case "auto", "euclidean", "great-circle", "gc":
	default:
		return bad("distance", "unknown distance %q (want euclidean, great-circle or auto)", f.Distance)
	}
	if err := anisoDistance(f.Kernel, f.Distance); err != nil {
		return bad("distance", "%v", err)
	}
	if key, err := f.Columns.Validate(); err != nil {
		return bad(key, "%v", err)
	}
	return nil
}

// checkOutputs checks the keys of the assessments and pictures:
// true_theta (with holdout), dpi, cv with data and cv_out, grid with plot,
// draws in [0, 20] with grid.
func (f *Fit) checkOutputs(bad func(key, format string, a ...any) error) error {
	if f.TrueTheta != nil {
		if f.Holdout == 0 {
			return bad("true_theta", "--true-theta needs --holdout (MLOE/MMOM are computed at the held-out locations)")
		}
		if err := CheckTheta(f.Kernel, f.TrueTheta); err != nil {
			return bad("true_theta", "%v", err)
		}
	}
	if err := CheckDPI(f.DPI); err != nil {
		return bad("dpi", "%v", err)
	}
	if f.CV != "" {
		if _, err := ParseCV(f.CV); err != nil {
			return bad("cv", "%v", err)
		}
		switch {
		case f.Data == "":
			return bad("cv", "--cv needs --data (a CSV with the observations)")
		case f.CVOut == "":
			return bad("cv_out", "--cv needs --cv-out FILE (the per-point residuals)")
		}
	} else if f.CVOut != "" {
		return bad("cv_out", "--cv-out needs --cv loo or --cv K")
	}
	if f.Grid != "" {
		if f.Plot == "" {
			return bad("grid", "--grid needs --plot DIR")
		}
		if _, _, err := ParseGrid(f.Grid); err != nil {
			return bad("grid", "%v", err)
		}
	}
	switch {
	case f.Draws < 0 || f.Draws > 20:
		return bad("draws", "--draws must be in [0, 20] (maps of conditional simulations), got %d", f.Draws)
	case f.Draws > 0 && f.Grid == "":
		return bad("draws", "--draws maps conditional simulations on the prediction grid: it needs --plot DIR and --grid NxM")
	}
	return nil
}

// boundNames returns the names of the parameters the bounds give: the
// kernel's, then Tau2 when lb and ub carry the nugget (withTau2).
func (f *Fit) boundNames() (names []string, withTau2 bool) {
	names, _ = ParamNames(f.Kernel) // a bad kernel is checkModel's
	withTau2 = HasTau2(f.Kernel, len(f.Lower)) && len(f.Upper) == len(f.Lower)
	if withTau2 {
		names = append(names, Tau2) // the nugget is the last parameter
	}
	return names, withTau2
}

// checkBounds checks lb and ub: one value each per parameter (the nugget
// key 0 when they carry tau2), positive and finite (the signed parameters
// aside), lb <= ub, within the kernel's domain.
func (f *Fit) checkBounds(bad func(key, format string, a ...any) error) error {
	names, withTau2 := f.boundNames()
	if len(f.Lower) != len(names) || len(f.Upper) != len(names) {
		key := "lb"
		if len(f.Lower) == len(names) {
			key = "ub"
		}
		if !NuggetParam(f.Kernel) {
			return bad(key, "bounds need %d values each (%s), got %d lower and %d upper", len(names), strings.Join(names, ","), len(f.Lower), len(f.Upper))
		}
		return bad(key, "bounds need %d values each (%s; %d with %s to estimate the nugget), got %d lower and %d upper", len(names), strings.Join(names, ","), len(names)+1, Tau2, len(f.Lower), len(f.Upper))
	}
	if withTau2 && f.Nugget != 0 {
		return bad("nugget", "the nugget is the %s parameter (%d bounds): fix it with equal %dth values of lb and ub, not --nugget", ordinal(len(names)), len(names), len(names))
	}
	for i := range names {
		lb, ub := f.Lower[i], f.Upper[i]
		if signed(f.Kernel, i) { // within [-1, 1]: kernelBounds
			if lb > ub {
				return bad("lb", "lower bound of %s (%g) is above its upper bound (%g)", names[i], lb, ub)
			}
			continue
		}
		if !(lb > 0) || math.IsInf(lb, 0) {
			return bad("lb", "bounds of %s must be positive and finite, got [%g, %g]", names[i], lb, ub)
		}
		if !(ub > 0) || math.IsInf(ub, 0) {
			return bad("ub", "bounds of %s must be positive and finite, got [%g, %g]", names[i], lb, ub)
		}
		if lb > ub {
			return bad("lb", "lower bound of %s (%g) is above its upper bound (%g)", names[i], lb, ub)
		}
	}
	if key, msg := kernelBounds(f.Kernel, f.Lower, f.Upper); key != "" {
		return bad(key, "%s", msg)
	}
	return nil
}

// checkSearch checks the search keys: start (data, lower or one value per
// bound, within them), search (log or linear; fisher or bobyqa for
// vecchia) and profile (auto, on or off).
func (f *Fit) checkSearch(bad func(key, format string, a ...any) error) error {
	names, _ := f.boundNames()
	x0, err := f.StartValues()
	if err != nil {
		return bad("start", "want data, lower or values v1,v2,...: %v", err)
	}
	if x0 != nil {
		if len(x0) != len(names) {
			return bad("start", "--start needs %d values (%s), got %d", len(names), strings.Join(names, ","), len(x0))
		}
		for i, v := range x0 {
			if !(v >= f.Lower[i] && v <= f.Upper[i]) {
				return bad("start", "start %s = %g is outside its bounds [%g, %g]", names[i], v, f.Lower[i], f.Upper[i])
			}
		}
	}
	switch f.Search {
	case "log", "linear":
	case "fisher", "bobyqa":
		if f.Computation != "vecchia" {
			return bad("search", "--search %s is for --computation vecchia (fisher: Fisher scoring, which needs its gradient and information; bobyqa: BOBYQA on the log scale over its likelihood); the others take log or linear", f.Search)
		}
	default:
		return bad("search", "search must be log, linear, fisher or bobyqa, got %q", f.Search)
	}
	switch f.Profile {
	case "auto", "on", "off":
	default:
		return bad("profile", "profile must be auto, on or off, got %q", f.Profile)
	}
	return nil
}

// checkMeanModel checks mean and the keys that depend on it: reml needs a
// mean, true_theta a zero mean, and a mean of columns needs data (and no
// grid, which has no such columns).
func (f *Fit) checkMeanModel(bad func(key, format string, a ...any) error) error {
	if err := CheckMean(f.Mean); err != nil {
		return bad("mean", "%v", err)
	}
	if f.REML && (f.Mean == "zero" || f.Mean == "") {
		return bad("reml", "--reml needs a mean model (--mean constant, linear or columns): with a zero mean it is the likelihood itself")
	}
	if f.Mean != "zero" && f.Mean != "" && f.TrueTheta != nil {
		return bad("true_theta", "--true-theta (MLOE/MMOM) is for zero-mean fits: leave it out with --mean")
	}
	if f.Grid != "" && MeanNamesColumns(f.Mean) {
		return bad("grid", "--grid with --mean %s: the grid has no values of those columns (use --mean constant or linear)", f.Mean)
	}
	if f.Simulated() && MeanNamesColumns(f.Mean) {
		return bad("mean", "--mean %s names columns, but no data are given (the simulated problem has none)", f.Mean)
	}
	return nil
}

// checkRuntime checks the numbers of the run: nb, workers, gpus,
// scheduler, devices, max_evals, tolerance, nugget, holdout, ci and
// ci_level, solve.
func (f *Fit) checkRuntime(bad func(key, format string, a ...any) error) error {
	switch {
	case f.NB < 0:
		return bad("nb", "must be >= 0 (0: automatic), got %d", f.NB)
	case f.Workers < 0 || f.Workers > MaxWorkers:
		return bad("workers", "must be in [0, %d] (0: one per core), got %d", MaxWorkers, f.Workers)
	case f.GPUs < 0 || f.GPUs > 64:
		return bad("gpus", "must be in [0, 64] (0: no GPU workers), got %d", f.GPUs)
	case f.Pin != "auto" && f.Pin != "on" && f.Pin != "off":
		return bad("pin", "must be auto, on or off, got %q", f.Pin)
	case !slices.Contains(Schedulers(), f.Scheduler):
		return bad("scheduler", "must be one of %s, got %q", strings.Join(Schedulers(), ", "), f.Scheduler)
	case f.Devices != "" && !devicesOK(f.Devices):
		_, err := ParseDevices(f.Devices)
		return bad("devices", "%v", err)
	case f.MaxEvals < 0:
		return bad("max_evals", "must be >= 0 (0: no limit), got %d", f.MaxEvals)
	case !(f.Tolerance > 0) || math.IsInf(f.Tolerance, 0):
		return bad("tolerance", "must be > 0 and finite, got %g", f.Tolerance)
	case !(f.Nugget >= 0) || math.IsInf(f.Nugget, 0):
		return bad("nugget", "must be >= 0 and finite, got %g", f.Nugget)
	case f.Holdout < 0:
		return bad("holdout", "must be >= 0, got %d", f.Holdout)
	case f.CI != "" && f.CI != "none" && f.CI != "profile":
		return bad("ci", "--ci must be profile or none, got %q", f.CI)
	case f.CI == "profile" && !(f.CILevel > 0 && f.CILevel < 1):
		return bad("ci_level", "--ci-level must be in (0, 1), got %g", f.CILevel)
	case f.CI == "profile" && f.Kernel != "matern" && f.Kernel != "powexp":
		return bad("ci", "--ci profile is for the matern and powexp kernels (positive parameters), not %s", f.Kernel)
	}
	switch f.Solve {
	case "chained", "per-rank", "move-tiles":
	default:
		return bad("solve", "--solve must be chained, per-rank or move-tiles, got %q", f.Solve)
	}
	return nil
}

// checkFactor checks the keys of the factorisation and the run's limits:
// lookahead and hpotrf >= 0 and only for an approximation, memory_limit a
// size, deadline one stop.ParseDeadline reads.
func (f *Fit) checkFactor(bad func(key, format string, a ...any) error) error {
	switch {
	case f.Lookahead < 0:
		return bad("lookahead", "--lookahead must be >= 0 (0: off), got %d", f.Lookahead)
	case f.HPotrf < 0:
		return bad("hpotrf", "--hpotrf must be >= 0 (0: off), got %d", f.HPotrf)
	case !f.Approx.Approximate() && f.Lookahead != 0:
		return bad("lookahead", "--lookahead is for --computation tlr, mp or dst (the exact Cholesky has no lookahead)")
	case !f.Approx.Approximate() && f.HPotrf != 0:
		return bad("hpotrf", "--hpotrf is for --computation tlr, mp or dst (the exact Cholesky has no hierarchical potrf)")
	}
	if _, err := MemoryLimitBytes(f.MemoryLimit); err != nil {
		return bad("memory_limit", "%v", err)
	}
	if f.Deadline != "" && f.Deadline != "none" {
		if _, err := stop.ParseDeadline(f.Deadline, time.Now()); err != nil {
			return bad("deadline", "--deadline: %v", err)
		}
	}
	return nil
}

// checkData checks the source of the data: locations and observations
// together; without data, n >= 3, a valid theta (its nugget not given
// twice) and times; and the directories of json and trace.
func (f *Fit) checkData(bad func(key, format string, a ...any) error) error {
	if (f.Locations == "") != (f.Observations == "") {
		key := "locations"
		if f.Observations == "" {
			key = "observations"
		}
		return bad(key, "--locations and --observations go together")
	}
	if f.Simulated() {
		if f.N < 3 {
			return bad("n", "--n must be >= 3, got %d", f.N)
		}
		if err := CheckTheta(f.Kernel, f.Theta); err != nil {
			return bad("theta", "%v", err)
		}
		if HasTau2(f.Kernel, len(f.Theta)) && f.Nugget != 0 {
			return bad("theta", "a theta of %d values gives the simulation's nugget: leave --nugget out", len(f.Theta))
		}
		if err := checkTimes(f.Kernel, f.N, f.Times); err != nil {
			return bad("times", "%v", err)
		}
	} else if f.Times != 0 {
		return bad("times", "--times is for simulated data (the data's t column gives the times)")
	}
	for _, o := range []struct{ key, path string }{{"json", f.JSON}, {"trace", f.Trace}} {
		if err := dirExists(o.path); err != nil {
			return bad(o.key, "%v", err)
		}
	}
	return nil
}

// Given reports whether key was given by the configuration file or on
// the command line (rather than left at its default).
func (f *Fit) Given(key string) bool {
	_, inFile := f.FileKeys[key]
	return inFile || f.FlagKeys[key]
}

// SetFlags records the keys that flags given on the command line set, all
// of them in one call (a flag's name is its key with '-' for '_'; names
// that are no key, such as config, are recorded harmlessly). A source of
// data given by a flag replaces the one the file gives: --data drops the
// file's locations and observations, --locations or --observations the
// file's data.
func (f *Fit) SetFlags(names ...string) {
	if f.FlagKeys == nil {
		f.FlagKeys = map[string]bool{}
	}
	for _, n := range names {
		f.FlagKeys[strings.ReplaceAll(n, "-", "_")] = true
	}
	pair := f.FlagKeys["locations"] || f.FlagKeys["observations"]
	switch {
	case f.FlagKeys["data"] && !pair:
		f.Locations, f.Observations = "", ""
	case pair && !f.FlagKeys["data"]:
		f.Data = ""
	}
}

// Locate places a configuration error of f's: an *Error about a key that
// a flag gave names the command ("fit") instead of the file, and one about
// a key of the file gets the key's line. Other errors come back as they
// are.
func (f *Fit) Locate(err error) error {
	var e *Error
	if !errors.As(err, &e) || (e.File != f.File && e.File != "fit") {
		return err
	}
	switch {
	case f.File == "" || f.FlagKeys[e.Key]:
		e.File, e.Line = "fit", 0
	default:
		e.File = f.File
		if e.Line == 0 {
			e.Line = f.FileKeys[e.Key]
		}
	}
	return err
}

// conflicts reports keys that contradict each other: two sources of data,
// or a key of the simulated default problem given with data (it would be
// ignored). The command line overrides the file: a problem the file
// describes gives way to data given by a flag.
func (f *Fit) conflicts() error {
	bad := f.badKey
	if f.Data != "" {
		for _, k := range []string{"locations", "observations"} {
			if (k == "locations" && f.Locations != "") || (k == "observations" && f.Observations != "") {
				return bad(k, "--data and --locations/--observations both give the data: give one of them")
			}
		}
	}
	if f.Simulated() {
		return nil
	}
	dataKey := "data"
	if f.Data == "" {
		dataKey = "locations"
	}
	dataByFlag := f.FlagKeys["data"] || f.FlagKeys["locations"] || f.FlagKeys["observations"]
	for _, k := range []string{"n", "theta", "seed"} {
		if !f.Given(k) || (!f.FlagKeys[k] && dataByFlag) {
			continue
		}
		if k == "seed" && (f.Holdout > 0 || f.Plot != "") {
			continue // the seed of the hold-out split and of the semivariogram's pairs
		}
		what := map[string]string{
			"n":     "the number of simulated locations",
			"theta": "the true theta of the simulated default problem (the search's start is --start)",
			"seed":  "the seed of the simulated default problem (and of --holdout and --plot, not given)",
		}[k]
		return bad(k, "--%s is %s: it does nothing with --%s (leave it out)", k, what, dataKey)
	}
	return nil
}

// dirExists reports an output path whose directory does not exist.
func dirExists(path string) error {
	if path == "" {
		return nil
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("cannot write %s: directory %s does not exist", path, dir)
	}
	return nil
}

// Simulate configures `exageostat simulate`: N locations on ExaGeoStat's
// jittered grid and a draw of the field there, written as CSV.
type Simulate struct {
	N           int       `toml:"n"`
	Theta       []float64 `toml:"theta"`
	Seed        uint64    `toml:"seed"`
	Kernel      string    `toml:"kernel"`
	Nugget      float64   `toml:"nugget"`
	Times       int       `toml:"times"` // space-time: n/times sites at times 1..times
	Out         string    `toml:"out"`
	NB          int       `toml:"nb"`
	Workers     int       `toml:"workers"`
	MemoryLimit string    `toml:"memory_limit"`
	// JSON, when set, is where the run's summary goes (its per-rank
	// memory table included); Trace, when set, is its trace file (as
	// fit's: each rank's Paje file as it goes, merged at the end).
	JSON  string `toml:"json"`
	Trace string `toml:"trace"`
	// Distribution of the tiles over the MPI ranks (ignored on one rank).
	Phase
	// Approx: the factor L of z = L e (exact, or tlr, mp, dst), or
	// vecchia: z drawn through the Vecchia conditionals.
	Approx
	// Vecchia: vecchia_m and vecchia_order of computation vecchia.
	Vecchia
}

// DefaultSimulate returns the defaults: N = 1600, Matérn theta = (1, 0.1,
// 0.5), seed 1, automatic tile size, block-cyclic over the ranks, exact.
func DefaultSimulate() Simulate {
	return Simulate{N: 1600, Theta: []float64{1, 0.1, 0.5}, Seed: 1, Kernel: "matern", Phase: Phase{Distribution: "bc"}, Approx: DefaultApprox(), Vecchia: DefaultVecchia()}
}

// Validate checks s and returns an *Error (File "simulate") naming the
// first bad key: out given and its directory existing, n >= 3, nb and
// workers >= 0, a known kernel and a valid theta for it, nugget >= 0 and
// finite, memory_limit a size.
func (s *Simulate) Validate() error {
	bad := func(key, format string, a ...any) error {
		return &Error{File: "simulate", Key: key, Msg: fmt.Sprintf(format, a...)}
	}
	switch {
	case s.Out == "":
		return bad("out", "--out is required")
	case s.N < 3:
		return bad("n", "--n must be >= 3 (got %d)", s.N)
	case s.NB < 0:
		return bad("nb", "--nb must be >= 0 (0: automatic), got %d", s.NB)
	case s.Workers < 0 || s.Workers > MaxWorkers:
		return bad("workers", "--workers must be in [0, %d] (0: one per core), got %d", MaxWorkers, s.Workers)
	}
	if _, err := ParamNames(s.Kernel); err != nil {
		return bad("kernel", "%v", err)
	}
	if err := CheckTheta(s.Kernel, s.Theta); err != nil {
		return bad("theta", "%v", err)
	}
	if err := checkTimes(s.Kernel, s.N, s.Times); err != nil {
		return bad("times", "%v", err)
	}
	if !(s.Nugget >= 0) || math.IsInf(s.Nugget, 0) {
		return bad("nugget", "--nugget must be >= 0 and finite")
	}
	if HasTau2(s.Kernel, len(s.Theta)) && s.Nugget != 0 {
		return bad("nugget", "a theta of %d values gives the nugget tau2: leave --nugget out", len(s.Theta))
	}
	if err := s.Approx.Check(bad); err != nil {
		return err
	}
	if err := s.Vecchia.Check(s.Computation, bad); err != nil {
		return err
	}
	if s.Vecchia.Sets != "" || s.Vecchia.SetsOut != "" {
		return bad("vecchia_sets", "--vecchia-sets and --vecchia-sets-out are for fit")
	}
	if s.Vecchia.Ungrouped() {
		return bad("vecchia_grouping", "--vecchia-grouping is for fit")
	}
	if _, err := MemoryLimitBytes(s.MemoryLimit); err != nil {
		return bad("memory_limit", "%v", err)
	}
	if err := dirExists(s.Out); err != nil {
		return bad("out", "%v", err)
	}
	return nil
}

// Predict configures `exageostat predict`: kriging at the locations of At
// from the observations in Data with parameters Theta.
type Predict struct {
	Data      string    `toml:"data"`
	At        string    `toml:"at"`
	Out       string    `toml:"out"`
	Theta     []float64 `toml:"theta"`
	ThetaFrom string    `toml:"theta_from"` // a fit's JSON result (read by the command into Theta, Kernel, ...)
	Kernel    string    `toml:"kernel"`
	Distance  string    `toml:"distance"`
	Nugget    float64   `toml:"nugget"`
	Mean      string    `toml:"mean"` // zero | constant | linear | COL1,COL2: universal kriging
	// Variance is the variance predict writes: "observation" (of a new
	// observation, nugget included; the default) or "latent" (of the
	// field itself, without the nugget tau2).
	Variance string `toml:"variance"`
	// CV makes predict cross-validate the observations of Data (leave one
	// out) instead of predicting at At (the command cv).
	CV bool `toml:"-"`
	// Folds > 1 makes the cross-validation K-fold instead of leave one
	// out: the observations split at random (seeded by Seed) into Folds
	// groups of nearly equal size, each kriged from the others at Theta.
	Folds int `toml:"folds"`
	// JSON, when set, is where predict or cv writes its summary (the
	// per-rank memory table included); Trace, when set, is the run's
	// trace file (as fit's).
	JSON  string `toml:"json"`
	Trace string `toml:"trace"`
	// Plot, when set, is the directory where cv writes its pictures (a
	// map of the standardised residuals and their normal QQ plot), at DPI
	// dots per inch (0: 300), the observed variable named ZName ("z" if
	// empty) in Units.
	Plot  string  `toml:"plot"`
	DPI   float64 `toml:"dpi"`
	ZName string  `toml:"z_name"`
	Units string  `toml:"units"`
	// XYUnits are the units of planar x and y on the map axes.
	XYUnits string `toml:"xy_units"`
	// Draws > 0 makes predict also write that many conditional
	// simulations of the field at At given the data (columns draw_1...),
	// seeded by Seed.
	Draws       int    `toml:"draws"`
	Seed        uint64 `toml:"seed"`
	NB          int    `toml:"nb"`
	Workers     int    `toml:"workers"`
	MemoryLimit string `toml:"memory_limit"`
	// Distribution of the tiles over the MPI ranks (ignored on one rank).
	Phase
	// Approx: the factor the kriging solves with (exact, or tlr, mp, dst),
	// or vecchia (each new location conditioned on its nearest
	// observations).
	Approx
	// Vecchia: vecchia_m and vecchia_order of computation vecchia.
	Vecchia
	// Columns: how Data and At are read, and the transform of the
	// observations (the fit's).
	Columns
	// Scale is the scale of the predictions written with a transform:
	// original (back-transformed), transformed, or both.
	Scale string `toml:"scale"`
	// Bands maps a raster At's bands to covariate columns, "BAND=COL"
	// each (BAND a band's description or its number from 1); unmapped
	// bands are named by their descriptions.
	Bands []string `toml:"bands"`
	// Blocks is a polygon file (GeoPackage, shapefile, GeoJSON): predict
	// writes the mean of the field over each polygon, discretised by the
	// locations of At inside it (block kriging), instead of At's points.
	Blocks string `toml:"blocks"`
	// FitDistance, when set, is the distance of the fit that ThetaFrom
	// holds, which Distance "auto" must turn out to be once the data's
	// coordinates are known. It is not a key.
	FitDistance string `toml:"-"`
	// Cmd is the command that runs the prediction, for messages:
	// "predict" (also when empty), "cv", "simulate" (--conditional) or
	// "fit" (--cv). It is not a key.
	Cmd string `toml:"-"`
}

// Command returns the command that runs p, for messages ("predict" by
// default).
func (p *Predict) Command() string {
	if p.Cmd == "" {
		return "predict"
	}
	return p.Cmd
}

// DefaultPredict returns the defaults: Matérn, distance from the data's
// header, automatic tile size, block-cyclic over the ranks.
func DefaultPredict() Predict {
	return Predict{Kernel: "matern", Distance: "auto", Mean: "zero", Variance: VarianceObservation, Phase: Phase{Distribution: "bc"}, Approx: DefaultApprox(), Vecchia: DefaultVecchia()}
}

// The scales predict can write with a transform (Predict.Scale).
const (
	ScaleOriginal    = "original"    // back-transformed: the observations' scale
	ScaleTransformed = "transformed" // the scale the model was fitted on
	ScaleBoth        = "both"        // both, the transformed columns first
)

// The variances predict can write (Predict.Variance).
const (
	VarianceObservation = "observation" // of a new observation: nugget included
	VarianceLatent      = "latent"      // of the field: without the nugget
)

// Validate checks p and returns an *Error (File "predict") naming the
// first bad key: data, at and out given (out's directory existing), a
// known kernel and a valid theta for it, a known distance, nb and workers
// >= 0, nugget >= 0 and finite, memory_limit a size.
func (p *Predict) Validate() error {
	bad := func(key, format string, a ...any) error {
		return &Error{File: p.Command(), Key: key, Msg: fmt.Sprintf(format, a...)}
	}
	switch {
	case p.Data == "" || p.At == "" || p.Out == "":
		key := "data"
		if p.Data != "" {
			key = "at"
			if p.At != "" {
				key = "out"
			}
		}
		return bad(key, "--data, --at and --out are required")
	case p.Theta == nil:
		return bad("theta", "give exactly one of --theta and --theta-from")
	}
	if _, err := ParamNames(p.Kernel); err != nil {
		return bad("kernel", "%v", err)
	}
	if err := CheckTheta(p.Kernel, p.Theta); err != nil {
		return bad("theta", "%v", err)
	}
	switch p.Distance {
	case "auto", "euclidean", "great-circle", "gc":
	default:
		return bad("distance", "unknown distance %q (want euclidean, great-circle or auto)", p.Distance)
	}
	if err := anisoDistance(p.Kernel, p.Distance); err != nil {
		return bad("distance", "%v", err)
	}
	if key, err := p.Columns.Validate(); err != nil {
		return bad(key, "%v", err)
	}
	switch p.Scale {
	case "", ScaleOriginal, ScaleTransformed, ScaleBoth:
	default:
		return bad("scale", "--scale must be original, transformed or both, got %q", p.Scale)
	}
	if err := CheckMean(p.Mean); err != nil {
		return bad("mean", "%v", err)
	}
	switch {
	case p.NB < 0:
		return bad("nb", "--nb must be >= 0 (0: automatic), got %d", p.NB)
	case p.Workers < 0 || p.Workers > MaxWorkers:
		return bad("workers", "--workers must be in [0, %d] (0: one per core), got %d", MaxWorkers, p.Workers)
	case !(p.Nugget >= 0) || math.IsInf(p.Nugget, 0):
		return bad("nugget", "--nugget must be >= 0 and finite, got %g", p.Nugget)
	case HasTau2(p.Kernel, len(p.Theta)) && p.Nugget != 0 && p.Nugget != p.Theta[len(p.Theta)-1]:
		return bad("nugget", "--nugget %g disagrees with tau2 = %g, the %dth value of theta (leave --nugget out)", p.Nugget, p.Theta[len(p.Theta)-1], len(p.Theta))
	case p.Draws < 0 || p.Draws > 100000:
		return bad("draws", "--draws must be in [0, 100000], got %d", p.Draws)
	case p.Draws > 0 && p.CV:
		return bad("draws", "--draws goes with predict, not cv")
	case p.Folds < 0 || p.Folds == 1:
		return bad("folds", "--folds must be 0 (leave one out) or at least 2, got %d", p.Folds)
	case p.CV && p.Variance == VarianceLatent:
		return bad("variance", "cv compares predictions with observations: --variance latent goes with predict")
	case p.Folds > 0 && !p.CV:
		return bad("folds", "--folds goes with cv, not predict")
	case p.Variance != "" && p.Variance != VarianceObservation && p.Variance != VarianceLatent:
		return bad("variance", "--variance must be observation or latent, got %q", p.Variance)
	case p.Plot != "" && !p.CV:
		return bad("plot", "--plot goes with cv, not predict")
	}
	if err := CheckDPI(p.DPI); err != nil {
		return bad("dpi", "%v", err)
	}
	if err := p.checkDependents(bad); err != nil {
		return err
	}
	if err := p.Approx.Check(bad); err != nil {
		return err
	}
	if err := p.Vecchia.Check(p.Computation, bad); err != nil {
		return err
	}
	if err := p.checkVecchia(bad); err != nil {
		return err
	}
	if _, err := MemoryLimitBytes(p.MemoryLimit); err != nil {
		return bad("memory_limit", "%v", err)
	}
	if err := dirExists(p.Out); err != nil {
		return bad("out", "%v", err)
	}
	return nil
}

// CheckDPI checks a resolution of the PNG pictures: 0 (the default, 300)
// or a finite number of dots per inch in [10, 2400].
func CheckDPI(dpi float64) error {
	if dpi == 0 || (dpi >= 10 && dpi <= 2400) {
		return nil
	}
	return fmt.Errorf("--dpi must be in [10, 2400] dots per inch (0: 300), got %g", dpi)
}

// ParseCV returns the number of folds of a cross-validation setting: 0 for
// "loo" (leave one out), K >= 2 for "K".
func ParseCV(s string) (int, error) {
	if s == "loo" {
		return 0, nil
	}
	k, err := strconv.Atoi(s)
	if err != nil || k < 2 {
		return 0, fmt.Errorf("--cv must be loo or a number of folds >= 2, got %q", s)
	}
	return k, nil
}
