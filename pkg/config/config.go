// Package config is the TOML schema of exageostat's commands: one struct per
// command whose keys mirror the command-line flags, with defaults and
// validation. Unknown keys are errors naming the key; a value of the wrong
// type names the file, line and key.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// Fit configures `exageostat fit`. A flag given on the command line overrides
// the key of the same name.
type Fit struct {
	Data         string    `toml:"data"`         // CSV with a header: x,y,z or lon,lat,z
	Locations    string    `toml:"locations"`    // headerless x,y file (with Observations)
	Observations string    `toml:"observations"` // one value per line
	Kernel       string    `toml:"kernel"`       // matern | powexp
	Distance     string    `toml:"distance"`     // euclidean | great-circle (auto: from the CSV header)
	Lower        []float64 `toml:"lb"`           // lower bounds of theta
	Upper        []float64 `toml:"ub"`           // upper bounds of theta
	Start        string    `toml:"start"`        // data | lower
	Search       string    `toml:"search"`       // log | linear (BOBYQA's scale), fisher (Fisher scoring: vecchia)
	Nugget       float64   `toml:"nugget"`       // tau2 on the diagonal
	Profile      string    `toml:"profile"`      // auto | on | off: sigma2 in closed form (auto: when it can be)
	Mean         string    `toml:"mean"`         // zero | constant | linear | COL1,COL2 (named columns of data)
	REML         bool      `toml:"reml"`         // restricted likelihood (with a mean)
	NB           int       `toml:"nb"`           // tile size (0: automatic)
	Workers      int       `toml:"workers"`      // 0: one per core
	// Pin is whether each CPU worker is pinned to one core of the
	// process's affinity mask (ranks of one node that share a mask split
	// it; the buffers a worker allocates go on its NUMA node where there
	// are several): on, off, or auto (the default: on when the machine is
	// quiet, its load average under half the CPUs of the mask; a pinned
	// worker on a loaded machine cannot move to a core another process
	// leaves, docs/scheduling.md).
	Pin string `toml:"pin"`
	// GPUs asks for that many GPU workers per rank (0: none): they run in
	// the CUDA build, which the plain binary hands over to after checking
	// for devices (pkg/gpu).
	GPUs int `toml:"gpus"`
	// Devices adds memory nodes with a worker each that need no GPU:
	// "host-test:N[:SIZE]" gives N host-test devices of SIZE bytes each
	// (suffix KiB, MiB or GiB; 1GiB if left out); "" none.
	Devices string `toml:"devices"`
	// Scheduler is the runtime's policy (Schedulers; StarPU's names):
	// prio (a free worker takes the highest-priority task it can run),
	// eager (the first ready), ws and lws (work stealing), dmda and dmdas
	// (a task goes to the worker that completes it first by the
	// performance model).
	Scheduler string `toml:"scheduler"`
	// PerfModel is a performance-model file (pkg/perfmodel): read, when
	// it exists, for dmda's expected durations, and written at the end
	// with this run's measured durations added.
	PerfModel string    `toml:"perfmodel"`
	Tolerance float64   `toml:"tolerance"`  // ftol_abs of the optimiser
	MaxEvals  int       `toml:"max_evals"`  // 0: no limit
	JSON      string    `toml:"json"`       // result file
	Trace     string    `toml:"trace"`      // trace file
	Holdout   int       `toml:"holdout"`    // hold out this many locations (seeded) and predict them
	TrueTheta []float64 `toml:"true_theta"` // with holdout: MLOE and MMOM against this theta
	StdErr    bool      `toml:"stderr"`     // standard errors from the Fisher information
	CI        string    `toml:"ci"`         // "profile": profile-likelihood intervals of the free parameters ("" or "none": none)
	CILevel   float64   `toml:"ci_level"`   // their level (0.95)
	Plot      string    `toml:"plot"`       // directory for pictures
	Grid      string    `toml:"grid"`       // NxM prediction grid for the maps
	Draws     int       `toml:"draws"`      // with grid: maps of this many conditional simulations of the field
	DPI       float64   `toml:"dpi"`        // resolution of the PNG pictures (0: 300)
	CV        string    `toml:"cv"`         // cross-validation at the estimate: "loo" or a number of folds ("": none)
	CVOut     string    `toml:"cv_out"`     // its per-point CSV
	ZName     string    `toml:"z_name"`     // the observed variable's name on the pictures ("" : z)
	Units     string    `toml:"units"`      // its units, written beside the name
	XYUnits   string    `toml:"xy_units"`   // the units of planar x and y on the map axes (e.g. m)
	Solve     string    `toml:"solve"`      // MPI runs: chained | per-rank | move-tiles
	// Approx: computation, tlr_accuracy, max_rank, mp_band.
	Approx
	// Columns: z, coords, time, na, dec and transform (how the data file
	// is read, and the transform the model is fitted on).
	Columns
	// Vecchia: vecchia_m, vecchia_order, vecchia_sets, vecchia_sets_out
	// (computation vecchia).
	Vecchia
	// VecchiaCheck runs the approximation check after a Vecchia fit
	// (default true): one Fisher-scoring step at VecchiaCheckM (0: twice
	// vecchia_m) from the estimate, reported in the fit's standard
	// errors (docs/vecchia.md, "The approximation check").
	VecchiaCheck  bool `toml:"vecchia_check"`
	VecchiaCheckM int  `toml:"vecchia_check_m"` // the check's conditioning set size (0: 2 vecchia_m)
	// VecchiaRefineM (0: off) refines a Vecchia fit whose check warns:
	// the search goes on at the check's m2 from the estimate, and checks
	// again at m2 times vecchia_check_m / vecchia_m, while the check's
	// m2 is at most VecchiaRefineM (docs/vecchia.md, "Refining m").
	VecchiaRefineM int `toml:"vecchia_refine_m"`
	// VecchiaSelect is how the final stage's conditioning sets are
	// chosen: nearest (the m nearest earlier locations, the default) or
	// greedy (m of the VecchiaCandidates nearest earlier locations, one at
	// a time by the largest Cov(y_i, y_c | y_S)^2 / Var(y_c | y_S) at the
	// coarse stage's estimate: docs/vecchia.md, "Greedy sets in the fit").
	VecchiaSelect string `toml:"vecchia_select"`
	// VecchiaCandidates is the greedy selection's K (0: 3 vecchia_m).
	VecchiaCandidates int `toml:"vecchia_candidates"`
	// Lookahead is the depth of seed 002's lookahead in the Cholesky of
	// tlr, mp and dst (0: off): the next panel runs before the trailing
	// update (likelihood.Approx.Lookahead).
	Lookahead int `toml:"lookahead"`
	// HPotrf is the sub-tile size of seed 002's hierarchical potrf of the
	// dense diagonal tiles of tlr, mp and dst (0: off).
	HPotrf      int    `toml:"hpotrf"`
	MemoryLimit string `toml:"memory_limit"` // bytes per rank, e.g. "2GB" (empty: what the node has)
	// Checkpoint is the file the fit rewrites (atomically) after every
	// evaluation: "" means the default (the resume file, else the json
	// path with the suffix .ckpt, else none), "none" disables it.
	Checkpoint string `toml:"checkpoint"`
	// Resume is a checkpoint to continue from: its evaluations are replayed
	// at no cost; one made from other data or settings is refused.
	Resume string `toml:"resume"`
	// Deadline is when the fit must have written its result: a duration
	// from the start ("45m"), a clock time ("17:30") or a date and time
	// (stop.ParseDeadline); "" takes the end of the Slurm job the fit
	// runs in, if any; "none" sets none.
	Deadline string `toml:"deadline"`
	// Used when no data is given: simulate N points with Theta and Seed.
	N     int       `toml:"n"`
	Theta []float64 `toml:"theta"`
	Seed  uint64    `toml:"seed"`
	// Times: for the space-time kernel, N/Times sites observed at times
	// 1 .. Times.
	Times int `toml:"times"`
	// Distribution of the tiles over the MPI ranks (ignored on one rank):
	// distribution, p, q, powers for the factorisation, as in a Cluster,
	// and a [generation] table for the generation phase.
	Phase
	Generation Phase `toml:"generation"`
	// Overlap switches the phase-overlap optimisations of every
	// likelihood evaluation (the [overlap] table, --overlap).
	Overlap Overlap `toml:"overlap"`
	// Cluster is a cluster file (see Cluster) whose [[group]] tables model
	// the ranks' nodes, for the distributions computed from them (lp,
	// bc-fast); its groups must hold as many nodes as there are ranks. A
	// relative path in a file is taken from the file's directory (as every
	// path key: PathKeys).
	Cluster string `toml:"cluster"`
	// ExcludeCPUOnly keeps the nodes without GPUs out of the factorisation
	// of distribution lp (they still generate tiles).
	ExcludeCPUOnly bool `toml:"exclude_cpu_only"`
	// File is the configuration file the values came from, for messages
	// (empty: the command line). It is not a key.
	File string `toml:"-"`
	// FileKeys holds the keys the file gave, with their lines (0: not
	// known), and FlagKeys the keys given on the command line, which
	// override the file's (LoadFit, SetFlags). They place the messages
	// of Validate and tell a key given from one left at its default.
	FileKeys map[string]int  `toml:"-"`
	FlagKeys map[string]bool `toml:"-"`
}

// Schedulers returns the values of the key scheduler: the runtime's
// schedulers (pkg/runtime's Schedulers, which a test keeps equal).
func Schedulers() []string { return []string{"eager", "prio", "ws", "lws", "dmda", "dmdas"} }

// DefaultFit returns the defaults: Matérn, bounds [0.001, 5]^3, data-driven
// start on a log scale, ftol_abs 1e-5, automatic tile size, and the embedded default
// problem N = 1600, theta = (1, 0.1, 0.5), seed 1.
func DefaultFit() Fit {
	return Fit{
		Kernel: "matern", Distance: "auto",
		Lower: []float64{0.001, 0.001, 0.001}, Upper: []float64{5, 5, 5},
		Start: "data", Search: "log", Profile: "auto", CILevel: 0.95, Mean: "zero", NB: 0, Tolerance: 1e-5, Solve: "chained",
		Approx:    DefaultApprox(),
		Vecchia:   DefaultVecchia(),
		Scheduler: "prio", Pin: "auto", VecchiaCheck: true, VecchiaSelect: "nearest",
		N: 1600, Theta: []float64{1, 0.1, 0.5}, Seed: 1,
		Phase: Phase{Distribution: "bc"}, Overlap: AllOverlap(),
	}
}

// Approx selects how the covariance's Cholesky factor is computed and
// held, for fit, predict and simulate (the keys of each command's table).
type Approx struct {
	// Computation is exact (the default), tlr (tile low-rank, seed 002),
	// mp (mixed precision) or dst (diagonal super-tile).
	Computation string  `toml:"computation"`
	TLRAccuracy float64 `toml:"tlr_accuracy"` // tlr: absolute Frobenius accuracy per tile
	MaxRank     int     `toml:"max_rank"`     // tlr: largest rank of a U V^T tile (0: nb/2)
	MPBand      int     `toml:"mp_band"`      // mp, dst: tile sub-diagonals kept in float64 (-1: 10 % of the tiles)
}

// DefaultApprox returns exact, with tlr_accuracy 1e-9, max_rank 0 (nb/2)
// and mp_band -1 (10 % of the tiles) for the others.
func DefaultApprox() Approx { return Approx{Computation: "exact", TLRAccuracy: 1e-9, MPBand: -1} }

// Approximate reports whether the computation is not exact.
func (a Approx) Approximate() bool { return a.Computation != "" && a.Computation != "exact" }

// Check returns, through bad (key, message), the first bad setting: an
// unknown computation, a tlr_accuracy not positive and finite, a negative
// max_rank, an mp_band below -1, and a setting of another computation
// (max_rank or tlr_accuracy without tlr, mp_band without mp or dst: they
// would do nothing).
func (a Approx) Check(bad func(key, format string, args ...any) error) error {
	switch a.Computation {
	case "", "exact", "tlr", "mp", "dst", "vecchia":
	default:
		return bad("computation", "--computation must be exact, tlr, mp, dst or vecchia, got %q", a.Computation)
	}
	d := DefaultApprox()
	switch {
	case !(a.TLRAccuracy > 0) || math.IsInf(a.TLRAccuracy, 0):
		return bad("tlr_accuracy", "--tlr-accuracy must be > 0 and finite, got %g", a.TLRAccuracy)
	case a.MaxRank < 0:
		return bad("max_rank", "--max-rank must be >= 0 (0: nb/2), got %d", a.MaxRank)
	case a.MPBand < -1:
		return bad("mp_band", "--mp-band must be >= 0, or -1 for the band holding 10 %% of the tiles, got %d", a.MPBand)
	case a.MaxRank != 0 && a.Computation != "tlr":
		return bad("max_rank", "--max-rank %d is for --computation tlr (the computation is %s)", a.MaxRank, a.name())
	case a.TLRAccuracy != d.TLRAccuracy && a.Computation != "tlr":
		return bad("tlr_accuracy", "--tlr-accuracy %g is for --computation tlr (the computation is %s)", a.TLRAccuracy, a.name())
	case a.MPBand != d.MPBand && a.Computation != "mp" && a.Computation != "dst":
		return bad("mp_band", "--mp-band %d is for --computation mp or dst (the computation is %s)", a.MPBand, a.name())
	}
	return nil
}

// Vecchia configures --computation vecchia (docs/vecchia.md): the
// ordering of the locations, the size of their conditioning sets, the
// sets file to read them from or write them to, and the grouping of the
// locations into blocks (fit's).
type Vecchia struct {
	M        int    `toml:"vecchia_m"`        // the m nearest earlier locations (default 30)
	Order    string `toml:"vecchia_order"`    // maxmin | random | coord | middleout
	Sets     string `toml:"vecchia_sets"`     // read the ordering and sets from this file
	SetsOut  string `toml:"vecchia_sets_out"` // write them to this file
	Grouping string `toml:"vecchia_grouping"` // blocks (Guinness's grouping; "" too) | none (one conditional per location)
}

// DefaultVecchia returns m = 30, the maxmin ordering and the grouping
// into blocks.
func DefaultVecchia() Vecchia { return Vecchia{M: 30, Order: "maxmin", Grouping: "blocks"} }

// VecchiaOrders are the orderings of vecchia_order, the default first.
var VecchiaOrders = []string{"maxmin", "random", "coord", "middleout"}

// Ungrouped reports vecchia_grouping none: the plain Vecchia likelihood,
// one conditional per location on its set (GpGp's
// vecchia_meanzero_loglik), instead of the grouped one.
func (v Vecchia) Ungrouped() bool { return v.Grouping == "none" }

// Check returns, through bad (key, message), the first bad setting of
// computation c: vecchia_m < 1, an unknown ordering or grouping,
// vecchia_sets_out the same file as vecchia_sets, and a setting other
// than its default without computation vecchia.
func (v Vecchia) Check(c string, bad func(key, format string, args ...any) error) error {
	d := DefaultVecchia()
	switch {
	case v.M < 1:
		return bad("vecchia_m", "--vecchia-m must be >= 1, got %d", v.M)
	case !slices.Contains(VecchiaOrders, v.Order):
		return bad("vecchia_order", "--vecchia-order must be maxmin, random, coord or middleout, got %q", v.Order)
	case v.Sets != "" && v.Sets == v.SetsOut:
		return bad("vecchia_sets_out", "--vecchia-sets-out %s is the file --vecchia-sets reads", v.SetsOut)
	case v.Grouping != "" && v.Grouping != "blocks" && v.Grouping != "none":
		return bad("vecchia_grouping", "--vecchia-grouping must be blocks or none, got %q", v.Grouping)
	case c == "vecchia":
		return nil
	case v.M != d.M:
		return bad("vecchia_m", "--vecchia-m is for --computation vecchia")
	case v.Order != d.Order:
		return bad("vecchia_order", "--vecchia-order is for --computation vecchia")
	case v.Sets != "":
		return bad("vecchia_sets", "--vecchia-sets is for --computation vecchia")
	case v.SetsOut != "":
		return bad("vecchia_sets_out", "--vecchia-sets-out is for --computation vecchia")
	case v.Ungrouped():
		return bad("vecchia_grouping", "--vecchia-grouping is for --computation vecchia")
	}
	return nil
}

func (a Approx) name() string {
	if a.Computation == "" {
		return "exact"
	}
	return a.Computation
}

// Error is a configuration error: the file, the line when known, the key
// when known, and what is wrong.
type Error struct {
	File string
	Line int
	Key  string
	Msg  string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Key != "" {
		fmt.Fprintf(&b, "key %q: ", e.Key)
	}
	b.WriteString(e.Msg)
	return b.String()
}

var typeErr = regexp.MustCompile(`^toml: line (\d+) \(last key "(.*?)"\): (.*)$`)

// Load decodes the TOML file path into v (a pointer to a struct of this
// package, already holding defaults): keys present in the file replace the
// defaults. Errors are *Error values naming the file, the line and the
// key: a syntax error, a value of the wrong type, an unknown key, and a
// negative value for an unsigned key such as seed (which TOML would
// otherwise wrap around to a huge number).
func Load(path string, v any) error {
	_, err := load(path, v)
	return err
}

// LoadKeys is Load that also returns the keys the file gave (tables'
// keys dotted: "generation.p"), each with its line (0: not found), and
// takes the relative paths the file gives for path keys (PathKeys) from
// the file's directory, as a file's own references should be.
func LoadKeys(path string, v any) (map[string]int, error) {
	keys, err := load(path, v)
	if err != nil {
		return nil, err
	}
	resolvePaths(v, filepath.Dir(path), keys)
	return keys, nil
}

// LoadFit loads a fit's configuration file over f (LoadKeys) and records
// it as f's File and FileKeys.
func LoadFit(path string, f *Fit) error {
	keys, err := LoadKeys(path, f)
	if err != nil {
		return err
	}
	f.File, f.FileKeys = path, keys
	return nil
}

// DecodeKeys is LoadKeys of the file's content b, read already (path
// names it in messages, and its directory anchors relative paths).
func DecodeKeys(path string, b []byte, v any) (map[string]int, error) {
	keys, err := decode(path, b, v)
	if err != nil {
		return nil, err
	}
	resolvePaths(v, filepath.Dir(path), keys)
	return keys, nil
}

// DecodeFit is LoadFit of the file's content b, read already.
func DecodeFit(path string, b []byte, f *Fit) error {
	keys, err := DecodeKeys(path, b, f)
	if err != nil {
		return err
	}
	f.File, f.FileKeys = path, keys
	return nil
}

// ReadError is the error of a configuration file that cannot be read
// (err, from the file system).
func ReadError(path string, err error) error {
	msg := err.Error()
	var pe *fs.PathError
	switch {
	case errors.Is(err, os.ErrNotExist):
		msg = "no such file"
	case errors.As(err, &pe):
		msg = "cannot read: " + pe.Err.Error()
	}
	return &Error{File: path, Msg: msg}
}

func load(path string, v any) (map[string]int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, ReadError(path, err)
	}
	return decode(path, b, v)
}

func decode(path string, b []byte, v any) (map[string]int, error) {
	src := string(b)
	md, err := toml.Decode(src, v)
	if err != nil {
		var pe toml.ParseError
		var ppe *toml.ParseError
		if errors.As(err, &ppe) {
			pe = *ppe
		}
		if ppe != nil || errors.As(err, &pe) {
			return nil, &Error{File: path, Line: pe.Position.Line, Key: pe.LastKey, Msg: oneLine(pe.Message)}
		}
		// Type mismatches come as "toml: line N (last key "k"): msg".
		if m := typeErr.FindStringSubmatch(err.Error()); m != nil {
			line, _ := strconv.Atoi(m[1])
			return nil, &Error{File: path, Line: line, Key: m[2], Msg: oneLine(m[3])}
		}
		return nil, &Error{File: path, Msg: oneLine(strings.TrimPrefix(err.Error(), "toml: "))}
	}
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, len(und))
		for i, k := range und {
			keys[i] = k.String()
		}
		sort.Strings(keys)
		return nil, &Error{File: path, Line: lineOf(src, keys[0]), Key: keys[0], Msg: "unknown key"}
	}
	lines := newLineIndex(src)
	keys := map[string]int{}
	for _, k := range md.Keys() {
		keys[k.String()] = lines.line(k.String())
	}
	// Negative values decoded into unsigned fields wrap around: read the
	// file again as plain values to find them.
	var raw map[string]any
	if _, err := toml.Decode(src, &raw); err == nil {
		if key, val := negativeUnsigned(reflect.TypeOf(v), raw, ""); key != "" {
			return nil, &Error{File: path, Line: lineOf(src, key), Key: key, Msg: fmt.Sprintf("must be >= 0, got %d", val)}
		}
	}
	return keys, nil
}

// oneLine joins the lines of a message (TOML's parse errors may hold
// several) so that every error is one line.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// negativeUnsigned returns the first key (dotted) whose field in t (a
// struct, or a pointer to one) is unsigned and whose value in raw is a
// negative integer, with that value.
func negativeUnsigned(t reflect.Type, raw map[string]any, prefix string) (string, int64) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return "", 0
	}
	for i := range t.NumField() {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("toml"), ",")
		if name == "-" || !sf.IsExported() {
			continue
		}
		if sf.Anonymous && name == "" {
			if k, v := negativeUnsigned(sf.Type, raw, prefix); k != "" {
				return k, v
			}
			continue
		}
		if name == "" {
			name = sf.Name
		}
		val, ok := raw[name]
		if !ok {
			for k, x := range raw { // TOML matches field names without case
				if strings.EqualFold(k, name) {
					val, ok = x, true
					break
				}
			}
		}
		if !ok {
			continue
		}
		ft := sf.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch ft.Kind() {
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			if n, isInt := val.(int64); isInt && n < 0 {
				return prefix + name, n
			}
		case reflect.Struct:
			if m, isMap := val.(map[string]any); isMap {
				if k, v := negativeUnsigned(ft, m, prefix+name+"."); k != "" {
					return k, v
				}
			}
		case reflect.Slice:
			if tables, isTables := val.([]map[string]any); isTables {
				for j, m := range tables {
					if k, v := negativeUnsigned(ft.Elem(), m, fmt.Sprintf("%s%s[%d].", prefix, name, j)); k != "" {
						return k, v
					}
				}
			}
		}
	}
	return "", 0
}

// PathKeys are the keys that name files or directories, in any command's
// configuration. A relative path given in a configuration file is taken
// from the file's directory (LoadKeys); one given by a flag stays relative
// to the working directory.
var PathKeys = []string{"data", "locations", "observations", "json", "trace", "plot", "cluster", "cv_out",
	"at", "out", "theta_from", "checkpoint", "resume", "svg", "perfmodel", "vecchia_sets", "vecchia_sets_out"}

// resolvePaths joins dir before the relative paths that keys (the ones
// the file gave) set in v's string fields named by PathKeys, top-level or
// in embedded tables (checkpoint = "none" is no path: it turns the
// checkpoint off).
func resolvePaths(v any, dir string, keys map[string]int) {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer {
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct || dir == "." || dir == "" {
		return
	}
	t := rv.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("toml"), ",")
		if sf.Anonymous && sf.Type.Kind() == reflect.Struct {
			resolvePaths(rv.Field(i).Addr().Interface(), dir, keys)
			continue
		}
		if sf.Type.Kind() != reflect.String || !sf.IsExported() || !slices.Contains(PathKeys, name) {
			continue
		}
		if _, given := keys[name]; !given {
			continue
		}
		fv := rv.Field(i)
		if p := fv.String(); p != "" && !filepath.IsAbs(p) && !(name == "checkpoint" && p == "none") {
			fv.SetString(filepath.Join(dir, p))
		}
	}
}

// lineOf returns the line of src that gives key, or 0 (lineIndex).
func lineOf(src, key string) int { return newLineIndex(src).line(key) }

// lineIndex finds the lines that give keys in a TOML source: a dotted key
// ("generation.p") in its table, a key of the i-th table of an array
// ("group[1].cpus") in the i-th [[group]], and a table at its header;
// without such a line, the first line that assigns the key's last part.
// It is built in one pass over the source.
type lineIndex struct {
	full  map[string]int // "table.key", "table[i].key", "key", "table" -> first line
	short map[string]int // a key's last part -> first line
}

func newLineIndex(src string) lineIndex {
	x := lineIndex{full: map[string]int{}, short: map[string]int{}}
	put := func(m map[string]int, k string, line int) {
		if _, ok := m[k]; !ok {
			m[k] = line
		}
	}
	table, indexed := "", ""
	count := map[string]int{}
	for i, l := range strings.Split(src, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "[") {
			h, _, _ := strings.Cut(l, "#")
			h = strings.TrimSpace(h)
			name := strings.TrimSpace(strings.Trim(h, "[]"))
			table, indexed = name, ""
			if strings.HasPrefix(h, "[[") {
				indexed = fmt.Sprintf("%s[%d]", name, count[name])
				count[name]++
			}
			put(x.full, name, i+1)
			if indexed != "" {
				put(x.full, indexed, i+1)
			}
			if j := strings.LastIndex(name, "."); j >= 0 {
				put(x.short, name[j+1:], i+1)
			}
			continue
		}
		k, _, ok := strings.Cut(l, "=")
		if !ok {
			continue
		}
		k = strings.Trim(strings.TrimSpace(k), `"'`)
		full := k
		if table != "" {
			full = table + "." + k
		}
		put(x.full, full, i+1)
		if indexed != "" {
			put(x.full, indexed+"."+k, i+1)
		}
		last := k
		if j := strings.LastIndex(k, "."); j >= 0 {
			last = k[j+1:]
		}
		put(x.short, last, i+1)
	}
	return x
}

func (x lineIndex) line(key string) int {
	if n, ok := x.full[key]; ok {
		return n
	}
	last := key
	if j := strings.LastIndex(key, "."); j >= 0 {
		last = key[j+1:]
	}
	return x.short[last]
}
