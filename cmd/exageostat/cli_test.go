package main

import (
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// cliCase is one command line of the bad-input table: it runs in a fresh
// directory holding the fixtures (cliFixtures) and the case's own files;
// "@name" in args stands for that directory's file name.
type cliCase struct {
	name   string
	defect int // the defect of issue 16 the case checks (0: none)
	args   []string
	files  map[string]string // extra files of the case (content)
	links  map[string]string // symbolic links of the case: name -> target
	env    []string
	code   int    // expected exit status (0 read as 2; ok for 0)
	ok     bool   // the command succeeds (exit status 0)
	want   string // a substring of stderr's one line (code 2), or of stderr/stdout (other codes)
	// lines allows stderr lines before the message (logs of a run that
	// started); by default stderr is exactly the one line.
	lines bool
	// writes lists the files the command may write (code 0); any other
	// change to the directory fails the case.
	writes []string
	// holds names written files and the substrings each must contain (a
	// JSON result's fields, say).
	holds map[string][]string
}

// cliFixtures are the files every case's directory starts with.
func cliFixtures() map[string]string {
	r := rand.New(rand.NewPCG(7, 7))
	var b strings.Builder
	b.WriteString("x,y,z\n")
	for i := range 60 {
		fmt.Fprintf(&b, "%g,%g,%g\n", float64(i%8)/8+r.Float64()/20, float64(i/8)/8+r.Float64()/20, r.NormFloat64())
	}
	return map[string]string{
		"d.csv":      b.String(),
		"at.csv":     "x,y\n0.5,0.5\n0.25,0.75\n",
		"r.json":     `{"kernel":"matern","distance":"euclidean","parameters":["sigma2","beta","nu"],"theta":[1,0.1,0.5],"nugget":0}` + "\n",
		"old.json":   "old\n",
		"l.txt":      "0.1 0.2\n0.5 0.1\n0.9 0.8\n0.3 0.7\n",
		"o.txt":      "1\n-0.3\n0.2\n0.5\n",
		"cl.toml":    "nodes = 2\n",
		"adir/.keep": "",
	}
}

// bivCSV is a small bivariate data file (x,y,z1,z2).
const bivCSV = "x,y,z1,z2\n0.1,0.2,1,0.5\n0.5,0.1,2,-1\n0.9,0.8,1,0.2\n0.3,0.7,0.4,1\n0.6,0.4,-1,2\n"

// badInputCases is the table: bad arguments, flags, configuration files
// and data files over every command, each with its exit status (2) and
// message, and the cases of the defects of issue 16.
func badInputCases() []cliCase {
	dup := "x,y,z\n0.1,0.2,1\n0.5,0.1,2\n0.1,0.2,3\n0.7,0.7,1\n"
	return []cliCase{
		// fit: flags.
		{name: "fit nb negative", defect: 9, args: []string{"fit", "--nb", "-1"}, want: `fit: key "nb": must be >= 0`},
		{name: "fit workers negative", defect: 9, args: []string{"fit", "--workers", "-1"}, want: `fit: key "workers": must be in [0, 4096] (0: one per core), got -1`},
		{name: "fit draws without a grid", args: []string{"fit", "--draws", "1"}, want: `fit: key "draws": --draws maps conditional simulations on the prediction grid: it needs --plot DIR and --grid NxM`},
		{name: "fit draws too many", args: []string{"fit", "--draws", "21"}, want: `fit: key "draws": --draws must be in [0, 20]`},
		{name: "fit gpus negative", args: []string{"fit", "--gpus", "-1"}, want: `fit: key "gpus": must be in [0, 64]`},
		{name: "fit devices unknown", args: []string{"fit", "--devices", "gpu:1"}, want: `fit: key "devices": unknown device kind "gpu" in "gpu:1"`},
		{name: "fit devices count", args: []string{"fit", "--devices", "host-test:0"}, want: `fit: key "devices": "host-test:0": the number of devices must be in [1, 8]`},
		{name: "fit devices size", args: []string{"fit", "--devices", "host-test:1:lots"}, want: `fit: key "devices": "host-test:1:lots": the size: "lots" is not a size in bytes (e.g. 2GB, 512MiB)`},
		{name: "fit scheduler", args: []string{"fit", "--scheduler", "heft"}, want: `fit: key "scheduler": must be one of eager, prio, ws, lws, dmda, dmdas, got "heft"`},
		{name: "fit perfmodel not a model", args: []string{"fit", "--perfmodel", "@o.txt", "--max-evals", "1"}, want: `fit: --perfmodel: `},
		// No GPU on these machines (CI, the development machines): with or
		// without the driver's library (make cuda-check installs it).
		{name: "fit gpus without a device", args: []string{"fit", "--gpus", "1"}, want: `fit: --gpus 1: no CUDA `},
		{name: "fit gpus not a driver", args: []string{"fit", "--gpus", "1"}, env: []string{"EXAGEOSTAT_LIBCUDA=libc.so.6"},
			want: `fit: --gpus 1: no CUDA driver: libcuda.so.1 has no cuInit/cuDeviceGetCount`},
		{name: "fit gpus in a config", args: []string{"fit", "--config", "@g.toml"}, files: map[string]string{"g.toml": "gpus = 2\n"},
			env: []string{"EXAGEOSTAT_LIBCUDA=/nonexistent/libcuda.so.1"}, want: `fit: --gpus 2: no CUDA driver: libcuda.so.1 (the NVIDIA driver's library) cannot be loaded`},
		{name: "fit lb count", defect: 9, args: []string{"fit", "--lb", "1,2"}, want: `fit: key "lb": bounds need 3 values each`},
		{name: "fit ub count", defect: 9, args: []string{"fit", "--ub", "1,1"}, want: `fit: key "ub": bounds need 3 values each`},
		{name: "fit lb zero", args: []string{"fit", "--lb", "0,0.1,0.1"}, want: `key "lb": bounds of sigma2 must be positive`},
		{name: "fit tau2 bounds and nugget", args: []string{"fit", "--lb", "0.1,0.1,0.1,0.1", "--ub", "1,1,1,1", "--nugget", "0.1"}, want: `key "nugget": the nugget is the fourth parameter`},
		{name: "fit profile word", args: []string{"fit", "--profile", "yes"}, want: `key "profile": profile must be auto, on or off`},
		{name: "fit profile on fixed nugget", args: []string{"fit", "--profile", "on", "--nugget", "0.1"}, want: `key "profile": --profile on: a fixed nugget`},
		{name: "fit mean word", args: []string{"fit", "--mean", "quadratic!"}, want: `key "mean": mean must be zero, constant, linear or covariate column names`},
		{name: "fit reml zero mean", args: []string{"fit", "--reml"}, want: `key "reml": --reml needs a mean model`},
		{name: "fit mean column missing", args: []string{"fit", "--data", "@d.csv", "--mean", "elev"}, want: `d.csv: mean: no column "elev"`},
		{name: "predict mean column missing at", args: []string{"predict", "--data", "@e.csv", "--at", "@at.csv", "--out", "@p.csv", "--theta", "1,0.1,0.5,0.1", "--mean", "elev"},
			files: map[string]string{"e.csv": "x,y,z,elev\n0.1,0.2,1,3\n0.5,0.1,2,4\n0.9,0.8,1,2\n"}, want: `at.csv: mean: no column "elev"`},
		{name: "fit lb above ub", args: []string{"fit", "--lb", "2,1,1", "--ub", "1,5,5"}, want: `key "lb": lower bound of sigma2 (2) is above its upper bound (1)`},
		{name: "fit lb not a number", args: []string{"fit", "--lb", "x,1,1"}, want: `fit: --lb: "x" is not a number`},
		{name: "fit powers not a number", args: []string{"fit", "--powers", "1,y"}, want: `fit: --powers: "y" is not a number`},
		{name: "predict theta not a number", args: []string{"predict", "--data", "@d.csv", "--at", "@at.csv", "--out", "@p.csv", "--theta", "1,x,0.5"},
			want: `predict: --theta: "x" is not a number`},
		{name: "cv theta not a number", args: []string{"cv", "--data", "@d.csv", "--theta", "1,x,0.5", "--out", "@l.csv"}, want: `cv: --theta: "x" is not a number`},
		{name: "simulate theta not a number", args: []string{"simulate", "--n", "10", "--theta", "1,x,0.5", "--out", "@s.csv"}, want: `simulate: --theta: "x" is not a number`},
		{name: "bench tlr theta not a number", args: []string{"bench", "tlr", "--theta", "1,x,0.5"}, want: `bench tlr: --theta: "x" is not a number`},
		{name: "fit start outside", args: []string{"fit", "--start", "1,9,1"}, want: `key "start": start beta = 9 is outside its bounds`},
		{name: "fit start word", args: []string{"fit", "--start", "banana"}, want: `key "start": want data, lower or values`},
		{name: "fit search", args: []string{"fit", "--search", "grid"}, want: `key "search": search must be log, linear, fisher or bobyqa`},
		{name: "fit ci", args: []string{"fit", "--ci", "wald"}, want: `fit: key "ci": --ci must be profile or none, got "wald"`},
		{name: "fit ci level", args: []string{"fit", "--ci", "profile", "--ci-level", "1.5"}, want: `fit: key "ci_level": --ci-level must be in (0, 1), got 1.5`},
		{name: "fit tolerance", args: []string{"fit", "--tolerance", "0"}, want: `key "tolerance": must be > 0`},
		{name: "fit nugget", args: []string{"fit", "--nugget", "-1"}, want: `key "nugget": must be >= 0`},
		{name: "fit max evals", args: []string{"fit", "--max-evals", "-1"}, want: `key "max_evals": must be >= 0`},
		{name: "fit holdout negative", args: []string{"fit", "--holdout", "-3"}, want: `key "holdout": must be >= 0`},
		{name: "fit holdout too many", args: []string{"fit", "--data", "@d.csv", "--holdout", "59"}, want: "--holdout"},
		{name: "fit solve", args: []string{"fit", "--solve", "fast"}, want: `key "solve": --solve must be chained, per-rank or move-tiles`},
		{name: "fit computation", args: []string{"fit", "--computation", "fast"}, want: `key "computation": --computation must be exact, tlr, mp, dst or vecchia`},
		{name: "fit max rank without tlr", args: []string{"fit", "--computation", "mp", "--max-rank", "20"}, want: `key "max_rank": --max-rank 20 is for --computation tlr (the computation is mp)`},
		{name: "fit accuracy without tlr", args: []string{"fit", "--tlr-accuracy", "1e-6"}, want: `key "tlr_accuracy": --tlr-accuracy 1e-06 is for --computation tlr (the computation is exact)`},
		{name: "fit band without mp", args: []string{"fit", "--computation", "tlr", "--mp-band", "1"}, want: `key "mp_band": --mp-band 1 is for --computation mp or dst (the computation is tlr)`},
		{name: "predict computation", args: []string{"predict", "--data", "@d.csv", "--at", "@d.csv", "--theta", "1,0.1,0.5", "--out", "@p.csv", "--computation", "hodlr"},
			want: `predict: key "computation": --computation must be exact, tlr, mp, dst or vecchia, got "hodlr"`},
		{name: "predict max rank without tlr", args: []string{"predict", "--data", "@d.csv", "--at", "@d.csv", "--theta", "1,0.1,0.5", "--out", "@p.csv", "--max-rank", "8"},
			want: `predict: key "max_rank": --max-rank 8 is for --computation tlr (the computation is exact)`},
		{name: "simulate max rank too small", args: []string{"simulate", "--n", "400", "--nb", "100", "--out", "@s.csv", "--computation", "tlr", "--max-rank", "20"},
			want: `tile (1,0): tile needs rank 52 above the maximum rank 20 (low-rank 100x100 (rank <= 20)); raise --max-rank`},
		{name: "simulate computation", args: []string{"simulate", "--out", "@s.csv", "--computation", "low"}, want: `simulate: key "computation": --computation must be exact, tlr, mp, dst or vecchia, got "low"`},
		{name: "simulate band without mp", args: []string{"simulate", "--out", "@s.csv", "--mp-band", "2"}, want: `simulate: key "mp_band": --mp-band 2 is for --computation mp or dst (the computation is exact)`},
		{name: "fit tlr accuracy", args: []string{"fit", "--computation", "tlr", "--tlr-accuracy", "0"}, want: `key "tlr_accuracy": --tlr-accuracy must be > 0`},
		{name: "fit max rank", args: []string{"fit", "--max-rank", "-3"}, want: `key "max_rank": --max-rank must be >= 0`},
		{name: "fit mp band", args: []string{"fit", "--computation", "mp", "--mp-band", "-2"}, want: `key "mp_band": --mp-band must be >= 0`},
		{name: "fit lookahead", args: []string{"fit", "--computation", "tlr", "--lookahead", "-1"}, want: `key "lookahead": --lookahead must be >= 0`},
		{name: "fit hpotrf", args: []string{"fit", "--computation", "tlr", "--hpotrf", "-8"}, want: `key "hpotrf": --hpotrf must be >= 0`},
		{name: "fit lookahead exact", args: []string{"fit", "--lookahead", "1"}, want: `key "lookahead": --lookahead is for --computation tlr, mp or dst`},
		{name: "bench tlr-opt hpotrf", args: []string{"bench", "tlr-opt", "--hpotrf", "x"}, want: `bench tlr-opt: --hpotrf: "x" is not an integer`},
		{name: "fit kernel", args: []string{"fit", "--kernel", "gauss"}, want: `key "kernel": unknown kernel "gauss"`},
		{name: "fit distance", args: []string{"fit", "--data", "@d.csv", "--distance", "manhattan"}, want: `unknown distance "manhattan"`},
		{name: "fit n", args: []string{"fit", "--n", "2"}, want: `key "n": --n must be >= 3`},
		{name: "fit theta", args: []string{"fit", "--theta", "1,-0.1,0.5"}, want: `key "theta": beta must be positive`},
		{name: "fit grid without plot", args: []string{"fit", "--grid", "10x10"}, want: `key "grid": --grid needs --plot`},
		{name: "fit dpi", args: []string{"fit", "--plot", "@plots", "--dpi", "5"}, want: `key "dpi": --dpi must be in [10, 2400] dots per inch (0: 300), got 5`},
		{name: "cv dpi", args: []string{"cv", "--data", "@d.csv", "--theta", "1,0.1,0.5", "--plot", "@plots", "--dpi", "3000", "--out", "@l.csv"},
			want: `key "dpi": --dpi must be in [10, 2400] dots per inch (0: 300), got 3000`},
		{name: "fit cv without cv-out", args: []string{"fit", "--data", "@d.csv", "--cv", "loo"}, want: `key "cv_out": --cv needs --cv-out FILE`},
		{name: "fit cv-out without cv", args: []string{"fit", "--data", "@d.csv", "--cv-out", "@c.csv"}, want: `key "cv_out": --cv-out needs --cv loo or --cv K`},
		{name: "fit cv one fold", args: []string{"fit", "--data", "@d.csv", "--cv", "1", "--cv-out", "@c.csv"}, want: `key "cv": --cv must be loo or a number of folds >= 2, got "1"`},
		{name: "fit cv without data", args: []string{"fit", "--cv", "loo", "--cv-out", "@c.csv"}, want: `key "cv": --cv needs --data`},
		{name: "fit grid format", args: []string{"fit", "--plot", "@plots", "--grid", "1x1"}, want: `key "grid": --grid must be NxM`},
		{name: "fit true theta without holdout", args: []string{"fit", "--true-theta", "1,0.1,0.5"}, want: "--true-theta needs --holdout"},
		{name: "fit memory limit", args: []string{"fit", "--memory-limit", "lots"}, want: `key "memory_limit": "lots" is not a size in bytes`},
		{name: "fit stray argument", args: []string{"fit", "extra"}, want: `unexpected argument "extra"`},
		{name: "fit flag type", args: []string{"fit", "--nb", "ten"}, want: `invalid argument "ten" for "--nb"`},
		{name: "fit unknown flag", args: []string{"fit", "--bogus"}, want: "unknown flag: --bogus"},
		{name: "fit cluster missing", args: []string{"fit", "--cluster", "@none.toml"}, want: "none.toml: no such file"},
		{name: "fit resume missing", args: []string{"fit", "--data", "@d.csv", "--resume", "@none.ckpt"}, want: "none.ckpt: cannot read"},

		// fit: data files.
		{name: "data missing", args: []string{"fit", "--data", "@nope.csv"}, want: "nope.csv: cannot open: no such file"},
		{name: "data malformed row", args: []string{"fit", "--data", "@bad.csv"}, files: map[string]string{"bad.csv": "x,y,z\n0.1,0.2,1\n0.5,oops,2\n"},
			want: `bad.csv:3: y: cannot parse "oops" as a number`},
		{name: "data NaN", args: []string{"fit", "--data", "@nan.csv", "--na", "error"}, files: map[string]string{"nan.csv": "x,y,z\n0.1,0.2,NaN\n0.5,0.1,2\n0.7,0.7,1\n"}, want: `nan.csv:2: z is missing ("NaN") (--na drop drops such rows)`},
		{name: "data NaN dropped", args: []string{"fit", "--data", "@nan.csv"}, files: map[string]string{"nan.csv": "x,y,z\n0.1,0.2,NaN\n0.5,0.1,2\n0.7,0.7,1\n"}, want: `nan.csv: need at least 3 locations, got 2 (1 row dropped for a missing value)`, lines: true},
		{name: "fit na", args: []string{"fit", "--data", "@d.csv", "--na", "keep"}, want: `key "na": --na must be drop or error, got "keep"`},
		{name: "fit transform", args: []string{"fit", "--data", "@d.csv", "--transform", "exp"}, want: `key "transform": unknown transform "exp" (want log, log1p, sqrt or boxcox:LAMBDA)`},
		{name: "fit transform domain", args: []string{"fit", "--data", "@d.csv", "--transform", "log"}, want: `d.csv: --transform log: data row `},
		{name: "fit coords count", args: []string{"fit", "--data", "@d.csv", "--coords", "x"}, want: `key "coords": --coords "x": give two columns X,Y or three X,Y,Z`},
		{name: "fit dec", args: []string{"fit", "--data", "@d.csv", "--dec", ";"}, want: `key "dec": --dec must be . or ,`},
		{name: "predict scale", args: []string{"predict", "--data", "@d.csv", "--at", "@at.csv", "--out", "p.csv", "--theta", "1,0.1,0.5", "--scale", "log"}, want: `key "scale": --scale must be original, transformed or both, got "log"`},
		{name: "data Inf", args: []string{"fit", "--data", "@inf.csv"}, files: map[string]string{"inf.csv": "x,y,z\n0.1,0.2,1\n0.5,Inf,2\n"}, want: "inf.csv:3: y is +Inf"},
		{name: "data out of range", args: []string{"fit", "--data", "@big.csv"}, files: map[string]string{"big.csv": "x,y,z\n1e999,0,0\n"}, want: `big.csv:2: x value "1e999" is out of range`},
		{name: "data too few", args: []string{"fit", "--data", "@two.csv"}, files: map[string]string{"two.csv": "x,y,z\n0.1,0.2,1\n0.5,0.1,2\n"}, want: "two.csv: need at least 3 locations, got 2"},
		{name: "data duplicates", defect: 5, args: []string{"fit", "--data", "@dup.csv"}, files: map[string]string{"dup.csv": dup},
			want: "duplicate locations at rows 1 and 3: the covariance matrix is singular without a nugget (estimate one: fit with a 4th value in --lb and --ub"},
		{name: "data header", args: []string{"fit", "--data", "@h.csv"}, files: map[string]string{"h.csv": "a,b,c\n1,2,3\n"}, want: `h.csv:1: header "a,b,c": no coordinate columns`},
		{name: "data empty", args: []string{"fit", "--data", "@e.csv"}, files: map[string]string{"e.csv": ""}, want: "e.csv: empty file"},
		{name: "data field count", args: []string{"fit", "--data", "@f.csv"}, files: map[string]string{"f.csv": "x,y,z\n1,2,3\n4,5\n"}, want: "f.csv:3: expected 3 fields, got 2"},
		{name: "data without z", args: []string{"fit", "--data", "@at.csv"}, want: "fit: at.csv has no observations (a column z, value or obs, or one named by --z)"},
		{name: "data latitude", args: []string{"fit", "--data", "@g.csv"}, files: map[string]string{"g.csv": "lon,lat,z\n10,95,1\n11,20,2\n12,21,3\n"}, want: "latitude 95 outside [-90, 90]"},
		{name: "data long line", args: []string{"fit", "--data", "@long.csv"}, files: map[string]string{"long.csv": "x,y,z\n" + strings.Repeat("1", 1<<21) + "\n"}, want: "long.csv:2: line longer than"},
		{name: "pair without observations", args: []string{"fit", "--locations", "@l.txt"}, want: `key "observations": --locations and --observations go together`},
		{name: "pair counts", args: []string{"fit", "--locations", "@l.txt", "--observations", "@o3.txt"}, files: map[string]string{"o3.txt": "1\n2\n3\n"},
			want: "o3.txt: 3 observations but"},

		// Defect 8: conflicting inputs.
		{name: "data with pair", defect: 8, args: []string{"fit", "--data", "@d.csv", "--locations", "@l.txt", "--observations", "@o.txt"},
			want: `fit: key "locations": --data and --locations/--observations both give the data`},
		{name: "data with missing pair", defect: 8, args: []string{"fit", "--data", "@d.csv", "--observations", "@none.txt"},
			want: `key "observations": --data and --locations/--observations both give the data`},
		{name: "data with n", defect: 8, args: []string{"fit", "--data", "@d.csv", "--n", "100"}, want: `fit: key "n": --n is the number of simulated locations: it does nothing with --data`},
		{name: "data with theta", defect: 8, args: []string{"fit", "--data", "@d.csv", "--theta", "1,0.1,0.5"}, want: `fit: key "theta": --theta is the true theta of the simulated default problem`},
		{name: "data with seed", defect: 8, args: []string{"fit", "--data", "@d.csv", "--seed", "3"}, want: `fit: key "seed": --seed is the seed of the simulated default problem`},
		{name: "pair with theta", defect: 8, args: []string{"fit", "--locations", "@l.txt", "--observations", "@o.txt", "--theta", "1,0.1,0.5"}, want: "it does nothing with --locations"},
		{name: "theta-from nugget", defect: 8, args: []string{"predict", "--data", "@d.csv", "--at", "@at.csv", "--out", "@p.csv", "--theta-from", "@r.json", "--nugget", "0.5"},
			want: "predict: --nugget 0.5 disagrees with the nugget 0 of the fit in"},
		{name: "theta-from distance", defect: 8, args: []string{"predict", "--data", "@d.csv", "--at", "@at.csv", "--out", "@p.csv", "--theta-from", "@r.json", "--distance", "great-circle"},
			want: "predict: --distance great-circle disagrees with the euclidean distance of the fit in"},
		{name: "theta-from kernel", defect: 8, args: []string{"predict", "--data", "@d.csv", "--at", "@at.csv", "--out", "@p.csv", "--theta-from", "@r.json", "--kernel", "powexp"},
			want: "predict: --kernel powexp disagrees with"},
		{name: "theta-from auto distance", defect: 8, args: []string{"predict", "--data", "@ll.csv", "--at", "@llat.csv", "--out", "@p.csv", "--theta-from", "@r.json", "--distance", "auto"},
			files: map[string]string{"ll.csv": "lon,lat,z\n10,20,1\n11,21,2\n12,20,3\n", "llat.csv": "lon,lat\n10.5,20.5\n"},
			want:  "predict: --distance auto gives great-circle distances for"},

		// Defect 7: outputs checked before the work.
		{name: "json onto data", defect: 7, args: []string{"fit", "--data", "@d.csv", "--json", "@d.csv"}, want: "fit: --json d.csv: is the --data file"},
		{name: "json onto data by link", defect: 7, args: []string{"fit", "--data", "@d.csv", "--json", "@link.json"}, links: map[string]string{"link.json": "d.csv"},
			want: "fit: --json link.json: is the --data file"},
		{name: "json unwritable", defect: 7, args: []string{"fit", "--data", "@d.csv", "--json", "/proc/exageostat-r.json"}, want: "fit: --json /proc/exageostat-r.json: cannot be written"},
		{name: "trace unwritable", defect: 7, args: []string{"fit", "--data", "@d.csv", "--trace", "/proc/exageostat-t.json"}, want: "fit: --trace /proc/exageostat-t.json: cannot be written"},
		{name: "trace directory missing", defect: 7, args: []string{"fit", "--data", "@d.csv", "--trace", "@nodir/t.json"}, want: "directory nodir does not exist"},
		{name: "json is a directory", defect: 7, args: []string{"fit", "--data", "@d.csv", "--json", "@adir"}, want: "fit: --json adir: cannot be written: is a directory"},
		{name: "json and trace one file", defect: 7, args: []string{"fit", "--data", "@d.csv", "--json", "@x.json", "--trace", "@x.json"}, want: "fit: --trace x.json: is also the --json output"},
		{name: "plot onto data", defect: 7, args: []string{"fit", "--data", "@d.csv", "--plot", "@d.csv"}, want: "fit: --plot d.csv: is the --data file"},
		{name: "plot unwritable", defect: 7, args: []string{"fit", "--data", "@d.csv", "--plot", "/proc/exageostat-plots"}, want: "fit: --plot /proc/exageostat-plots: cannot be written"},
		{name: "checkpoint onto data", defect: 7, args: []string{"fit", "--data", "@d.csv", "--checkpoint", "@d.csv"}, want: "fit: --checkpoint d.csv: is the --data file"},
		{name: "json onto locations", defect: 7, args: []string{"fit", "--locations", "@l.txt", "--observations", "@o.txt", "--json", "@l.txt"}, want: "is the --locations file"},
		{name: "predict out onto data", defect: 7, args: []string{"predict", "--data", "@d.csv", "--at", "@at.csv", "--out", "@d.csv", "--theta", "1,0.1,0.5"}, want: "predict: --out d.csv: is the --data file"},
		{name: "predict out onto at", defect: 7, args: []string{"predict", "--data", "@d.csv", "--at", "@at.csv", "--out", "@at.csv", "--theta", "1,0.1,0.5"}, want: "predict: --out at.csv: is the --at file"},
		{name: "predict out onto theta-from", defect: 7, args: []string{"predict", "--data", "@d.csv", "--at", "@at.csv", "--out", "@r.json", "--theta-from", "@r.json"}, want: "is the --theta-from file"},
		{name: "predict out unwritable", defect: 7, args: []string{"predict", "--data", "@d.csv", "--at", "@at.csv", "--out", "/proc/exageostat-p.csv", "--theta", "1,0.1,0.5"}, want: "predict: --out /proc/exageostat-p.csv: cannot be written"},
		{name: "simulate out unwritable", defect: 7, args: []string{"simulate", "--out", "/proc/exageostat-s.csv", "--n", "50"}, want: "simulate: --out /proc/exageostat-s.csv: cannot be written"},
		{name: "simulate out directory", defect: 7, args: []string{"simulate", "--out", "@adir", "--n", "50"}, want: "simulate: --out adir: cannot be written: is a directory"},
		{name: "plan svg unwritable", defect: 7, args: []string{"plan", "--n", "100", "--nb", "10", "--nodes", "2", "--svg", "/proc/exageostat-p.svg"}, want: "plan: --svg /proc/exageostat-p.svg: cannot be written"},
		{name: "plan svg onto config", defect: 7, args: []string{"plan", "--n", "100", "--nb", "10", "--config", "@cl.toml", "--svg", "@cl.toml"}, want: "plan: --svg cl.toml: is the --config file"},
		{name: "calibrate out unwritable", defect: 7, args: []string{"calibrate", "--nb", "8", "--reps", "1", "--out", "/proc/exageostat-c.toml"}, want: "calibrate: --out /proc/exageostat-c.toml: cannot be written"},
		{name: "simulate-cluster trace onto config", defect: 7, args: []string{"simulate-cluster", "--config", "@g.toml", "--n", "100", "--nb", "50", "--trace", "@g.toml"},
			files: map[string]string{"g.toml": "nb = 50\n[[group]]\nname = \"a\"\nnodes = 1\ncpus = 1\n[group.cpu]\ndcmg = 0.01\npotrf = 0.01\ntrtri = 0.01\ntrmm = 0.01\nsyrk = 0.01\ngemm = 0.01\nzcpy = 0.01\ndet = 0.01\ntrsv = 0.01\ngemv = 0.01\ngeadd = 0.01\ndot = 0.01\n"},
			want:  "simulate-cluster: --trace g.toml: is the --config file"},

		// Configuration files (defect 9: seed = -1, relative paths).
		{name: "config unknown key", args: []string{"fit", "--config", "@c.toml"}, files: map[string]string{"c.toml": "nb = 100\nbogus = 1\n"}, want: `c.toml:2: key "bogus": unknown key`},
		{name: "config seed negative", defect: 9, args: []string{"fit", "--config", "@c.toml"}, files: map[string]string{"c.toml": "n = 100\nseed = -1\n"}, want: `c.toml:2: key "seed": must be >= 0, got -1`},
		{name: "config type", args: []string{"fit", "--config", "@c.toml"}, files: map[string]string{"c.toml": "nb = \"big\"\n"}, want: `c.toml:1: key "nb": incompatible types`},
		{name: "config syntax", args: []string{"fit", "--config", "@c.toml"}, files: map[string]string{"c.toml": "n = 100\nlb = [1, 2\n"}, want: "c.toml:"},
		{name: "config value", args: []string{"fit", "--config", "@c.toml"}, files: map[string]string{"c.toml": "n = 100\nsearch = \"grid\"\n"}, want: `c.toml:2: key "search": search must be log, linear, fisher or bobyqa`},
		{name: "config nb negative", defect: 9, args: []string{"fit", "--config", "@c.toml"}, files: map[string]string{"c.toml": "n = 100\nnb = -5\n"}, want: `c.toml:2: key "nb": must be >= 0`},
		{name: "config flag over file", args: []string{"fit", "--config", "@c.toml", "--nb", "-3"}, files: map[string]string{"c.toml": "nb = 10\n"}, want: `fit: key "nb": must be >= 0 (0: automatic), got -3`},
		{name: "config missing", args: []string{"fit", "--config", "@none.toml"}, want: "none.toml: no such file"},
		{name: "config path from its directory", defect: 9, args: []string{"fit", "--config", "@sub/c.toml"},
			files: map[string]string{"sub/c.toml": "data = \"d.csv\"\n", "sub/d.csv": "x,y,z\n1,2,3\n4,x,6\n"}, want: "sub/d.csv:3: y: cannot parse"},
		{name: "config data with n", defect: 8, args: []string{"fit", "--config", "@c.toml"}, files: map[string]string{"c.toml": "data = \"d.csv\"\nn = 100\n"}, want: `c.toml:2: key "n": --n is the number of simulated locations`},
		{name: "config json onto data", defect: 7, args: []string{"fit", "--config", "@sub/c.toml"}, files: map[string]string{"sub/c.toml": "data = \"../d.csv\"\njson = \"../d.csv\"\n"},
			want: `sub/c.toml:2: key "json": d.csv: is the --data file`},
		{name: "config json unwritable", defect: 7, args: []string{"fit", "--config", "@c.toml"}, files: map[string]string{"c.toml": "n = 50\njson = \"/proc/exageostat-r.json\"\n"},
			want: `c.toml:2: key "json": /proc/exageostat-r.json: cannot be written`},
		{name: "cluster file of a fit", args: []string{"fit", "--cluster", "@c.toml"}, files: map[string]string{"c.toml": "nodes = 0\n"}, want: `c.toml: key "nodes": must be in [1, 1048576], got 0`},

		// predict.
		{name: "predict missing out", args: []string{"predict", "--data", "@d.csv", "--at", "@at.csv", "--theta", "1,0.1,0.5"}, want: "predict: --data, --at and --out are required"},
		{name: "predict theta twice", args: []string{"predict", "--data", "@d.csv", "--at", "@at.csv", "--out", "@p.csv", "--theta", "1,0.1,0.5", "--theta-from", "@r.json"},
			want: "give exactly one of --theta and --theta-from"},
		{name: "predict theta", args: []string{"predict", "--data", "@d.csv", "--at", "@at.csv", "--out", "@p.csv", "--theta", "1,0,0.5"}, want: "beta must be positive"},
		{name: "predict at NaN", args: []string{"predict", "--data", "@d.csv", "--at", "@a.csv", "--out", "@p.csv", "--theta", "1,0.1,0.5"}, files: map[string]string{"a.csv": "x,y\n0.1,NaN\n"},
			want: `a.csv:2: y is missing ("NaN"): every prediction location needs its coordinates and covariates`},
		{name: "predict at empty", args: []string{"predict", "--data", "@d.csv", "--at", "@a.csv", "--out", "@p.csv", "--theta", "1,0.1,0.5"}, files: map[string]string{"a.csv": ""}, want: "a.csv: empty file"},
		{name: "predict at no rows", args: []string{"predict", "--data", "@d.csv", "--at", "@a.csv", "--out", "@p.csv", "--theta", "1,0.1,0.5"}, files: map[string]string{"a.csv": "x,y\n"}, want: "a.csv: no locations"},
		{name: "predict coordinates", args: []string{"predict", "--data", "@d.csv", "--at", "@a.csv", "--out", "@p.csv", "--theta", "1,0.1,0.5"}, files: map[string]string{"a.csv": "lon,lat\n1,2\n"},
			want: "use different coordinates (planar vs geographic)"},
		{name: "cv without out", args: []string{"cv", "--data", "@d.csv", "--theta", "1,0.1,0.5"}, want: "cv: --data and --out are required"},
		{name: "conditional without data", args: []string{"simulate", "--conditional", "--at", "@at.csv", "--theta", "1,0.1,0.5", "--out", "@s.csv"},
			want: "simulate: --conditional needs --data (the observations) and --at (the new locations)"},
		{name: "conditional without at", args: []string{"simulate", "--conditional", "--data", "@d.csv", "--theta", "1,0.1,0.5", "--out", "@s.csv"},
			want: "simulate: --conditional needs --data (the observations) and --at (the new locations)"},
		{name: "conditional without out", args: []string{"simulate", "--conditional", "--data", "@d.csv", "--at", "@at.csv", "--theta", "1,0.1,0.5"},
			want: "simulate: --conditional needs --out"},
		{name: "conditional with n", args: []string{"simulate", "--conditional", "--data", "@d.csv", "--at", "@at.csv", "--theta", "1,0.1,0.5", "--n", "10", "--out", "@s.csv"},
			want: "simulate: --n and --times do nothing with --conditional"},
		{name: "conditional no draws", args: []string{"simulate", "--conditional", "--data", "@d.csv", "--at", "@at.csv", "--theta", "1,0.1,0.5", "--draws", "0", "--out", "@s.csv"},
			want: "simulate: --conditional needs --draws >= 1, got 0"},
		{name: "conditional no theta", args: []string{"simulate", "--conditional", "--data", "@d.csv", "--at", "@at.csv", "--out", "@s.csv"},
			want: "simulate: --conditional: give exactly one of --theta and --theta-from"},
		{name: "conditional theta twice", args: []string{"simulate", "--conditional", "--data", "@d.csv", "--at", "@at.csv", "--theta", "1,0.1,0.5", "--theta-from", "@r.json", "--out", "@s.csv"},
			want: "simulate: --conditional: give exactly one of --theta and --theta-from"},
		{name: "data without conditional", args: []string{"simulate", "--data", "@d.csv", "--out", "@s.csv"}, want: "simulate: --data goes with --conditional"},
		{name: "draws without conditional", args: []string{"simulate", "--draws", "3", "--out", "@s.csv"}, want: "simulate: --draws goes with --conditional"},
		{name: "conditional bad variance", args: []string{"simulate", "--conditional", "--data", "@d.csv", "--at", "@at.csv", "--theta", "1,0.1,0.5", "--variance", "signal", "--out", "@s.csv"},
			want: "--variance must be observation or latent"},
		{name: "cv one fold", args: []string{"cv", "--data", "@d.csv", "--theta", "1,0.1,0.5", "--folds", "1", "--out", "@l.csv"},
			want: `cv: key "folds": --folds must be 0 (leave one out) or at least 2, got 1`},
		{name: "cv more folds than data", args: []string{"cv", "--data", "@d.csv", "--theta", "1,0.1,0.5", "--folds", "61", "--out", "@l.csv"},
			want: "cv: --folds 61 is more than the 60 observations of"},
		{name: "cv units without plot", args: []string{"cv", "--data", "@d.csv", "--theta", "1,0.1,0.5", "--units", "mm", "--out", "@l.csv"},
			want: `cv: key "units": --units does nothing without --plot DIR (cv): give it too, or leave --units out`},
		{name: "cv units", ok: true, args: []string{"cv", "--data", "@d.csv", "--theta", "1,0.1,0.5,0.1", "--nb", "30", "--units", "mm", "--plot", "@cvp", "--out", "@l.csv"},
			want: "leave-one-out over 60 observations (matern theta=1,0.1,0.5,0.1): MSPE ", writes: []string{"l.csv", "cvp", "cvp/cv_residuals.png", "cvp/cv_residuals.svg", "cvp/cv_qq.png", "cvp/cv_qq.svg"}},
		{name: "cv latent variance", args: []string{"cv", "--data", "@d.csv", "--theta", "1,0.1,0.5", "--variance", "latent", "--out", "@l.csv"},
			want: "--variance latent goes with predict"},
		{name: "predict draws negative", args: []string{"predict", "--data", "@d.csv", "--at", "@at.csv", "--out", "@p.csv", "--theta", "1,0.1,0.5", "--draws", "-1"}, want: `predict: key "draws": --draws must be in [0, 100000], got -1`},
		{name: "predict draws with a mean", args: []string{"predict", "--data", "@d.csv", "--at", "@at.csv", "--out", "@p.csv", "--theta", "1,0.1,0.5", "--draws", "2", "--mean", "constant"},
			ok: true, writes: []string{"p.csv"}, want: "predicted 2 locations from 60 observations (matern theta=1,0.1,0.5) in "},
		{name: "predict variance", args: []string{"predict", "--data", "@d.csv", "--at", "@at.csv", "--out", "@p.csv", "--theta", "1,0.1,0.5", "--variance", "field"}, want: `predict: key "variance": --variance must be observation or latent, got "field"`},
		{name: "great-circle on UTM metres", args: []string{"fit", "--data", "@utm.csv", "--distance", "great-circle"},
			files: map[string]string{"utm.csv": "x,y,z\n333611,5000000,1\n333700,5000100,2\n333800,5000300,1.5\n"},
			want:  "--distance great-circle needs longitude and latitude in degrees, but location 1 has x=333611, y=5e+06 (projected coordinates such as UTM metres need --distance euclidean)"},
		{name: "predict great-circle on UTM metres", args: []string{"predict", "--data", "@d.csv", "--at", "@utm.csv", "--out", "@p.csv", "--theta", "1,0.1,0.5", "--distance", "great-circle"},
			files: map[string]string{"utm.csv": "x,y\n333611,5000000\n"},
			want:  "utm.csv: --distance great-circle needs longitude and latitude in degrees, but location 1 has x=333611, y=5e+06"},
		{name: "predict distance", args: []string{"predict", "--data", "@d.csv", "--at", "@at.csv", "--out", "@p.csv", "--theta", "1,0.1,0.5", "--distance", "l1"}, want: `unknown distance "l1"`},
		{name: "theta-from truncated", defect: 9, args: []string{"predict", "--data", "@d.csv", "--at", "@at.csv", "--out", "@p.csv", "--theta-from", "@t.json"},
			files: map[string]string{"t.json": `{"kernel":"matern","theta":[1,0.1`}, want: "predict: --theta-from t.json: not valid JSON (unexpected end at byte 33: the file is truncated)"},
		{name: "theta-from no theta", args: []string{"predict", "--data", "@d.csv", "--at", "@at.csv", "--out", "@p.csv", "--theta-from", "@t.json"},
			files: map[string]string{"t.json": `{"kernel":"matern"}`}, want: "predict: --theta-from t.json: not a fit result (no theta)"},
		{name: "theta-from missing", args: []string{"predict", "--data", "@d.csv", "--at", "@at.csv", "--out", "@p.csv", "--theta-from", "@none.json"},
			want: "predict: --theta-from none.json: cannot open: no such file"},

		// simulate.
		{name: "simulate without out", args: []string{"simulate"}, want: `simulate: key "out": --out is required`},
		{name: "simulate n", args: []string{"simulate", "--out", "@s.csv", "--n", "2"}, want: `key "n": --n must be >= 3`},
		{name: "simulate powexp delta", args: []string{"simulate", "--out", "@s.csv", "--kernel", "powexp", "--theta", "1,0.1,3"}, want: "delta must be in (0, 2]"},
		{name: "simulate nugget", args: []string{"simulate", "--out", "@s.csv", "--nugget", "-1"}, want: `key "nugget"`},
		{name: "simulate seed negative", defect: 9, args: []string{"simulate", "--out", "@s.csv", "--seed", "-1"}, want: `invalid argument "-1" for "--seed"`},
		{name: "simulate gpkg without GDAL", args: []string{"simulate", "--out", "@s.gpkg", "--n", "9"}, want: "simulate: --out s.gpkg: GIS files need GDAL: install libgdal-dev"},
		{name: "cv gpkg without GDAL", args: []string{"cv", "--data", "@d.csv", "--theta", "1,0.1,0.5", "--out", "@r.gpkg", "--crs", "EPSG:28992"}, want: "cv: --out r.gpkg: GIS files need GDAL: install libgdal-dev"},
		{name: "plot raster without GDAL", args: []string{"plot", "@g.tif", "--out", "@maps"}, files: map[string]string{"g.tif": "not read"}, want: "plot: the file g.tif: GIS files need GDAL: install libgdal-dev"},
		{name: "plot mask without GDAL", args: []string{"plot", "@d.csv", "--out", "@maps", "--mask", "@m.geojson"}, want: "plot: --mask m.geojson: GIS files need GDAL"},
		{name: "plot title and no-title", args: []string{"plot", "@d.csv", "--out", "@maps", "--title", "T", "--no-title"}, want: "plot: --title and --no-title together"},
		{name: "plot two files", args: []string{"plot", "@d.csv", "@at.csv", "--out", "@maps"}, want: "plot: give one file to draw (got 2 arguments"},
		{name: "plot unknown layer", args: []string{"plot", "@d.csv", "--out", "@maps", "--layer", "sd"}, want: `plot: --layer: d.csv: no layer "sd" (its layers: z)`},
		{name: "simulate workers", defect: 9, args: []string{"simulate", "--out", "@s.csv", "--workers", "-2"}, want: `simulate: key "workers": --workers must be in [0, 4096]`},

		// The other commands.
		{name: "unknown command", defect: 9, args: []string{"bogus"}, want: `unknown command "bogus" for "exageostat"`},
		{name: "unknown command suggestion", defect: 9, args: []string{"fitt"}, want: "(did you mean fit?)"},
		{name: "bench name", args: []string{"bench", "bogus"}, want: `unexpected argument "bogus"`},
		{name: "bench cholesky n", args: []string{"bench", "cholesky", "--n", "0"}, want: "bench cholesky: --n must be >= 1"},
		{name: "bench likelihood nb", defect: 9, args: []string{"bench", "likelihood", "--nb", "0"}, want: "bench likelihood: --nb must be >= 1 (got 0)"},
		{name: "bench runtime workers", defect: 9, args: []string{"bench", "runtime", "--workers", "0"}, want: "bench runtime: --workers must be in [1, 4096] (got 0)"},
		{name: "bench cholesky nb", args: []string{"bench", "cholesky", "--nb", "-1"}, want: "bench cholesky: --nb must be >= 1, or 0 for the automatic tile size (got -1)"},
		{name: "bench tlr reps", args: []string{"bench", "tlr", "--reps", "101"}, want: "bench tlr: --reps must be in [1, 100] (got 101)"},
		{name: "bench tracing nb over n", args: []string{"bench", "tracing", "--n", "100", "--nb", "101"}, want: "bench tracing: --nb must be in [1, 100] (got 101)"},
		{name: "bench vecchia m", args: []string{"bench", "vecchia", "--m", "0"}, want: "bench vecchia: --m must be >= 1 (got 0)"},
		{name: "bench vecchia-kl too large", args: []string{"bench", "vecchia-kl", "--n", "4000000"}, want: "bench vecchia-kl: needs "},
		{name: "bench vecchia-kl order", args: []string{"bench", "vecchia-kl", "--order", "maxmin,hilbert"}, want: `bench vecchia-kl: --order: "hilbert" is not maxmin, random, coord, middleout or approxmaxmin`},
		{name: "bench vecchia-kl grouping", args: []string{"bench", "vecchia-kl", "--grouping", "pairs"}, want: `bench vecchia-kl: --grouping: "pairs" is not blocks or none`},
		{name: "bench vecchia-kl select", args: []string{"bench", "vecchia-kl", "--select", "nearest,best"}, want: `bench vecchia-kl: --select: "best" is not nearest or greedy`},
		{name: "bench vecchia-kl candidates", args: []string{"bench", "vecchia-kl", "--select", "greedy", "--candidates", "-1"}, want: "bench vecchia-kl: --candidates"},
		{name: "bench vecchia-kl greedy", ok: true, args: []string{"bench", "vecchia-kl", "--data", "@d.csv", "--m", "5", "--select", "greedy", "--json"}, want: `"grouping":"blocks","select":"greedy"`},
		{name: "bench vecchia-kl theta", args: []string{"bench", "vecchia-kl", "--theta", "1,0.1,0.5"}, want: "bench vecchia-kl: --theta must be sigma2,beta,nu,tau2"},
		{name: "bench vecchia-kl data", ok: true, args: []string{"bench", "vecchia-kl", "--data", "@d.csv", "--m", "5,59", "--order", "maxmin,approxmaxmin", "--json"}, want: `"order":"approxmaxmin","grouping":"blocks"`},
		{name: "bench likelihood theta", args: []string{"bench", "likelihood", "--theta", "1,0.1"}, want: "bench likelihood: --theta needs sigma2, beta > 0 and nu in (0, 30]"},
		{name: "plan nb", args: []string{"plan", "--n", "100", "--nb", "0"}, want: "plan: --nb must be >= 1"},
		{name: "plan tiles and n", args: []string{"plan", "--tiles", "5", "--n", "10"}, want: "plan: give either --tiles or --n and --nb, not both"},
		{name: "plan config key", args: []string{"plan", "--n", "100", "--config", "@k.toml"}, files: map[string]string{"k.toml": "nodes = 4\nrank = 1\n"}, want: `k.toml:2: key "rank": unknown key`},
		{name: "calibrate nb", args: []string{"calibrate", "--nb", "0"}, want: "calibrate: --nb must be in"},
		{name: "simulate-cluster config", args: []string{"simulate-cluster"}, want: "simulate-cluster: --config cluster.toml (with [[group]] tables) is required"},

		// Defect 2: large smoothness; defect 3: powexp bounds.
		{name: "simulate nu singular", defect: 2, args: []string{"simulate", "--out", "@s.csv", "--n", "100", "--nb", "50", "--theta", "1,0.1,1e5"},
			want: `simulate: key "theta": the field cannot be simulated: covariance matrix is not positive definite`},
		{name: "predict nu singular", defect: 2, args: []string{"predict", "--data", "@d.csv", "--at", "@at.csv", "--out", "@p.csv", "--theta", "1,0.1,1e4", "--nb", "30"},
			want: "predict: covariance matrix is not positive definite (theta [1 0.1 10000])"},
		{name: "powexp ub above 2", defect: 3, args: []string{"fit", "--kernel", "powexp", "--ub", "5,5,3"}, want: `fit: key "ub": bounds of delta must lie within (0, 2] for powexp`},
		{name: "powexp lb above 2", defect: 3, args: []string{"fit", "--kernel", "powexp", "--lb", "0.1,0.1,2.5", "--ub", "5,5,2.5"}, want: `fit: key "lb": bounds of delta must lie within (0, 2] for powexp`},

		// Defect 6: memory guard (the limit given, so that the case does not depend on the machine).
		{name: "memory n 100000", defect: 6, args: []string{"fit", "--n", "100000", "--memory-limit", "1GB"}, want: "fit: rank 0 needs 40.8 GB (N=100000, nb=960, 1 rank); 1 GB available (--memory-limit)"},
		{name: "memory data 100000 rows", defect: 6, args: []string{"fit", "--data", "@big.csv", "--memory-limit", "1GB"}, files: map[string]string{"big.csv": bigCSV(100000)},
			want: "fit: rank 0 needs 40.8 GB (N=100000, nb=960, 1 rank); 1 GB available"},
		{name: "memory nb 1", defect: 6, args: []string{"fit", "--n", "400", "--nb", "1", "--memory-limit", "2GB"}, want: "one evaluation is a graph of 10.9 million tasks"},
		{name: "memory grid", defect: 6, args: []string{"fit", "--n", "400", "--plot", "@pl", "--grid", "1000x1000", "--memory-limit", "100MB"}, want: "with kriging a 1000000-point grid); 100 MB available"},
		{name: "memory simulate", defect: 6, args: []string{"simulate", "--n", "100000", "--out", "@s.csv", "--memory-limit", "1GB"}, want: "simulate: rank 0 needs 40.8 GB"},
		{name: "memory predict", defect: 6, args: []string{"predict", "--data", "@big.csv", "--at", "@at.csv", "--out", "@p.csv", "--theta", "1,0.1,0.5", "--memory-limit", "1GB"},
			files: map[string]string{"big.csv": bigCSV(100000)}, want: "predict: rank 0 needs 40.8 GB"},
		{name: "plan nodes huge", defect: 6, args: []string{"plan", "--nodes", "2000000000", "--n", "1000", "--nb", "100"}, want: `key "nodes": must be in [1, 1048576], got 2000000000`},

		// Defect 12: a fault-injection setting that injects nothing.
		{name: "fail task no match", defect: 12, args: []string{"fit", "--data", "@d.csv", "--max-evals", "2", "--nb", "30"}, env: []string{"EXAGEOSTAT_FAIL_TASK=0:potrf(99,99,99)"}, lines: true,
			want: "EXAGEOSTAT_FAIL_TASK=0:potrf(99,99,99): no task potrf(99,99,99) ran on rank 0, so no failure was injected"},

		// Issue 24: unsupported combinations, each refused naming the flag.
		{name: "bivariate with a mean", args: []string{"fit", "--data", "@b.csv", "--kernel", "bivariate-matern", "--mean", "constant"}, files: map[string]string{"b.csv": bivCSV},
			want: `fit: key "mean": --mean constant is not for --kernel bivariate-matern`},
		{name: "predict bivariate with a mean", args: []string{"predict", "--data", "@b.csv", "--kernel", "bivariate-matern", "--theta", "1,1,0.1,0.5,0.5,0.5", "--at", "@at.csv", "--out", "@p.csv", "--mean", "linear"},
			files: map[string]string{"b.csv": bivCSV}, want: `predict: key "mean": --mean linear is not for --kernel bivariate-matern`},
		{name: "conditional bivariate", args: []string{"simulate", "--conditional", "--data", "@b.csv", "--at", "@at.csv", "--kernel", "bivariate-matern", "--theta", "1,1,0.1,0.5,0.5,0.5", "--out", "@s.csv"},
			files: map[string]string{"b.csv": bivCSV}, want: `simulate: key "kernel": --conditional is not for --kernel bivariate-matern yet`},
		{name: "devices too small", args: []string{"fit", "--data", "@d.csv", "--nb", "30", "--devices", "host-test:1:1KiB"},
			want: `fit: key "devices": "host-test:1:1KiB": each device holds 1.02 kB, less than the three 30x30 tiles a gemm task holds at once (21.6 kB)`},
		{name: "devices size as memory-limit", ok: true, args: []string{"fit", "--data", "@d.csv", "--nb", "30", "--max-evals", "1", "--devices", "host-test:1:1GB"}, want: "fit: N=60 "},
		{name: "fixed nu singular", args: []string{"fit", "--data", "@d.csv", "--nb", "30", "--lb", "0.001,0.001,200", "--ub", "5,5,200", "--max-evals", "3"}, lines: true,
			want: "fit: no evaluation succeeded (3 failed; the last: covariance matrix is not positive definite"},
		{name: "fixed nu singular says why", args: []string{"fit", "--data", "@d.csv", "--nb", "30", "--lb", "1,0.1,1e6", "--ub", "1,0.1,1e6"}, lines: true,
			want: "(nu fixed at 1e+06): not positive definite without a nugget: add one (--nugget 1e-6, or a fourth bound to estimate it)"},
		{name: "fit max rank below nb/2", args: []string{"fit", "--data", "@d.csv", "--nb", "30", "--computation", "tlr", "--max-rank", "2", "--max-evals", "2"}, lines: true,
			want: "above the maximum rank 2 (low-rank 30x30 (rank <= 2)); raise --max-rank"},
		{name: "max rank far above nb", ok: true, args: []string{"fit", "--data", "@d.csv", "--nb", "30", "--computation", "tlr", "--max-rank", "1000000", "--max-evals", "1", "--memory-limit", "1GB"},
			want: "fit: N=60 "},
		{name: "coarse tlr accuracy flagged", ok: true, args: []string{"fit", "--data", "@d.csv", "--nb", "30", "--computation", "tlr", "--tlr-accuracy", "10", "--max-evals", "3"},
			want: "warning: --tlr-accuracy 10 is coarse against the observations' variance"},
		{name: "depth unused with aniso", ok: true, args: []string{"fit", "--data", "@dz.csv", "--kernel", "aniso-matern", "--max-evals", "1"},
			files: map[string]string{"dz.csv": "x,y,depth,z\n0.1,0.2,1,0.5\n0.5,0.1,2,-1\n0.9,0.8,3,0.2\n0.3,0.7,4,1\n"},
			want:  "note: dz.csv: columns not read: depth (--z, --coords, --time and --mean choose the columns read)"},
		{name: "all locations one point", args: []string{"fit", "--data", "@one.csv", "--nugget", "0.1"}, files: map[string]string{"one.csv": "x,y,z\n0.5,0.5,1\n0.5,0.5,2\n0.5,0.5,3\n0.5,0.5,1.5\n"},
			want: "one.csv: all 4 locations are the same point: the range and the smoothness cannot be estimated"},
		{name: "coordinates overflow distances", args: []string{"fit", "--data", "@far.csv"}, files: map[string]string{"far.csv": "x,y,z\n1e300,0,1\n-1e300,1,2\n0,2e300,3\n"},
			want: "far.csv: x spans 2e+300: squared distances overflow float64"},
		{name: "coordinates underflow distances", args: []string{"fit", "--data", "@near.csv"}, files: map[string]string{"near.csv": "x,y,z\n1e-200,0,1\n2e-200,0,2\n3e-200,0,3\n"},
			want: "near.csv: x spans only 2e-200: squared distances underflow"},
		{name: "z-name with a control character", args: []string{"fit", "--data", "@d.csv", "--plot", "@pl", "--z-name", "a\x1b[31mb"},
			want: `fit: key "z_name": --z-name: '\x1b' at byte 2 is a control character`},
		{name: "z-name with a newline", args: []string{"cv", "--data", "@d.csv", "--theta", "1,0.1,0.5", "--out", "@l.csv", "--plot", "@pl", "--z-name", "m\nm"},
			want: `cv: key "z_name": --z-name: '\n' at byte 2 is a control character`},
		{name: "fit cv more folds than data", args: []string{"fit", "--data", "@d.csv", "--cv", "61", "--cv-out", "@c.csv"},
			want: `fit: key "cv": --cv 61 folds are more than the 60 observations of d.csv`},
		{name: "mean column of huge values", args: []string{"fit", "--data", "@h.csv", "--mean", "a"},
			files: map[string]string{"h.csv": "x,y,z,a\n0.1,0.2,1,1e200\n0.5,0.1,2,3e200\n0.9,0.8,1,2e200\n0.3,0.7,1,5e199\n0.6,0.6,0,1e199\n"},
			want:  "h.csv: --mean a: the column a holds values up to 3e+200: their squares overflow float64 in the GLS estimate; rescale it"},
		{name: "ci-level without ci", args: []string{"fit", "--ci-level", "0.9"}, want: `fit: key "ci_level": --ci-level does nothing without --ci profile`},
		{name: "dpi without plot", args: []string{"fit", "--dpi", "100"}, want: `fit: key "dpi": --dpi does nothing without --plot DIR`},
		{name: "z-name without plot", args: []string{"fit", "--z-name", "rain"}, want: `fit: key "z_name": --z-name does nothing without --plot DIR`},
		{name: "units without plot", args: []string{"fit", "--units", "mm"}, want: `fit: key "units": --units does nothing without --plot DIR`},
		{name: "xy-units without plot", args: []string{"fit", "--xy-units", "m"}, want: `fit: key "xy_units": --xy-units does nothing without --plot DIR`},
		{name: "cv dpi without plot", args: []string{"cv", "--data", "@d.csv", "--theta", "1,0.1,0.5", "--out", "@l.csv", "--dpi", "100"},
			want: `cv: key "dpi": --dpi does nothing without --plot DIR (cv)`},
		{name: "distribution on one rank", args: []string{"fit", "--distribution", "bogus"}, want: `fit: key "distribution": unknown distribution "bogus"`},
		{name: "predict distribution on one rank", args: []string{"predict", "--data", "@d.csv", "--at", "@at.csv", "--out", "@p.csv", "--theta", "1,0.1,0.5", "--distribution", "lp"},
			want: `predict: key "distribution": "lp" is computed from the node groups`},
		{name: "perfmodel unwritable", args: []string{"fit", "--data", "@d.csv", "--perfmodel", "/proc/exageostat-pm.json"}, want: "fit: --perfmodel /proc/exageostat-pm.json: cannot be written"},
		{name: "perfmodel onto json", args: []string{"fit", "--data", "@d.csv", "--perfmodel", "@x.json", "--json", "@x.json"}, want: "fit: --perfmodel x.json: is also the --json output"},
		{name: "perfmodel onto trace", args: []string{"fit", "--data", "@d.csv", "--perfmodel", "@t.json", "--trace", "@t.json"}, want: "fit: --perfmodel t.json: is also the --trace output"},
		{name: "perfmodel from the config's directory", ok: true, args: []string{"fit", "--config", "@sub/c.toml"},
			files: map[string]string{"sub/c.toml": "data = \"../d.csv\"\nperfmodel = \"pm.json\"\ncheckpoint = \"none\"\nnb = 30\nmax_evals = 1\n"},
			want:  "fit: N=60 ", writes: []string{"sub/pm.json"}},
		{name: "bench perfmodel unwritable", args: []string{"bench", "likelihood", "--n", "100", "--nb", "50", "--perfmodel", "/proc/exageostat-pm.json"},
			want: "bench likelihood: --perfmodel /proc/exageostat-pm.json: cannot be written"},

		{name: "workers beyond the threads a process has", args: []string{"fit", "--data", "@d.csv", "--workers", "100000"},
			want: `fit: key "workers": must be in [0, 4096] (0: one per core), got 100000`},
		{name: "predict workers beyond", args: []string{"predict", "--data", "@d.csv", "--at", "@at.csv", "--out", "@p.csv", "--theta", "1,0.1,0.5", "--workers", "5000"},
			want: `predict: key "workers": --workers must be in [0, 4096] (0: one per core), got 5000`},
		{name: "bench workers beyond", args: []string{"bench", "likelihood", "--workers", "20000"}, want: "bench likelihood: --workers must be in [1, 4096] (got 20000)"},

		// Issue 24: launches and stops.
		{name: "srun without pmix", args: []string{"fit", "--data", "@d.csv"}, env: []string{"SLURM_STEP_NUM_TASKS=2", "SLURM_PROCID=1"},
			want: "fit: SLURM_STEP_NUM_TASKS=2 processes were started, but MPI sees 1 rank: each would run the whole job alone and write the same outputs;"},
		{name: "mpirun of a plain binary", args: []string{"simulate", "--out", "@s.csv"}, env: []string{"OMPI_COMM_WORLD_SIZE=4"},
			want: "simulate: OMPI_COMM_WORLD_SIZE=4 processes were started, but MPI sees 1 rank"},
		{name: "deadline word", args: []string{"fit", "--deadline", "soon"}, want: `fit: key "deadline": --deadline: "soon" is not a duration (90s, 45m, 2h30m), a clock time (17:30) or a date and time`},
		{name: "deadline past", args: []string{"fit", "--deadline", "2000-01-01T00:00"}, want: `fit: key "deadline": --deadline: 2000-01-01 00:00:00 is past, or less than 2s away`},
		{name: "deadline in a config", args: []string{"fit", "--config", "@c.toml"}, files: map[string]string{"c.toml": "n = 100\ndeadline = \"-3m\"\n"},
			want: `c.toml:2: key "deadline": --deadline: the duration "-3m" must be > 0`},
		{name: "deadline none", ok: true, args: []string{"fit", "--data", "@d.csv", "--deadline", "none", "--max-evals", "2", "--nb", "30"}, env: []string{"SLURM_JOB_ID=1"},
			want: "fit: N=60 "},

		// What the fixes keep legal (exit status 0), and the outputs they write.
		// Defects 2-5, 10 and 11: runs that used to fail or be silently wrong.
		{name: "large nu with a nugget", defect: 2, ok: true, args: []string{"predict", "--data", "@d.csv", "--at", "@at.csv", "--out", "@p.csv", "--theta", "1,0.1,1e4", "--nugget", "0.1", "--nb", "30"},
			want: "predicted 2 locations", writes: []string{"p.csv"}},
		{name: "powexp default bounds", defect: 3, ok: true, args: []string{"fit", "--data", "@d.csv", "--kernel", "powexp", "--max-evals", "30", "--nb", "30"}, want: "delta "},
		{name: "stderr all fixed keeps the fit", defect: 4, ok: true, args: []string{"fit", "--data", "@d.csv", "--lb", "1,0.1,0.5", "--ub", "1,0.1,0.5", "--stderr", "--nb", "30", "--json", "@f.json", "--checkpoint", "none"},
			want: "standard errors not computed: fisher: no estimated parameter", writes: []string{"f.json"}},
		{name: "holdout all fixed keeps the fit", defect: 4, ok: true, args: []string{"fit", "--data", "@d.csv", "--lb", "1,0.1,0.5", "--ub", "1,0.1,0.5", "--holdout", "10", "--nb", "30"},
			want: "holdout 10: MSPE"},
		{name: "duplicates with a nugget", defect: 5, ok: true, args: []string{"fit", "--data", "@dup.csv", "--nugget", "0.1", "--max-evals", "5", "--nb", "30"}, files: map[string]string{"dup.csv": dup},
			want: "fit: N=4 "},
		{name: "duplicate prediction locations", defect: 5, ok: true, args: []string{"predict", "--data", "@d.csv", "--at", "@a.csv", "--out", "@p.csv", "--theta", "1,0.1,0.5", "--nb", "30"},
			files: map[string]string{"a.csv": "x,y\n0.5,0.5\n0.5,0.5\n"}, want: "predicted 2 locations", writes: []string{"p.csv"}},
		{name: "estimate at a bound flagged", defect: 10, ok: true, args: []string{"fit", "--data", "@d.csv", "--lb", "0.001,0.3,0.001", "--max-evals", "60", "--nb", "30"},
			want: "beta = 0.3 is at its lower bound 0.3"},
		{name: "max evals flagged", defect: 10, ok: true, args: []string{"fit", "--data", "@d.csv", "--max-evals", "3", "--nb", "30"},
			want: "the search stopped after 3 evaluations with status MAXEVAL_REACHED, before converging"},
		{name: "constant data flagged", defect: 10, ok: true, args: []string{"fit", "--data", "@c.csv", "--max-evals", "5", "--nb", "30"},
			files: map[string]string{"c.csv": "x,y,z\n0.1,0.2,1\n0.5,0.1,1\n0.9,0.4,1\n0.7,0.7,1\n"}, want: "the observations are constant"},
		{name: "moved start flagged", defect: 10, ok: true, args: []string{"fit", "--data", "@d.csv", "--search", "linear", "--ub", "5,1000,5", "--max-evals", "3", "--nb", "30"},
			want: "the optimiser moved the start of beta from"},
		{name: "nugget estimated with a mean, REML", ok: true, args: []string{"fit", "--data", "@dup.csv", "--lb", "0.01,0.01,0.5,0.01", "--ub", "5,1,0.5,1", "--mean", "constant", "--reml", "--max-evals", "10", "--nb", "30"},
			files: map[string]string{"dup.csv": dup}, want: "intercept"},
		{name: "universal kriging with tau2 in theta", ok: true, args: []string{"predict", "--data", "@d.csv", "--at", "@at.csv", "--out", "@p.csv", "--theta", "1,0.1,0.5,0.1", "--mean", "linear", "--nb", "30"},
			want: "predicted 2 locations", writes: []string{"p.csv"}},
		{name: "workers beyond slurm cpus", defect: 11, ok: true, args: []string{"fit", "--data", "@d.csv", "--workers", "2", "--max-evals", "2", "--nb", "30"}, env: []string{"SLURM_CPUS_PER_TASK=1"},
			want: "ask Slurm for 2 CPUs per task (srun/sbatch --cpus-per-task=2) or run --workers 1"},

		{name: "at as R writes it, y before x", ok: true, args: []string{"predict", "--data", "@d.csv", "--at", "@r.csv", "--out", "@p.csv", "--theta", "1,0.1,0.5", "--nb", "30"},
			files: map[string]string{"r.csv": "\"\",\"y\",\"x\"\r\n\"1\",0.5,0.5\r\n\"2\",0.75,0.25\r\n"}, want: "predicted 2 locations", writes: []string{"p.csv"}},
		{name: "at x,y that look like degrees", ok: true, args: []string{"predict", "--data", "@d.csv", "--at", "@g.csv", "--out", "@p.csv", "--theta", "1,0.1,0.5", "--nb", "30"},
			files: map[string]string{"g.csv": "x;y\n-95.5;29.5\n-80;40\n"}, want: "g.csv: x in [-95.5, -80] and y in [29.5, 40] lie within longitude and latitude ranges: if they are degrees, name the columns lon,lat", writes: []string{"p.csv"}},
		{name: "at with a NaN z column", defect: 9, ok: true, args: []string{"predict", "--data", "@d.csv", "--at", "@a.csv", "--out", "@p.csv", "--theta", "1,0.1,0.5", "--nb", "30"},
			files: map[string]string{"a.csv": "x,y,z\n0.5,0.5,NaN\n0.2,0.7,\n"}, want: "predicted 2 locations", writes: []string{"p.csv"}},
		{name: "theta-from with the same nugget", defect: 8, ok: true, args: []string{"predict", "--data", "@d.csv", "--at", "@at.csv", "--out", "@p.csv", "--theta-from", "@r.json", "--nugget", "0", "--distance", "euclidean", "--kernel", "matern"},
			want: "predicted 2 locations", writes: []string{"p.csv"}},
		{name: "seed with data and holdout", defect: 8, ok: true, args: []string{"fit", "--data", "@d.csv", "--holdout", "10", "--seed", "4", "--max-evals", "4", "--nb", "30"},
			want: "holdout 10: MSPE"},
		{name: "flag data over the file's problem", defect: 8, ok: true, args: []string{"fit", "--config", "@c.toml", "--data", "@d.csv", "--max-evals", "2"},
			files: map[string]string{"c.toml": "n = 1600\ntheta = [1.0, 0.1, 0.5]\nseed = 1\nnb = 30\n"}, want: "fit: N=60 "},
		{name: "config paths from its directory", defect: 9, ok: true, args: []string{"fit", "--config", "@sub/c.toml", "--max-evals", "2"},
			files: map[string]string{"sub/c.toml": "data = \"../d.csv\"\njson = \"r.json\"\ncheckpoint = \"none\"\nnb = 30\n"}, want: "fit: N=60 ", writes: []string{"sub/r.json"}},
		{name: "conditional draws", ok: true, args: []string{"predict", "--data", "@d.csv", "--at", "@at.csv", "--theta", "1,0.1,0.5,0.1", "--nb", "30", "--draws", "5", "--out", "@p.csv"},
			want: "predicted 2 locations from 60 observations (matern theta=1,0.1,0.5,0.1) in ", writes: []string{"p.csv"}},
		{name: "cv leave one out", ok: true, args: []string{"cv", "--data", "@d.csv", "--theta", "1,0.1,0.5,0.1", "--nb", "30", "--out", "@loo.csv"},
			want: "leave-one-out over 60 observations (matern theta=1,0.1,0.5,0.1): MSPE ", writes: []string{"loo.csv"}},
		{name: "cv with a mean", ok: true, args: []string{"cv", "--data", "@d.csv", "--theta", "1,0.1,0.5,0.1", "--mean", "constant", "--nb", "30", "--out", "@loo.csv"},
			want: "leave-one-out over 60 observations", writes: []string{"loo.csv"}},
		{name: "fit with leave-one-out", ok: true, args: []string{"fit", "--data", "@d.csv", "--max-evals", "4", "--nb", "30", "--cv", "loo", "--cv-out", "@c.csv"},
			want: "leave-one-out at the estimate over 60 observations", writes: []string{"c.csv"}},
		{name: "conditional simulation", ok: true, args: []string{"simulate", "--conditional", "--data", "@d.csv", "--at", "@at.csv", "--theta-from", "@r.json", "--draws", "4", "--seed", "3", "--nb", "30", "--out", "@s.csv"},
			want: "drew 4 conditional simulations of new observations (nugget included) at 2 locations given 60 observations", writes: []string{"s.csv"}},
		{name: "cv k-fold", ok: true, args: []string{"cv", "--data", "@d.csv", "--theta", "1,0.1,0.5,0.1", "--folds", "6", "--seed", "2", "--nb", "30", "--out", "@cv.csv", "--json", "@cv.json"},
			want: "6-fold cross-validation (seed 2) over 60 observations", writes: []string{"cv.csv", "cv.json"}},
		// Issue 26's smaller defects (build item 8).
		{name: "fit help relates the anisotropy to gstat's", ok: true, args: []string{"fit", "--help"},
			want: "p = (90 - angle 180/pi) mod 180, s = 1/ratio; back, angle = (90 - p) pi/180"},
		{name: "aniso fit prints gstat's vgm", ok: true, args: []string{"fit", "--data", "@d.csv", "--kernel", "aniso-matern", "--lb", anisoFixed, "--ub", anisoFixed,
			"--nb", "30", "--json", "@f.json", "--checkpoint", "none"}, writes: []string{"f.json"},
			want:  `gstat: vgm(psill = 1, model = "Mat", range = 0.1, nugget = 0, kappa = 0.5, anis = c(60, 0.5))`,
			holds: map[string][]string{"f.json": {`"gstat_anis": [`, `anis = c(60, 0.5))"`}}},
		{name: "negligible nugget flagged", ok: true, args: []string{"fit", "--data", "@s.csv", "--lb", "0.01,0.01,0.5,1e-8", "--ub", "5,5,0.5,1", "--nb", "30", "--json", "@f.json", "--checkpoint", "none"},
			files: map[string]string{"s.csv": smoothCSV()}, writes: []string{"f.json"},
			want: "warning: tau2 = ", holds: map[string][]string{"f.json": {`"warnings": [`, "is negligible against sigma2 = "}}},
		{name: "cv help columns", ok: true, args: []string{"cv", "--help"}, want: "  " + cvColumns + "\n"},
		{name: "cv help k-fold columns", ok: true, args: []string{"cv", "--help"}, want: "  " + cvFoldColumns + "\n"},
		{name: "cv help transformed columns", ok: true, args: []string{"cv", "--help"}, want: "  " + cvLogColumns + "\n"},
		{name: "cv columns", ok: true, args: []string{"cv", "--data", "@d.csv", "--theta", "1,0.1,0.5,0.1", "--nb", "30", "--out", "-"}, want: "\n" + cvColumns + "\n"},
		{name: "cv k-fold columns", ok: true, args: []string{"cv", "--data", "@d.csv", "--theta", "1,0.1,0.5,0.1", "--folds", "5", "--nb", "30", "--out", "-"}, want: "\n" + cvFoldColumns + "\n"},
		{name: "cv transformed columns", ok: true, args: []string{"cv", "--data", "@pos.csv", "--transform", "log", "--theta", "1,0.1,0.5,0.1", "--nb", "30", "--out", "-"},
			files: map[string]string{"pos.csv": "x,y,z\n0.1,0.2,1\n0.5,0.1,2\n0.9,0.4,1.5\n0.7,0.7,3\n0.2,0.9,2.5\n"}, want: "\n" + cvLogColumns + "\n"},
		{name: "cv json lists its pictures", ok: true, args: []string{"cv", "--data", "@d.csv", "--theta", "1,0.1,0.5,0.1", "--nb", "30", "--plot", "@cvp", "--out", "@l.csv", "--json", "@cv.json"},
			want: "leave-one-out over 60 observations", writes: []string{"l.csv", "cv.json", "cvp", "cvp/cv_residuals.png", "cvp/cv_residuals.svg", "cvp/cv_qq.png", "cvp/cv_qq.svg"},
			holds: map[string][]string{"cv.json": {`"plots": [`, `"cvp/cv_residuals.png"`, `"cvp/cv_qq.png"`}}},
		{name: "fit json lists the cv pictures", ok: true, args: []string{"fit", "--data", "@d.csv", "--max-evals", "2", "--nb", "30", "--cv", "loo", "--cv-out", "@c.csv",
			"--plot", "@fp", "--json", "@f.json", "--checkpoint", "none"},
			want: "leave-one-out at the estimate over 60 observations", writes: append([]string{"c.csv", "f.json", "fp"}, fitPictures("fp", "cv_residuals", "cv_qq")...),
			holds: map[string][]string{"f.json": {`"fp/cv_residuals.png"`, `"fp/cv_qq.png"`, `"fp/observations.png"`}}},
		{name: "fit draws in the memory need", args: []string{"fit", "--data", "@d.csv", "--plot", "@fp", "--grid", "70x70", "--draws", "2", "--memory-limit", "300MB"},
			want: "with 2 conditional draws on a 4900-point grid"},
		{name: "simulate help mean", ok: true, args: []string{"simulate", "--help"}, want: "The mean: with --theta-from, the fit's mean model"},
		{name: "predict summary with the nugget", ok: true, args: []string{"predict", "--data", "@d.csv", "--at", "@at.csv", "--out", "@p.csv", "--theta", "1,0.1,0.5", "--nugget", "0.1", "--nb", "30"},
			want: "(matern theta=1,0.1,0.5,0.1) in ", writes: []string{"p.csv"}},
		{name: "cv summary with the nugget", ok: true, args: []string{"cv", "--data", "@d.csv", "--theta", "1,0.1,0.5", "--nugget", "0.1", "--nb", "30", "--out", "@l.csv"},
			want: "(matern theta=1,0.1,0.5,0.1): MSPE ", writes: []string{"l.csv"}},
		{name: "simulate summary with the nugget", ok: true, args: []string{"simulate", "--n", "20", "--nb", "10", "--theta", "1,0.1,0.5", "--nugget", "0.1", "--out", "@s.csv"},
			want: "wrote 20 locations with matern theta=1,0.1,0.5,0.1 to ", writes: []string{"s.csv"}},
		{name: "output through a link", defect: 7, ok: true, args: []string{"simulate", "--n", "20", "--nb", "10", "--out", "@link.csv"},
			links: map[string]string{"link.csv": "adir/target.csv"}, files: map[string]string{"adir/target.csv": "old\n"}, want: "wrote 20 locations", writes: []string{"adir/target.csv"}},
	}
}

// The columns cv writes, as its --help gives them: leave one out, K-fold
// and with --transform log.
const (
	cvColumns     = "x,y,z,z_loo,variance,residual,standardized"
	cvFoldColumns = "x,y,z,z_cv,variance,residual,standardized,fold"
	cvLogColumns  = "x,y,log_z,log_z_loo,variance,residual,standardized"
)

// anisoFixed fixes every parameter of aniso-matern: sigma2 1, beta 0.1,
// nu 0.5, the major axis at pi/6 from the x axis (gstat's azimuth 60
// degrees), ratio 2 (gstat's s = 0.5).
const anisoFixed = "1,0.1,0.5,0.5235987755982988,2"

// smoothCSV returns 60 noiseless values of a smooth surface, z = sin(3x) +
// cos(2y) on the fixtures' jittered grid: a fit with an estimated nugget
// ends with tau2 next to 0.
func smoothCSV() string {
	var b strings.Builder
	b.WriteString("x,y,z\n")
	for i := range 60 {
		x, y := float64(i%8)/8+float64(i%5)/97, float64(i/8)/8+float64(i%3)/89
		fmt.Fprintf(&b, "%g,%g,%g\n", x, y, math.Sin(3*x)+math.Cos(2*y))
	}
	return b.String()
}

// fitPictures returns the files fit --plot DIR writes into DIR for data
// without a mean (each picture as PNG and SVG), and the pictures named.
func fitPictures(dir string, more ...string) []string {
	var out []string
	for _, p := range append([]string{"observations", "semivariogram"}, more...) {
		out = append(out, dir+"/"+p+".png", dir+"/"+p+".svg")
	}
	return out
}

// bigCSV returns a data file of n rows (x, y on a jittered grid, z in
// [-1, 1)): large enough that the memory guard, not the reader, refuses it.
func bigCSV(n int) string {
	var b strings.Builder
	b.WriteString("x,y,z\n")
	for i := range n {
		fmt.Fprintf(&b, "%d,%d.5,%g\n", i%1000, i/1000, float64(i%200)/100-1)
	}
	return b.String()
}

// snapshot returns the files, links and directories under dir, with the
// files' contents and the links' targets.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	s := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			to, _ := os.Readlink(p)
			s[rel] = "link -> " + to
		case d.IsDir():
			s[rel] = "dir"
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			s[rel] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// runIn runs bin with args in dir, with env added.
func runIn(t *testing.T, dir string, env []string, bin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

// runCLICases runs the cases of the table in parallel, each in its own
// directory, and checks the exit status, the one-line message and that
// nothing was written.
func runCLICases(t *testing.T, bin string, cases []cliCase) {
	fixtures := cliFixtures()
	seen := map[string]bool{}
	for _, c := range cases {
		if seen[c.name] {
			t.Fatalf("two cases named %q", c.name)
		}
		seen[c.name] = true
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for _, fs := range []map[string]string{fixtures, c.files} {
				for name, content := range fs {
					p := filepath.Join(dir, name)
					if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			for name, to := range c.links {
				if err := os.Symlink(to, filepath.Join(dir, name)); err != nil {
					t.Fatal(err)
				}
			}
			args := make([]string, len(c.args))
			for i, a := range c.args {
				args[i] = strings.TrimPrefix(a, "@")
			}
			before := snapshot(t, dir)
			stdout, stderr, code := runIn(t, dir, c.env, bin, args...)
			want := c.code
			switch {
			case c.ok:
				want = 0
			case want == 0:
				want = 2
			}
			if strings.Contains(stderr, "panic") || strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "fatal error") {
				t.Fatalf("exageostat %s: a Go panic or fatal error:\n%s", strings.Join(args, " "), stderr)
			}
			if code != want {
				t.Fatalf("exageostat %s: exit %d, want %d\nstderr:\n%s", strings.Join(args, " "), code, want, stderr)
			}
			if want == 2 {
				lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
				last := lines[len(lines)-1]
				if (len(lines) != 1 && !c.lines) || !strings.HasPrefix(last, "exageostat: ") || !strings.Contains(last, c.want) {
					t.Fatalf("exageostat %s: want one line containing %q, stderr:\n%s", strings.Join(args, " "), c.want, stderr)
				}
			} else if !strings.Contains(stderr+stdout, c.want) {
				t.Fatalf("exageostat %s: output lacks %q\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), c.want, stdout, stderr)
			}
			after := snapshot(t, dir)
			for name, subs := range c.holds {
				for _, sub := range subs {
					if !strings.Contains(after[name], sub) {
						t.Errorf("exageostat %s: %s lacks %q:\n%s", strings.Join(args, " "), name, sub, after[name])
					}
				}
			}
			for _, w := range c.writes {
				delete(before, w)
				delete(after, w)
			}
			for name, v := range after {
				if b, ok := before[name]; !ok {
					t.Errorf("exageostat %s wrote %s", strings.Join(args, " "), name)
				} else if b != v {
					t.Errorf("exageostat %s changed %s", strings.Join(args, " "), name)
				}
			}
			for name := range before {
				if _, ok := after[name]; !ok {
					t.Errorf("exageostat %s removed %s", strings.Join(args, " "), name)
				}
			}
		})
	}
}

// TestBadInputTable: every bad input of the table exits with status 2 and
// one line naming the problem and its place, writes nothing and replaces
// nothing; the cases of issue 16's defects behave as fixed.
func TestBadInputTable(t *testing.T) {
	cases := badInputCases()
	n := 0
	for _, c := range cases {
		if !c.ok && (c.code == 0 || c.code == 2) {
			n++
		}
	}
	if n < 60 {
		t.Fatalf("%d bad-input cases, want at least 60", n)
	}
	runCLICases(t, binary(t), cases)
}
