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
	"strings"
	"syscall"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/config"
	"github.com/exageostat/exageostat/pkg/dataset"
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
//   - settings and settings_sha256: what changes l(theta) or the path of
//     the search (CheckpointSettings);
//   - config: the run's whole configuration, for the record (not compared);
//   - evaluations: every (theta, l) paid for, in the order computed (l is
//     null for a failed evaluation, with its error), and best, the best so
//     far;
//   - status: "running" while the search runs, then the optimiser's final
//     status ("interrupted" after SIGINT or SIGTERM).
//
// The optimiser's restart state is not stored as such: BOBYQA and its
// restarts are deterministic given the objective's values, so `fit
// --resume` rebuilds it by replaying the evaluations from a cache keyed by
// theta (mle.Options.Replay): the resumed search retraces the checkpointed
// path bitwise at no cost, then computes what comes after.
const (
	CheckpointFormat  = "exageostat fit checkpoint"
	CheckpointVersion = 1
)

// Checkpoint is the content of a checkpoint file.
type Checkpoint struct {
	Format         string              `json:"format"`
	Version        int                 `json:"version"`
	Written        string              `json:"written"`
	Status         string              `json:"status"`
	Data           string              `json:"data"` // the data's source, for messages
	DataSHA256     string              `json:"data_sha256"`
	SettingsSHA256 string              `json:"settings_sha256"`
	Settings       CheckpointSettings  `json:"settings"`
	Optimizer      CheckpointOptimizer `json:"optimizer"`
	Config         map[string]any      `json:"config,omitempty"`
	Best           *CheckpointEval     `json:"best,omitempty"`
	Evaluations    []CheckpointEval    `json:"evaluations"`
}

// CheckpointSettings are the settings a resumed fit must share with the
// checkpoint: they change l(theta) (kernel, distance, nugget, the hold-out
// split) or the path of the search (bounds, start, search scale,
// tolerance). Others may differ: nb, workers, ranks and distribution change
// l only by round-off (the replayed values are then the checkpoint's);
// max_evals only cuts the path, so a run that reached its limit can go on
// with a larger one; the output files are free.
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
	// exact): they change l.
	Computation string `json:"computation,omitempty"`
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

// diff returns the first setting that differs between s (the
// checkpoint's) and t (this run's), with both values, or "".
func (s CheckpointSettings) diff(t CheckpointSettings) (key, was, now string) {
	f := func(v float64) string { return config.FormatFloats([]float64{v}) }
	pairs := []struct{ key, a, b string }{
		{"kernel", s.Kernel, t.Kernel},
		{"distance", s.Distance, t.Distance},
		{"nugget", f(s.Nugget), f(t.Nugget)},
		{"lb", config.FormatFloats(s.Lower), config.FormatFloats(t.Lower)},
		{"ub", config.FormatFloats(s.Upper), config.FormatFloats(t.Upper)},
		{"start", s.Start, t.Start},
		{"search", s.Search, t.Search},
		{"tolerance", f(s.Tolerance), f(t.Tolerance)},
		{"holdout", fmt.Sprint(s.Holdout), fmt.Sprint(t.Holdout)},
		{"seed", fmt.Sprint(s.Seed), fmt.Sprint(t.Seed)},
		{"profile", onOff(s.Profile == "on"), onOff(t.Profile == "on")},
		{"mean", meanName(s.Mean), meanName(t.Mean)},
		{"reml", fmt.Sprint(s.REML), fmt.Sprint(t.REML)},
	}
	for _, p := range pairs {
		if p.a != p.b {
			return p.key, p.a, p.b
		}
	}
	return "", "", ""
}

func (s CheckpointSettings) sha256() string {
	b, _ := json.Marshal(s)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// checkpointSettings returns cfg's settings that a resume must match.
func checkpointSettings(cfg config.Fit, distance string, start []float64, profile bool) CheckpointSettings {
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
	if cfg.Computation != "" && cfg.Computation != "exact" {
		s.Computation = fmt.Sprintf("%s accuracy=%g max-rank=%d band=%d", cfg.Computation, cfg.TLRAccuracy, cfg.MaxRank, cfg.MPBand)
		if cfg.HPotrf > 0 {
			// The hierarchical potrf sums in another order (the lookahead
			// changes no value).
			s.Computation += fmt.Sprintf(" hpotrf=%d", cfg.HPotrf)
		}
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

// ReadCheckpoint reads a checkpoint file.
func ReadCheckpoint(path string) (*Checkpoint, []byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, nil, fmt.Errorf("cannot read: %v", err)
	}
	var c Checkpoint
	if err := json.Unmarshal(b, &c); err != nil || c.Format != CheckpointFormat {
		return nil, nil, fmt.Errorf("not an exageostat fit checkpoint")
	}
	if c.Version != CheckpointVersion {
		return nil, nil, fmt.Errorf("checkpoint format version %d; this exageostat reads version %d", c.Version, CheckpointVersion)
	}
	for i, e := range c.Evaluations {
		if len(e.Theta) != len(c.Settings.Lower) || (e.LogLik == nil) == (e.Error == "") ||
			(e.Search != nil && len(e.Search) != len(e.Theta)) {
			return nil, nil, fmt.Errorf("evaluation %d is malformed", i+1)
		}
	}
	return &c, b, nil
}

// records returns the checkpoint's evaluations for mle.NewCache.
func (c *Checkpoint) records() []mle.Record {
	r := make([]mle.Record, len(c.Evaluations))
	for i, e := range c.Evaluations {
		r[i] = mle.Record{Theta: e.Theta, Failed: e.Error, Search: e.Search}
		if e.LogLik != nil {
			r[i].LogLik = *e.LogLik
		}
	}
	return r
}

// checkpointer keeps a fit's checkpoint up to date (rank 0).
type checkpointer struct {
	path   string
	ck     Checkpoint
	warned bool
	log    func(format string, a ...any)
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
	ce := CheckpointEval{Theta: append([]float64(nil), e.Theta...), Restart: e.Restart}
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
	c.write()
}

// finish writes the final status.
func (c *checkpointer) finish(status string) {
	if c == nil {
		return
	}
	c.ck.Status = status
	c.write()
}

// write rewrites the file; a failure is reported once and the fit goes on.
func (c *checkpointer) write() {
	c.ck.Written = time.Now().UTC().Format(time.RFC3339)
	if err := WriteJSON(c.path, &c.ck); err != nil && !c.warned {
		c.warned = true
		c.log("warning: checkpoint not written (the fit goes on without it): %v\n", err)
	}
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
	ck    *Checkpoint
	cache *mle.Cache
}

// prepareCheckpoint checks the resume file of cfg against this run (on
// every rank, agreed): a checkpoint of the same data (dataHash) and
// settings, and the same file on every rank. (The checkpoint's path is
// checked with the other outputs: fitOutputs.) It
// returns the checkpoint writer (rank 0; nil elsewhere or when disabled)
// and what to replay (nil without --resume).
func prepareCheckpoint(w comm.Comm, cfg config.Fit, set CheckpointSettings, dataHash string, logf func(string, ...any)) (*checkpointer, *resumeState, error) {
	path := CheckpointPath(cfg)
	var rs *resumeState
	var raw []byte
	err := func() error {
		if cfg.Resume != "" {
			ck, b, err := ReadCheckpoint(cfg.Resume)
			if err != nil {
				return badInput("fit: --resume %s: %v", cfg.Resume, err)
			}
			raw = b
			if ck.DataSHA256 != dataHash {
				return badInput("fit: --resume %s: made from other data (%s, sha256 %.12s…; this run %s, sha256 %.12s…)",
					cfg.Resume, ck.Data, ck.DataSHA256, dataSource(cfg), dataHash)
			}
			if key, was, now := ck.Settings.diff(set); key != "" {
				return badInput("fit: --resume %s: setting %q differs (checkpoint %s, this run %s)", cfg.Resume, key, was, now)
			}
			rs = &resumeState{ck: ck, cache: mle.NewCache(ck.records())}
		}
		return nil
	}()
	if err = agree(w, err); err != nil {
		return nil, nil, err
	}
	// Every rank must replay the same evaluations.
	if cfg.Resume != "" && w.Size() > 1 {
		h := sha256.Sum256(raw)
		root, berr := w.Bcast(0, h[:])
		if berr != nil {
			return nil, nil, berr
		}
		var err error
		if !bytes.Equal(root, h[:]) {
			err = badInput("fit: --resume %s: rank %d reads another file than rank 0", cfg.Resume, w.Rank())
		}
		if err = agree(w, err); err != nil {
			return nil, nil, err
		}
	}
	var from *Checkpoint
	if rs != nil {
		from = rs.ck
		best := ""
		if from.Best != nil {
			best = fmt.Sprintf(", best l=%.6f at theta=%s", *from.Best.LogLik, config.FormatFloats(from.Best.Theta))
		}
		logf("fit: resuming from %s: %d evaluations to replay at no cost (status %s%s)\n", cfg.Resume, len(from.Evaluations), from.Status, best)
	}
	if path == "" || w.Rank() != 0 {
		return nil, rs, nil
	}
	return &checkpointer{path: path, ck: newCheckpoint(cfg, set, dataHash, from), log: logf}, rs, nil
}

// Interrupted is the error of a fit that SIGINT or SIGTERM stopped: the
// search ended after the evaluation under way; the best result so far was
// written (JSON, checkpoint) with status "interrupted", and comes back
// with the error. The ranks agree on it. The process should exit with
// ExitCode, 128 + the signal's number (130 for SIGINT, 143 for SIGTERM).
type Interrupted struct {
	Signal      syscall.Signal
	Evaluations int    // evaluations of the search (replayed included)
	Checkpoint  string // the checkpoint to resume from ("" without one)
	// Complete is set when the signal came after the search, during the
	// assessment: the result is complete.
	Complete bool
}

func (e *Interrupted) Error() string {
	name := signalName(e.Signal)
	if e.Complete {
		return fmt.Sprintf("fit: %s during the assessment: the result is complete", name)
	}
	msg := fmt.Sprintf("fit: interrupted by %s after %d evaluations", name, e.Evaluations)
	if e.Checkpoint != "" {
		msg += fmt.Sprintf("; continue with --resume %s", e.Checkpoint)
	}
	return msg
}

// ExitCode returns 128 + the signal's number.
func (e *Interrupted) ExitCode() int { return 128 + int(e.Signal) }

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return fmt.Sprintf("signal %d", int(s))
}

// noSignal is the largest value the ranks' stop votes take.
const noSignal = 1 << 30

// stopper returns the stop test of a fit's search, called after every
// evaluation on every rank: the ranks agree (AllreduceMin, once per
// evaluation, when there are several) on whether one of them received a
// signal, and on which (the smallest number). The signal agreed on is
// kept in *sig.
func stopper(w comm.Comm, interrupt func() os.Signal, sig *syscall.Signal) func() bool {
	return func() bool {
		var mine int64 = noSignal
		if interrupt != nil {
			if s, ok := interrupt().(syscall.Signal); ok && s > 0 {
				mine = int64(s)
			}
		}
		if w.Size() > 1 {
			m, err := w.AllreduceMin(mine)
			if err != nil {
				return false
			}
			mine = m
		}
		if mine < noSignal {
			*sig = syscall.Signal(mine)
			return true
		}
		return false
	}
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
