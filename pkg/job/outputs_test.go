package job

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/exageostat/exageostat/pkg/config"
)

// TestOutputsCheck: unwritable outputs, an output onto an input (also
// through a link), two outputs onto one file; fine outputs leave nothing.
func TestOutputsCheck(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	os.WriteFile(data, []byte("x,y,z\n"), 0o644)
	link := filepath.Join(dir, "link.csv")
	os.Symlink("d.csv", link)
	file := filepath.Join(dir, "file")
	os.WriteFile(file, nil, 0o644)
	ins := []File{{Flag: "data", Path: data}}
	cases := []struct {
		outs []File
		want string
	}{
		{[]File{{Flag: "json", Path: filepath.Join(dir, "r.json")}, {Flag: "plot", Path: filepath.Join(dir, "a", "b"), Dir: true}}, ""},
		{[]File{{Flag: "json", Path: data}}, "fit: --json " + data + ": is the --data file"},
		{[]File{{Flag: "json", Path: link}}, "is the --data file"},
		{[]File{{Flag: "json", Path: filepath.Join(dir, ".", "d.csv")}}, "is the --data file"},
		{[]File{{Flag: "json", Path: filepath.Join(dir, "r.json")}, {Flag: "trace", Path: filepath.Join(dir, "r.json")}}, "--trace " + filepath.Join(dir, "r.json") + ": is also the --json output"},
		{[]File{{Flag: "json", Path: dir}}, "cannot be written: is a directory"},
		{[]File{{Flag: "json", Path: "/proc/r.json"}}, "cannot be written: cannot create a file in /proc"},
		{[]File{{Flag: "json", Path: filepath.Join(dir, "no", "r.json")}}, "does not exist"},
		{[]File{{Flag: "plot", Path: file, Dir: true}}, "--plot " + file + ": cannot be written: not a directory"},
		{[]File{{Flag: "plot", Path: filepath.Join(file, "x"), Dir: true}}, "is not a directory"},
		{[]File{{Flag: "plot", Path: "/proc/plots", Dir: true}}, "cannot create a file in /proc"},
	}
	for _, c := range cases {
		err := Outputs{Cmd: "fit", Outputs: c.outs, Inputs: ins}.Check()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%v: %v", c.outs, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !IsInput(err)):
			t.Errorf("%v: %v, want %q", c.outs, err, c.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 3 {
		t.Fatalf("Check left files: %v", entries)
	}
	// A key a configuration file gave is placed in the file.
	f := config.DefaultFit()
	f.File, f.FileKeys, f.JSON = "c.toml", map[string]int{"json": 4}, data
	f.Data = data
	err := fitOutputs(&f).Check()
	if err == nil || !strings.HasPrefix(err.Error(), `c.toml:4: key "json": `+data+": is the --data file") {
		t.Fatal(err)
	}
}

// TestReadFitResultErrors: what is wrong with a --theta-from file, one line.
func TestReadFitResultErrors(t *testing.T) {
	dir := t.TempDir()
	good := `{"kernel":"matern","distance":"euclidean","theta":[1,0.1,0.5],"nugget":0.5}`
	cases := []struct{ content, want string }{
		{good[:40], "not valid JSON (unexpected end at byte 40: the file is truncated)"},
		{"", "empty file"},
		{`{"theta":[1,0.1,0.5]}}`, "not valid JSON (invalid character '}' after top-level value at byte 22)"},
		{`[1,2]`, "not a fit result (a JSON array, not an object)"},
		{`{"theta":"1,2,3"}`, `not a fit result ("theta" is a JSON string, want []float64)`},
		{`{"kernel":"matern"}`, "not a fit result (no theta)"},
		{`{"kernel":"gauss","theta":[1,0.1,0.5]}`, `"kernel": unknown kernel "gauss"`},
		{`{"theta":[1,0.1]}`, `"theta": matern needs 3 parameters`},
		{`{"theta":[1,0.1,0.5],"distance":"l1"}`, `"distance": unknown distance "l1"`},
		{`{"theta":[1,0.1,0.5],"nugget":-1}`, `"nugget": must be >= 0`},
	}
	for _, c := range cases {
		p := filepath.Join(dir, "r.json")
		os.WriteFile(p, []byte(c.content), 0o644)
		_, err := ReadFitResult(p)
		if err == nil || !strings.HasPrefix(err.Error(), p+": ") || !strings.Contains(err.Error(), c.want) || !IsInput(err) {
			t.Errorf("%q: %v, want %q", c.content, err, c.want)
		}
	}
	if _, err := ReadFitResult(filepath.Join(dir, "none.json")); err == nil || !strings.Contains(err.Error(), "none.json: cannot open: no such file") || !IsInput(err) {
		t.Errorf("missing file: %v", err)
	}
}

// TestApplyTo: a kernel, nugget or distance given with --theta-from must
// agree with the fit's; the same value again is fine.
func TestApplyTo(t *testing.T) {
	r := &FitResult{Kernel: "matern", Distance: "great-circle", Theta: []float64{1, 0.1, 0.5}, Nugget: 0.25}
	cases := []struct {
		set  func(*config.Predict)
		keys string
		want string // "" : fine
	}{
		{func(p *config.Predict) {}, "", ""},
		{func(p *config.Predict) { p.Nugget = 0.25 }, "nugget", ""},
		{func(p *config.Predict) { p.Nugget = 0 }, "nugget", "--nugget 0 disagrees with the nugget 0.25"},
		{func(p *config.Predict) { p.Kernel = "powexp" }, "kernel", "--kernel powexp disagrees"},
		{func(p *config.Predict) { p.Distance = "gc" }, "distance", ""},
		{func(p *config.Predict) { p.Distance = "great-circle" }, "distance", ""},
		{func(p *config.Predict) { p.Distance = "euclidean" }, "distance", "--distance euclidean disagrees with the great-circle distance"},
		{func(p *config.Predict) { p.Distance = "auto" }, "distance", ""},
	}
	for i, c := range cases {
		p := config.DefaultPredict()
		c.set(&p)
		err := r.ApplyTo(&p, "r.json", func(k string) bool { return strings.Contains(c.keys, k) })
		switch {
		case c.want == "" && err != nil:
			t.Errorf("case %d: %v", i, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("case %d: %v, want %q", i, err, c.want)
		case c.want == "" && (p.Nugget != 0.25 || p.Kernel != "matern" || len(p.Theta) != 3):
			t.Errorf("case %d: applied %+v", i, p)
		}
		if c.keys == "distance" && p.Distance == "auto" && p.FitDistance != "great-circle" {
			t.Errorf("case %d: auto not checked later: %+v", i, p)
		}
	}
	// A fit that estimated the nugget: theta's 4th value is tau2.
	r4 := &FitResult{Kernel: "matern", Theta: []float64{1, 0.1, 0.5, 0.125}, Nugget: 0.125}
	p := config.DefaultPredict()
	if err := r4.ApplyTo(&p, "r.json", func(string) bool { return false }); err != nil || p.Nugget != 0.125 || len(p.Theta) != 3 {
		t.Fatalf("tau2 estimated: %v %+v", err, p)
	}
	p = config.DefaultPredict()
	p.Nugget = 0.2
	if err := r4.ApplyTo(&p, "r.json", func(k string) bool { return k == "nugget" }); err == nil || !strings.Contains(err.Error(), "disagrees with the nugget 0.125") {
		t.Fatalf("tau2 estimated, other --nugget: %v", err)
	}
}
