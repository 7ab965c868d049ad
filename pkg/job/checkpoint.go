package job

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/exageostat/exageostat/pkg/atomicfile"
	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/dataset"
	"github.com/exageostat/exageostat/pkg/lockfile"
	"github.com/exageostat/exageostat/pkg/mle"
)

// A fit's checkpoint is a JSON file that rank 0 rewrites atomically
// (pkg/atomicfile) after every evaluation it computes. It holds:
//
//   - format and version (CheckpointFormat, CheckpointVersion);
//   - data_sha256: a SHA-256 of the data as read (coordinates kind, then
//     x, y and z of every location in file order, as float64 bits), or,
//     for the simulated default problem, of what defines it (n, kernel,
//     theta, nugget, seed);
//   - settings and settings_sha256: everything that changes l(theta) or
//     the path of the search (CheckpointSettings), and its SHA-256;
//   - config: the run's whole configuration, for the record (not compared);
//   - evaluations: every (theta, l) paid for, in the order computed (l is
//     null for a failed evaluation, with its error), and best, the best so
//     far;
//   - evaluations_sha256: a SHA-256 of data_sha256, settings_sha256, the
//     evaluations and best, so that an edited value is refused;
//   - status: "running" while the search runs, then the optimiser's final
//     status ("interrupted" after SIGINT or SIGTERM, "deadline" when the
//     run stopped before its deadline).
//
// The optimiser's restart state is not stored as such: BOBYQA and its
// restarts are deterministic given the objective's values, so `fit
// --resume` rebuilds it by replaying the evaluations from a cache keyed by
// theta (mle.Options.Replay): the resumed search retraces the checkpointed
// path bitwise at no cost, then computes what comes after.
//
// What --resume checks: the file is a checkpoint of this version, every
// field well formed (a defect is named by its field: exit status 2, never
// a panic); settings_sha256 is the digest of the settings it holds, and
// the digest of this run's settings (a difference names the first setting
// that differs); data_sha256 is this run's data's; evaluations_sha256
// matches the evaluations (an edited value is refused); best is the best
// of the evaluations. And one value is verified by computation: the best
// evaluation, the one the result rests on, is recomputed when the replay
// reaches it, and must agree with its record to 1e-9 (relative to 1 +
// |l|; bitwise on the same tile size): a checkpoint that passes the
// digests but was forged, or written by a build that computes otherwise,
// is refused there (mle.Cache.VerifyBest). The cost is one evaluation.
//
// Rank 0 alone reads the file and broadcasts it (Inputs); it holds a lock
// on the checkpoint it writes, and on the file it resumes (pkg/lockfile),
// so that a second fit of the same checkpoint stops at once, naming the
// first; it removes the temporary files a killed run left beside the
// checkpoint (atomicfile.RemoveTemps). A run that computes no evaluation
// (it fails at the first, or is interrupted before) leaves the file as it
// found it, and a checkpoint without evaluations is never written.
const (
	CheckpointFormat  = "exageostat fit checkpoint"
	CheckpointVersion = 2
)

// Checkpoint is the content of a checkpoint file.
type Checkpoint struct {
	Format            string              `json:"format"`
	Version           int                 `json:"version"`
	Written           string              `json:"written"`
	Status            string              `json:"status"`
	Data              string              `json:"data"` // the data's source, for messages
	DataSHA256        string              `json:"data_sha256"`
	SettingsSHA256    string              `json:"settings_sha256"`
	Settings          CheckpointSettings  `json:"settings"`
	Optimizer         CheckpointOptimizer `json:"optimizer"`
	Config            map[string]any      `json:"config,omitempty"`
	Best              *CheckpointEval     `json:"best,omitempty"`
	Evaluations       []CheckpointEval    `json:"evaluations"`
	EvaluationsSHA256 string              `json:"evaluations_sha256"`
}

// CheckpointSettings are the settings a resumed fit must share with the
// checkpoint: they change l(theta) (kernel, distance, nugget, the hold-out
// split, the mean model, the likelihood's computation and, for an
// approximate one, the tile size) or the path of the search (bounds,
// start, search scale, tolerance, profiling). Others may differ: the tile
// size of an exact computation, workers, ranks and distribution change l
// only by round-off (the replayed values are then the checkpoint's);
// max_evals only cuts the path, so a run that reached its limit can go on
// with a larger one; the output files are free. A setting added here is
// compared without more code (diff walks the fields).
type CheckpointSettings struct {
	Kernel    string    `json:"kernel"`
	Distance  string    `json:"distance"`
	Nugget    float64   `json:"nugget"`
	Lower     []float64 `json:"lb"`
	Upper     []float64 `json:"ub"`
	Start     string    `json:"start"`
	Search    string    `json:"search"`
	Tolerance float64   `json:"tolerance"`
	Holdout   int       `json:"holdout"`
	Seed      uint64    `json:"seed"` // the hold-out split's (0 without one)
	// Profile is "on" for a profiled search (its evaluations hold the
	// search's point too), "" otherwise.
	Profile string `json:"profile,omitempty"`
	// Mean is the mean model ("" for zero) and REML the restricted
	// likelihood: both change l.
	Mean string `json:"mean,omitempty"`
	REML bool   `json:"reml,omitempty"`
	// Computation is an approximate likelihood and its settings ("" for
	// exact; the maximum rank as used: nb/2 when not given), and NB its
	// tile size (0 for exact): they change l.
	Computation string `json:"computation,omitempty"`
	NB          int    `json:"nb,omitempty"`
}

// CheckpointEval is one evaluation: LogLik is nil when it failed;
// Restart is the BOBYQA search it belongs to (0: the first, k: the k-th
// restart from the best point).
type CheckpointEval struct {
	Theta []float64 `json:"theta"`
	// Search is the point of a profiled search that Theta stands for.
	Search  []float64 `json:"search,omitempty"`
	LogLik  *float64  `json:"loglik"`
	Error   string    `json:"error,omitempty"`
	Restart int       `json:"restart"`
	// Stage, Grad and Info are a Fisher-scoring search's (a Vecchia
	// fit's): the stage (0: m = 10 when the final m is larger), the
	// gradient and the information (row by row) at theta.
	Stage int       `json:"stage,omitempty"`
	Grad  []float64 `json:"grad,omitempty"`
	Info  []float64 `json:"info,omitempty"`
}

// CheckpointOptimizer describes the search, for the record: the settings
// that shape its path are in CheckpointSettings; its state (the trust
// region, the quadratic model, the restart under way) is rebuilt by
// replaying the evaluations.
type CheckpointOptimizer struct {
	Algorithm string `json:"algorithm"`
	MaxEvals  int    `json:"max_evals"` // 0: no limit
	Restarts  int    `json:"restarts"`  // restarts so far
}

// diff returns the first setting (by its JSON key, in the order of the
// fields) that differs between s (the checkpoint's) and t (this run's),
// with both values as text, or "".
func (s CheckpointSettings) diff(t CheckpointSettings) (key, was, now string) {
	a, b := reflect.ValueOf(s), reflect.ValueOf(t)
	for i := range a.NumField() {
		name, _, _ := strings.Cut(a.Type().Field(i).Tag.Get("json"), ",")
		x, y := settingText(name, a.Field(i).Interface()), settingText(name, b.Field(i).Interface())
		if x != y {
			return name, x, y
		}
	}
	return "", "", ""
}

// settingText is a setting's value in messages.
func settingText(key string, v any) string {
	switch x := v.(type) {
	case float64:
		return config.FormatFloats([]float64{x})
	case []float64:
		return config.FormatFloats(x)
	case string:
		if x != "" {
			return x
		}
		switch key {
		case "profile":
			return "off"
		case "mean":
			return "zero"
		case "computation":
			return "exact"
		}
		return `""`
	}
	return fmt.Sprint(v)
}

func (s CheckpointSettings) sha256() string {
	b, _ := json.Marshal(s)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// checkpointSettings returns cfg's settings that a resume must match; nb
// is the tile size the fit uses.
func checkpointSettings(cfg config.Fit, distance string, start []float64, profile bool, nb int) CheckpointSettings {
	s := CheckpointSettings{Kernel: cfg.Kernel, Distance: distance, Nugget: cfg.Nugget,
		Lower: cfg.Lower, Upper: cfg.Upper, Start: cfg.Start, Search: cfg.Search,
		Tolerance: cfg.Tolerance, Holdout: cfg.Holdout}
	if profile {
		s.Profile = "on"
	}
	if cfg.Mean != "zero" {
		s.Mean, s.REML = cfg.Mean, cfg.REML
	}
	if start != nil {
		s.Start = config.FormatFloats(start)
	}
	if cfg.Approximate() {
		rank := cfg.MaxRank
		if rank == 0 {
			rank = max(1, nb/2) // likelihood's default
		}
		s.Computation = fmt.Sprintf("%s accuracy=%g max-rank=%d band=%d", cfg.Computation, cfg.TLRAccuracy, rank, cfg.MPBand)
		if cfg.HPotrf > 0 {
			// The hierarchical potrf sums in another order (the lookahead
			// changes no value).
			s.Computation += fmt.Sprintf(" hpotrf=%d", cfg.HPotrf)
		}
		s.NB = nb
	}
	if s.Search == "" {
		s.Search = "log"
	}
	if cfg.Holdout != 0 {
		s.Seed = cfg.Seed
	}
	return s
}

// dataSHA256 hashes the data as read (d), or the simulated problem's
// definition when d is nil.
func dataSHA256(cfg config.Fit, d *dataset.Data) string {
	h := sha256.New()
	put := func(v ...float64) {
		var b [8]byte
		for _, x := range v {
			binary.LittleEndian.PutUint64(b[:], math.Float64bits(x))
			h.Write(b[:])
		}
	}
	if d == nil {
		fmt.Fprintf(h, "simulated n=%d kernel=%s seed=%d\n", cfg.N, cfg.Kernel, cfg.Seed)
		if cfg.Times > 1 { // only when given: older digests unchanged
			fmt.Fprintf(h, "times=%d\n", cfg.Times)
		}
		put(cfg.Theta...)
		put(cfg.Nugget)
	} else {
		fmt.Fprintf(h, "data %s n=%d\n", d.Coords, d.Len())
		put(d.X...)
		put(d.Y...)
		put(d.Obs...)
		if d.Z != nil { // only when read: the digest of 2D data is unchanged
			fmt.Fprintf(h, "z n=%d\n", len(d.Z))
			put(d.Z...)
		}
		if d.T != nil {
			fmt.Fprintf(h, "t n=%d\n", len(d.T))
			put(d.T...)
		}
		if d.Obs2 != nil {
			fmt.Fprintf(h, "z2 n=%d\n", len(d.Obs2))
			put(d.Obs2...)
		}
		for _, c := range d.Columns { // covariates (files that have them)
			fmt.Fprintf(h, "column %s\n", c.Name)
			put(c.Values...)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// dataSource describes where the data came from, for the checkpoint.
func dataSource(cfg config.Fit) string {
	switch {
	case cfg.Data != "":
		return cfg.Data
	case cfg.Locations != "":
		return cfg.Locations + " + " + cfg.Observations
	}
	return fmt.Sprintf("simulated: n=%d theta=%s seed=%d", cfg.N, config.FormatFloats(cfg.Theta), cfg.Seed)
}

// CheckpointPath returns the checkpoint file of cfg: checkpoint when
// given ("none" disables it), else the resume file (it goes on growing),
// else the json path with its extension replaced by .ckpt, else "".
func CheckpointPath(cfg config.Fit) string {
	switch {
	case cfg.Checkpoint == "none":
		return ""
	case cfg.Checkpoint != "":
		return cfg.Checkpoint
	case cfg.Resume != "":
		return cfg.Resume
	case cfg.JSON != "":
		return strings.TrimSuffix(cfg.JSON, filepath.Ext(cfg.JSON)) + ".ckpt"
	}
	return ""
}

// checkpointFile is the checkpoint as an output of the fit (fitOutputs),
// named by the flag that gives its path.
func checkpointFile(cfg *config.Fit) File {
	f := File{Flag: "checkpoint", Key: "checkpoint", Path: CheckpointPath(*cfg)}
	if cfg.Checkpoint == "" && cfg.Resume != "" {
		f.Flag, f.Key = "resume", "resume" // the resume file goes on growing
	}
	return f
}

// ReadCheckpoint reads the checkpoint file at path (ParseCheckpoint) and
// returns its content too.
func ReadCheckpoint(path string) (*Checkpoint, []byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, readError(err)
	}
	c, err := ParseCheckpoint(b)
	return c, b, err
}

// readError is the reason a file cannot be read: "cannot read: no such
// file or directory".
func readError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("cannot read: %v", err)
}

// ParseCheckpoint reads a checkpoint's content b and checks it (see
// above): format, version, each field, the settings' and the
// evaluations' digests, and the best. The error names the field at fault
// ("field \"evaluations[3].theta\": ...") and is the whole message after
// the file's name.
func ParseCheckpoint(b []byte) (*Checkpoint, error) {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, errors.New("empty file: not an exageostat fit checkpoint")
	}
	var probe struct {
		Format  string `json:"format"`
		Version int    `json:"version"`
	}
	if err := json.Unmarshal(b, &probe); err != nil && !json.Valid(b) {
		return nil, fmt.Errorf("not an exageostat fit checkpoint (%s)", jsonDefect(b, err, "checkpoint"))
	}
	if probe.Format != CheckpointFormat {
		return nil, errors.New("not an exageostat fit checkpoint")
	}
	if probe.Version != CheckpointVersion {
		return nil, fmt.Errorf("checkpoint format version %d; this exageostat reads version %d (finish that fit with the exageostat that wrote it, or start afresh)", probe.Version, CheckpointVersion)
	}
	var c Checkpoint
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, errors.New(jsonDefect(b, err, "checkpoint"))
	}
	if err := c.check(); err != nil {
		return nil, err
	}
	return &c, nil
}

// fieldError names a field of a checkpoint and what is wrong with it.
func fieldError(field, format string, a ...any) error {
	return fmt.Errorf("field %q: %s", field, fmt.Sprintf(format, a...))
}

// check checks a decoded checkpoint's fields and digests.
func (c *Checkpoint) check() error {
	for _, h := range []struct{ field, v string }{{"data_sha256", c.DataSHA256}, {"settings_sha256", c.SettingsSHA256}, {"evaluations_sha256", c.EvaluationsSHA256}} {
		if _, err := hex.DecodeString(h.v); err != nil || len(h.v) != 64 {
			return fieldError(h.field, "want 64 hexadecimal digits, got %q", h.v)
		}
	}
	s := c.Settings
	if len(s.Lower) == 0 || len(s.Lower) != len(s.Upper) {
		return fieldError("settings.lb", "%d lower and %d upper bounds", len(s.Lower), len(s.Upper))
	}
	if c.Settings.sha256() != c.SettingsSHA256 {
		return fieldError("settings_sha256", "is not the digest of the settings: the file was edited")
	}
	if c.Evaluations == nil {
		return fieldError("evaluations", "missing")
	}
	var best *CheckpointEval
	for i := range c.Evaluations {
		e := &c.Evaluations[i]
		if err := e.check(fmt.Sprintf("evaluations[%d]", i), len(s.Lower)); err != nil {
			return err
		}
		if e.LogLik != nil && (best == nil || *e.LogLik > *best.LogLik) {
			best = e
		}
	}
	if c.Best != nil {
		if err := c.Best.check("best", len(s.Lower)); err != nil {
			return err
		}
	}
	if c.evaluationsSHA256() != c.EvaluationsSHA256 {
		return fieldError("evaluations_sha256", "is not the digest of the evaluations: the file was edited")
	}
	switch {
	case c.Best == nil && best != nil:
		return fieldError("best", "missing, with %d successful evaluations", len(c.Evaluations))
	case c.Best == nil:
		return nil
	}
	if best == nil || c.Best.LogLik == nil || *c.Best.LogLik != *best.LogLik || config.FormatFloats(c.Best.Theta) != config.FormatFloats(best.Theta) {
		return fieldError("best", "is not the best of the evaluations")
	}
	return nil
}

// check checks one evaluation (field names it) of a theta of d values.
func (e *CheckpointEval) check(field string, d int) error {
	switch {
	case len(e.Theta) != d:
		return fieldError(field+".theta", "%d values, want %d", len(e.Theta), d)
	case e.Search != nil && len(e.Search) != d:
		return fieldError(field+".search", "%d values, want %d", len(e.Search), d)
	case e.LogLik == nil && e.Error == "":
		return fieldError(field+".loglik", "null without an error")
	case e.LogLik != nil && e.Error != "":
		return fieldError(field+".error", "an error beside a log-likelihood")
	case e.Restart < 0:
		return fieldError(field+".restart", "must be >= 0, got %d", e.Restart)
	case e.Stage < 0:
		return fieldError(field+".stage", "must be >= 0, got %d", e.Stage)
	case e.Grad != nil && len(e.Grad) != d:
		return fieldError(field+".grad", "%d values, want %d", len(e.Grad), d)
	case e.Info != nil && len(e.Info) != d*d:
		return fieldError(field+".info", "%d values, want %d", len(e.Info), d*d)
	}
	for _, v := range e.Theta {
		if !(v > 0) { // JSON has no NaN or Inf: a value out of range fails in Unmarshal
			return fieldError(field+".theta", "must be positive, got %s", config.FormatFloats(e.Theta))
		}
	}
	return nil
}

// evaluationsSHA256 is the digest of the evaluations, the best and the
// data and settings they belong to.
func (c *Checkpoint) evaluationsSHA256() string {
	b, _ := json.Marshal(struct {
		Data, Settings string
		Evaluations    []CheckpointEval
		Best           *CheckpointEval
	}{c.DataSHA256, c.SettingsSHA256, c.Evaluations, c.Best})
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// records returns the checkpoint's evaluations for mle.NewCache.
func (c *Checkpoint) records() []mle.Record {
	r := make([]mle.Record, len(c.Evaluations))
	for i, e := range c.Evaluations {
		r[i] = mle.Record{Theta: e.Theta, Failed: e.Error, Search: e.Search, Stage: e.Stage, Grad: e.Grad, Info: e.Info}
		if e.LogLik != nil {
			r[i].LogLik = *e.LogLik
		}
	}
	return r
}

// checkpointer keeps a fit's checkpoint up to date (rank 0), holding the
// locks of the files it writes and resumes.
type checkpointer struct {
	path   string
	ck     Checkpoint
	warned bool
	// computed is set once this run has added an evaluation: before, the
	// file is left as it was found.
	computed bool
	// verified is the point of the resumed best evaluation, recomputed to
	// verify it (mle.Cache.VerifyBest): it is in the file already.
	verified []float64
	locks    []*lockfile.Lock
	log      func(format string, a ...any)
}

// newCheckpoint starts the checkpoint of a fit with the evaluations of the
// one it resumes (nil: none).
func newCheckpoint(cfg config.Fit, set CheckpointSettings, dataHash string, from *Checkpoint) Checkpoint {
	ck := Checkpoint{Format: CheckpointFormat, Version: CheckpointVersion, Status: "running",
		Data: dataSource(cfg), DataSHA256: dataHash, Settings: set, SettingsSHA256: set.sha256(),
		Config: configMap(cfg), Evaluations: []CheckpointEval{},
		Optimizer: CheckpointOptimizer{Algorithm: "NLopt BOBYQA, restarted from the best point", MaxEvals: cfg.MaxEvals}}
	if from != nil {
		ck.Evaluations = append(ck.Evaluations, from.Evaluations...)
		ck.Best = from.Best
	}
	return ck
}

// configMap returns cfg's keys as the TOML file would give them.
func configMap(cfg config.Fit) map[string]any {
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(cfg); err != nil {
		return nil
	}
	m := map[string]any{}
	if _, err := toml.Decode(buf.String(), &m); err != nil {
		return nil
	}
	return m
}

// add records an evaluation computed in this run and rewrites the file.
func (c *checkpointer) add(e mle.Eval) {
	if c == nil || e.Replayed {
		return
	}
	at := e.Search
	if at == nil {
		at = e.Theta
	}
	if c.verified != nil && slices.Equal(c.verified, at) {
		c.verified = nil // the same record, verified
		return
	}
	r := e.Record()
	ce := CheckpointEval{Theta: r.Theta, Restart: e.Restart, Stage: r.Stage, Grad: r.Grad, Info: r.Info}
	if e.Search != nil {
		ce.Search = append([]float64(nil), e.Search...)
	}
	c.ck.Optimizer.Restarts = e.Restart
	if e.Failed != nil {
		ce.Error = e.Failed.Error()
	} else {
		l := e.LogLik
		ce.LogLik = &l
		if c.ck.Best == nil || l > *c.ck.Best.LogLik {
			best := ce
			c.ck.Best = &best
		}
	}
	c.ck.Evaluations = append(c.ck.Evaluations, ce)
	c.ck.Status = "running" // a refined Vecchia fit's next level after its first search's finish
	c.computed = true
	c.write()
}

// finish writes the final status: a failure only when this run computed
// something (a run that fails at its first evaluation leaves the
// checkpoint it found), any other status when there are evaluations.
func (c *checkpointer) finish(status string) {
	if c == nil || (status == "failed" && !c.computed) || len(c.ck.Evaluations) == 0 {
		return
	}
	c.ck.Status = status
	c.write()
}

// write rewrites the file; a failure is reported once and the fit goes on.
func (c *checkpointer) write() {
	c.ck.Written = time.Now().UTC().Format(time.RFC3339)
	c.ck.EvaluationsSHA256 = c.ck.evaluationsSHA256()
	if err := WriteJSON(c.path, &c.ck); err != nil && !c.warned {
		c.warned = true
		c.log("warning: checkpoint not written (the fit goes on without it): %v\n", err)
	}
}

// release gives the locks back (deferred by Fit: the outputs are written).
func (c *checkpointer) release() {
	if c == nil {
		return
	}
	for _, l := range c.locks {
		l.Release()
	}
	c.locks = nil
}

// agree returns an error on every rank when some rank has one: the
// message of the first rank that has one (broadcast, so that rank 0, the
// one that prints, says it), as an agreed *InputError. All ranks must
// call it at the same point.
func agree(w comm.Comm, err error) error {
	if w.Size() == 1 {
		return err
	}
	mine := int64(w.Size())
	if err != nil {
		mine = int64(w.Rank())
	}
	first, cerr := w.AllreduceMin(mine)
	if cerr != nil {
		return cerr
	}
	if first == int64(w.Size()) {
		return nil
	}
	var msg []byte
	if err != nil {
		msg = []byte(err.Error())
	}
	if msg, cerr = w.Bcast(int(first), msg); cerr != nil {
		return cerr
	}
	return &InputError{Err: errors.New(string(msg)), Agreed: true}
}

// resumeState is what a fit resumes from.
type resumeState struct {
	ck     *Checkpoint
	cache  *mle.Cache
	verify []float64 // the point of the best evaluation, recomputed
}

// lockCheckpoint takes, on rank 0, the locks of the checkpoint cfg writes
// and of the file it resumes, and removes the temporary files a killed
// run left beside the checkpoint. A lock another process holds is bad
// input naming the holder.
func lockCheckpoint(cfg config.Fit, what string) ([]*lockfile.Lock, error) {
	out := checkpointFile(&cfg)
	var locks []*lockfile.Lock
	for i, f := range []File{out, {Flag: "resume", Path: cfg.Resume}} {
		if f.Path == "" || (i == 1 && out.Path != "" && atomicfile.Same(f.Path, out.Path)) {
			continue
		}
		l, err := lockfile.Acquire(f.Path, what)
		var he *lockfile.HeldError
		switch {
		case errors.As(err, &he):
			for _, l := range locks {
				l.Release()
			}
			return nil, badInput("fit: --%s %s: %v; wait for it to end, or give this fit another --checkpoint", f.Flag, f.Path, err)
		case err != nil && f.Flag == "resume":
			// A resume file in a directory this rank cannot write (read
			// only): reading it needs no lock, and no one can write it.
		case err != nil:
			for _, l := range locks {
				l.Release()
			}
			return nil, badInput("fit: --%s %s: cannot lock it: %v", f.Flag, f.Path, err)
		default:
			locks = append(locks, l)
		}
	}
	if out.Path != "" {
		_, _ = atomicfile.RemoveTemps(out.Path)
	}
	return locks, nil
}

// prepareCheckpoint checks the resume file of cfg against this run (on
// every rank, agreed): rank 0 locks the checkpoint files and reads the
// resume file, every rank parses what it broadcasts (in) and checks it
// against this run's data (dataHash) and settings. (The checkpoint's path
// is checked with the other outputs: fitOutputs.) It returns the
// checkpoint writer (rank 0; nil elsewhere or when disabled) and what to
// replay (nil without --resume), whose best evaluation is recomputed when
// the search reaches it (mle.Cache.VerifyBest).
func prepareCheckpoint(w comm.Comm, in *Inputs, cfg config.Fit, set CheckpointSettings, dataHash string, env Env) (*checkpointer, *resumeState, error) {
	path := CheckpointPath(cfg)
	var locks []*lockfile.Lock
	var err error
	if w.Rank() == 0 {
		locks, err = lockCheckpoint(cfg, strings.Join(env.Command, " "))
	}
	if err = agree(w, err); err != nil {
		return nil, nil, err
	}
	rs, err := readResume(in, cfg, set, dataHash)
	if err != nil {
		for _, l := range locks {
			l.Release()
		}
		if w.Size() > 1 {
			err = &InputError{Err: err, Agreed: true} // the same bytes parsed alike on every rank
		}
		return nil, nil, err
	}
	var from *Checkpoint
	if rs != nil {
		from = rs.ck
		best := ""
		if from.Best != nil {
			best = fmt.Sprintf(", best l=%.6f at theta=%s", *from.Best.LogLik, config.FormatFloats(from.Best.Theta))
		}
		env.logf("fit: resuming from %s: %d evaluations to replay at no cost (status %s%s)\n", cfg.Resume, len(from.Evaluations), from.Status, best)
	}
	if path == "" || w.Rank() != 0 {
		return nil, rs, nil
	}
	ckw := &checkpointer{path: path, ck: newCheckpoint(cfg, set, dataHash, from), log: env.logf, locks: locks}
	if rs != nil {
		ckw.verified = rs.verify
	}
	return ckw, rs, nil
}

// readResume reads and checks the resume file of cfg (nil without one).
func readResume(in *Inputs, cfg config.Fit, set CheckpointSettings, dataHash string) (*resumeState, error) {
	if cfg.Resume == "" {
		return nil, nil
	}
	name, b, err := in.Read("resume", cfg.Resume)
	cfg.Resume = name // rank 0's, in every rank's messages
	if err != nil {
		var ir *Interrupted
		if errors.As(err, &ir) {
			return nil, err
		}
		return nil, badInput("fit: --resume %s: %v", cfg.Resume, readError(err))
	}
	ck, err := ParseCheckpoint(b)
	if err != nil {
		return nil, badInput("fit: --resume %s: %v", cfg.Resume, err)
	}
	if ck.DataSHA256 != dataHash {
		return nil, badInput("fit: --resume %s: made from other data (%s, sha256 %.12s…; this run %s, sha256 %.12s…)",
			cfg.Resume, ck.Data, ck.DataSHA256, dataSource(cfg), dataHash)
	}
	if set.sha256() != ck.SettingsSHA256 {
		if key, was, now := ck.Settings.diff(set); key != "" {
			return nil, badInput("fit: --resume %s: setting %q differs (checkpoint %s, this run %s)", cfg.Resume, key, was, now)
		}
		return nil, badInput("fit: --resume %s: the settings differ (settings_sha256 %.12s…, this run %.12s…)", cfg.Resume, ck.SettingsSHA256, set.sha256())
	}
	cache := mle.NewCache(ck.records())
	return &resumeState{ck: ck, cache: cache, verify: cache.VerifyBest(verifyTolerance)}, nil
}

// verifyTolerance is how far, relative to 1 + |l|, a recomputed best
// evaluation may be from its record: round-off when the tile size
// differs (an exact computation's; bitwise otherwise).
const verifyTolerance = 1e-9

// resumeMismatch turns the search's *mle.Mismatch into the refusal of the
// resume file.
func resumeMismatch(resume string, err error) error {
	var mm *mle.Mismatch
	if resume == "" || !errors.As(err, &mm) {
		return err
	}
	return &InputError{Err: fmt.Errorf("fit: --resume %s: %v at theta=%s: the checkpoint was edited, or written by a build that computes otherwise; start a new fit", resume, mm, config.FormatFloats(mm.Theta))}
}

// replayNote returns the log line of a resumed search's replay.
func replayNote(resume string, res *mle.Result, c *mle.Cache) string {
	s := fmt.Sprintf("fit: %d of %d evaluations replayed from %s at no cost, %d computed",
		res.Replayed, res.Evaluations, resume, res.Evaluations-res.Replayed)
	if u := c.Unused(); u > 0 {
		s += fmt.Sprintf(" (%d checkpointed evaluations unused)", u)
	}
	return s + "\n"
}

// meanName is the name of a mean model in messages ("" is zero).
func meanName(m string) string {
	if m == "" {
		return "zero"
	}
	return m
}
