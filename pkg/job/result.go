package job

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/exageostat/exageostat/pkg/config"
)

// ReadFitResult reads a fit's JSON result (FitResult) from path, for
// predict --theta-from. Errors are bad input, one line starting with the
// path: a file that cannot be read, JSON that is not valid (a truncated
// file is reported as such, with the byte where it ends), JSON that is no
// fit result (not an object, a value of the wrong type, no theta), and a
// result predict cannot use: an unknown kernel or distance, a theta the
// kernel cannot take (config.CheckTheta), a negative nugget.
func ReadFitResult(path string) (*FitResult, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fitResultReadError(path, err)
	}
	return ParseFitResult(path, b)
}

// fitResultReadError is the error of a fit result that cannot be read.
func fitResultReadError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return &InputError{Err: &pathError{path: path, msg: "cannot open: " + pe.Err.Error(), err: err}}
	}
	return &InputError{Err: err}
}

// ReadFitResultWith reads the fit result at path with in (rank 0 reads,
// every rank parses the same bytes; flag names it in the run's record).
func ReadFitResultWith(in *Inputs, flag, path string) (*FitResult, error) {
	name, b, err := in.Read(flag, path)
	if err != nil {
		var ir *Interrupted
		if errors.As(err, &ir) {
			return nil, err
		}
		return nil, fitResultReadError(name, err)
	}
	return ParseFitResult(name, b)
}

// ParseFitResult reads a fit's JSON result from its content b (the file
// path, read already), as ReadFitResult does.
func ParseFitResult(path string, b []byte) (*FitResult, error) {
	if strings.TrimSpace(string(b)) == "" {
		return nil, badInput("%s: empty file (want the JSON result of fit --json)", path)
	}
	var r FitResult
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, badInput("%s: %s", path, jsonDefect(b, err, "fit result"))
	}
	if r.Theta == nil {
		return nil, badInput("%s: not a fit result (no theta)", path)
	}
	kernel := r.Kernel
	if kernel == "" {
		kernel = "matern"
	}
	if _, err := config.ParamNames(kernel); err != nil {
		return nil, badInput("%s: \"kernel\": %v", path, err)
	}
	if err := config.CheckTheta(kernel, r.Theta); err != nil {
		return nil, badInput("%s: \"theta\": %v", path, err)
	}
	switch r.Distance {
	case "", "auto", "euclidean", "great-circle", "gc":
	default:
		return nil, badInput("%s: \"distance\": unknown distance %q (want euclidean or great-circle)", path, r.Distance)
	}
	if err := config.CheckMean(r.Mean); err != nil {
		return nil, badInput("%s: \"mean\": %v", path, err)
	}
	if r.Columns != nil {
		if key, err := r.Columns.Validate(); err != nil {
			return nil, badInput("%s: \"columns\": %q: %v", path, key, err)
		}
	}
	if !(r.Nugget >= 0) {
		return nil, badInput("%s: \"nugget\": must be >= 0, got %g", path, r.Nugget)
	}
	return &r, nil
}

// jsonDefect describes why the JSON b did not decode (err) into what
// (e.g. "fit result"): JSON that is not valid (a truncated file is
// reported as such, with the byte where it ends), JSON that is not an
// object, or a value of the wrong type, named by its field.
func jsonDefect(b []byte, err error, what string) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case strings.Contains(err.Error(), "unexpected end of JSON input"):
		return fmt.Sprintf("not valid JSON (unexpected end at byte %d: the file is truncated)", len(b))
	case errors.As(err, &se):
		return fmt.Sprintf("not valid JSON (%s at byte %d)", oneLine(strings.TrimPrefix(se.Error(), "json: ")), se.Offset)
	case errors.As(err, &te) && te.Field == "":
		return fmt.Sprintf("not a %s (a JSON %s, not an object)", what, te.Value)
	case errors.As(err, &te):
		return fmt.Sprintf("not a %s (%q is a JSON %s, want %s)", what, te.Field, te.Value, te.Type)
	}
	return fmt.Sprintf("not a %s (%s)", what, oneLine(strings.TrimPrefix(err.Error(), "json: ")))
}

// pathError is an error about a file as a whole: "path: msg".
type pathError struct {
	path, msg string
	err       error
}

func (e *pathError) Error() string { return e.path + ": " + e.msg }
func (e *pathError) Unwrap() error { return e.err }

// oneLine joins the lines of s.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// distanceName is the name of a distance in results: "gc" is
// "great-circle".
func distanceName(d string) string {
	if d == "gc" {
		return "great-circle"
	}
	return d
}

// ApplyTo sets p's theta from the fit, and its kernel, mean model, nugget
// (the last value of theta when the fit estimated it, the fourth for
// matern, else "nugget") and
// distance
// (set reports whether the user gave a key). A kernel, mean, nugget or distance
// the user gave must be the fit's: the same value given again is fine,
// another is bad input naming both. A distance of "auto" is checked
// against the fit's once the data tell what it means (p.FitDistance).
func (r *FitResult) ApplyTo(p *config.Predict, path string, set func(key string) bool) error {
	if set("kernel") && r.Kernel != "" && r.Kernel != p.Kernel {
		return badInput("%s: --kernel %s disagrees with %s, which holds a %s fit (leave --kernel out)", p.Command(), p.Kernel, path, r.Kernel)
	}
	// A fit that estimated the nugget holds it as the last value of theta.
	theta, nugget := r.Theta, r.Nugget
	kernel := r.Kernel
	if kernel == "" {
		kernel = p.Kernel
	}
	if t := len(theta) - 1; config.HasTau2(kernel, len(theta)) {
		theta, nugget = theta[:t], theta[t]
	}
	if set("nugget") && p.Nugget != nugget {
		return badInput("%s: --nugget %g disagrees with the nugget %g of the fit in %s (leave --nugget out)", p.Command(), p.Nugget, nugget, path)
	}
	if set("mean") && meanName(p.Mean) != meanName(r.Mean) {
		return badInput("%s: --mean %s disagrees with the mean %s of the fit in %s (leave --mean out)", p.Command(), meanName(p.Mean), meanName(r.Mean), path)
	}
	if err := r.applyColumns(p, path, set); err != nil {
		return err
	}
	if r.Kernel != "" {
		p.Kernel = r.Kernel
	}
	p.Mean = meanName(r.Mean)
	p.Theta = theta
	p.Nugget = nugget
	fd := distanceName(r.Distance)
	switch {
	case !set("distance"):
		if fd != "" {
			p.Distance = fd
		}
	case fd == "" || fd == "auto":
	case p.Distance == "auto":
		p.FitDistance = fd
	case distanceName(p.Distance) != fd:
		return badInput("%s: --distance %s disagrees with the %s distance of the fit in %s (leave --distance out)", p.Command(), p.Distance, fd, path)
	}
	return nil
}

// applyColumns sets the keys z, coords, time, na, dec and crs of p that the
// user left out to the fit's (the data are read the same way), and the
// transform to the fit's: another transform given is bad input.
func (r *FitResult) applyColumns(p *config.Predict, path string, set func(key string) bool) error {
	var c config.Columns
	if r.Columns != nil {
		c = *r.Columns
	}
	fit, given := c.Transformation().String(), p.Transformation().String()
	if set("transform") && given != fit {
		return badInput("predict: --transform %s disagrees with the transform %q of the fit in %s (leave --transform out)", p.Transform, fit, path)
	}
	p.Transform = fit
	for _, k := range []struct {
		key      string
		dst, src *string
	}{{"z", &p.Z, &c.Z}, {"coords", &p.Coords, &c.Coords}, {"time", &p.Time, &c.Time}, {"na", &p.NA, &c.NA}, {"dec", &p.Dec, &c.Dec}, {"crs", &p.CRS, &c.CRS}} {
		if !set(k.key) {
			*k.dst = *k.src
		}
	}
	return nil
}
