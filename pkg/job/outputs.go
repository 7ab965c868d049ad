package job

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/exageostat/exageostat/pkg/atomicfile"
	"github.com/exageostat/exageostat/pkg/config"
)

// File is a file (or directory) a command reads or writes: the flag that
// names it, its configuration key ("" when it has none) and its path.
type File struct {
	Flag string // without the dashes: "json"
	Key  string // the configuration key, "" when the flag has none
	Path string
	// Dir marks an output directory (fit --plot): it may not exist yet,
	// but the nearest directory above it that exists must be writable.
	Dir bool
}

// Outputs are the files a command will write and the ones it reads, to be
// checked before any work starts (Check).
type Outputs struct {
	// Cmd names the command in messages ("fit", "plan").
	Cmd     string
	Outputs []File
	Inputs  []File
	// Place, if not nil, places a message about a key that a
	// configuration file gave (fit: config.Fit.Locate).
	Place func(error) error
}

// Check reports, before the work starts, an output that could not be
// written at the end of it (its directory missing or not writable, a
// directory where a file is wanted: a temporary file is created and
// removed beside it), an output that is one of the inputs (the same path,
// or the same file through links: atomicfile.Same), and two outputs onto
// one file. Errors are bad input naming the flag and the path. Files with
// an empty path are not given and are skipped.
func (o Outputs) Check() error {
	bad := func(f File, format string, a ...any) error {
		msg := fmt.Sprintf(format, a...)
		if o.Place != nil && f.Key != "" {
			err := o.Place(&config.Error{File: "fit", Key: f.Key, Msg: fmt.Sprintf("%s: %s", f.Path, msg)})
			var ce *config.Error
			if errors.As(err, &ce) && ce.File != "fit" {
				return err // given by the file: file:line: key "json": path: msg
			}
		}
		return badInput("%s: --%s %s: %s", o.Cmd, f.Flag, f.Path, msg)
	}
	var outs []File
	for _, f := range o.Outputs {
		if f.Path == "" || f.Path == StdoutPath {
			continue
		}
		for _, in := range o.Inputs {
			if in.Path != "" && atomicfile.Same(f.Path, in.Path) {
				what := "file"
				if in.Dir {
					what = "directory"
				}
				return bad(f, "is the --%s %s (%s): an output must not replace an input", in.Flag, what, in.Path)
			}
		}
		for _, g := range outs {
			if atomicfile.Same(f.Path, g.Path) {
				return bad(f, "is also the --%s output: give each output its own file", g.Flag)
			}
		}
		outs = append(outs, f)
		var err error
		if f.Dir {
			err = checkOutputDir(f.Path)
		} else {
			err = atomicfile.CheckWritable(f.Path)
		}
		if err != nil {
			return bad(f, "cannot be written: %v", err)
		}
	}
	return nil
}

// checkOutputDir reports whether the directory dir exists and is
// writable, or else can be created: its nearest existing parent is a
// writable directory.
func checkOutputDir(dir string) error {
	d := filepath.Clean(dir)
	for {
		st, err := os.Stat(d)
		switch {
		case err == nil && st.IsDir():
			return atomicfile.CheckDir(d)
		case err == nil:
			if d == filepath.Clean(dir) {
				return errors.New("not a directory")
			}
			return fmt.Errorf("%s is not a directory", d)
		case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
			return err
		}
		up := filepath.Dir(d)
		if up == d {
			return fmt.Errorf("no directory of %s exists", dir)
		}
		d = up
	}
}

// fitOutputs are the files of a fit, for Check.
func fitOutputs(cfg *config.Fit) Outputs {
	return Outputs{
		Cmd: "fit",
		Outputs: []File{
			{Flag: "json", Key: "json", Path: cfg.JSON},
			{Flag: "trace", Key: "trace", Path: cfg.Trace},
			{Flag: "plot", Key: "plot", Path: cfg.Plot, Dir: true},
			{Flag: "cv-out", Key: "cv_out", Path: cfg.CVOut},
			{Flag: "perfmodel", Key: "perfmodel", Path: cfg.PerfModel}, // read when it exists, written at the end
			checkpointFile(cfg),
		},
		Inputs: []File{
			{Flag: "data", Path: cfg.Data},
			{Flag: "locations", Path: cfg.Locations},
			{Flag: "observations", Path: cfg.Observations},
			{Flag: "cluster", Path: cfg.Cluster},
			{Flag: "config", Path: cfg.File},
		},
		Place: cfg.Locate,
	}
}

// predictOutputs are the files of a prediction, for Check.
func predictOutputs(cfg *config.Predict) Outputs {
	return Outputs{
		Cmd:     "predict",
		Outputs: []File{{Flag: "out", Path: cfg.Out}, {Flag: "json", Path: cfg.JSON}, {Flag: "trace", Path: cfg.Trace}, {Flag: "plot", Path: cfg.Plot, Dir: true}},
		Inputs:  []File{{Flag: "data", Path: cfg.Data}, {Flag: "at", Path: cfg.At}, {Flag: "theta-from", Path: cfg.ThetaFrom}},
	}
}
