package config

import (
	"fmt"
	"strings"
	"unicode"
)

// One rule for the keys that do nothing without another: each is refused
// when given without the key it needs, naming both (exit status 2), as
// grid, draws and cv_out always were. Needs lists them for fit; predict and
// cv have their own (Predict.needs).

// need is a key that does nothing unless another is set.
type need struct {
	key   string // the key given
	given bool   // set to a value other than its default
	needs string // what it needs, as a flag ("--plot DIR")
	ok    bool   // what it needs is there
}

// firstNeed returns the first key of ns given without what it needs.
func firstNeed(ns []need) (key, msg string) {
	for _, n := range ns {
		if n.given && !n.ok {
			flag := "--" + strings.ReplaceAll(n.key, "_", "-")
			return n.key, fmt.Sprintf("%s does nothing without %s: give it too, or leave %s out", flag, n.needs, flag)
		}
	}
	return "", ""
}

// needs returns f's keys that work only with another.
func (f *Fit) needs() []need {
	return []need{
		{"ci_level", f.Given("ci_level") && f.CILevel != DefaultFit().CILevel, "--ci profile", f.CI == "profile"},
		{"dpi", f.DPI != 0, "--plot DIR", f.Plot != ""},
		{"z_name", f.ZName != "", "--plot DIR", f.Plot != ""},
		{"units", f.Units != "", "--plot DIR", f.Plot != ""},
		{"xy_units", f.XYUnits != "", "--plot DIR", f.Plot != ""},
	}
}

// checkLabels refuses a label for the pictures (key, value) with a control
// character (a newline, an escape), which would break the SVG and the
// terminal's output.
func checkLabels(bad func(key, format string, a ...any) error, labels ...[2]string) error {
	for _, l := range labels {
		for i, r := range l[1] {
			if unicode.IsControl(r) || r == unicode.ReplacementChar {
				return bad(l[0], "--%s: %q at byte %d is a control character or invalid UTF-8: labels are printed text", strings.ReplaceAll(l[0], "_", "-"), r, i+1)
			}
		}
	}
	return nil
}

// checkDependents applies the rule to f's keys, checks its labels and its
// tile distribution (the same on any number of ranks: the keys, not their
// fit to the ranks, which the run checks).
func (f *Fit) checkDependents(bad func(key, format string, a ...any) error) error {
	if key, msg := firstNeed(f.needs()); key != "" {
		return bad(key, "%s", msg)
	}
	if err := checkLabels(bad, [2]string{"z_name", f.ZName}, [2]string{"units", f.Units}, [2]string{"xy_units", f.XYUnits}); err != nil {
		return err
	}
	if f.Kernel == BivariateKernel && f.Mean != "zero" && f.Mean != "" {
		return bad("mean", "--mean %s is not for --kernel %s (each of its two variables would need a mean of its own): leave --mean out", f.Mean, BivariateKernel)
	}
	if err := checkPhases(f.File, f.Phase, f.Generation, f.Cluster != ""); err != nil {
		return f.Locate(err)
	}
	return nil
}

// checkPhases checks the distribution keys of a command on any number of
// ranks (Phase.validate without the node count).
func checkPhases(file string, fact, gen Phase, groups bool) error {
	if file == "" {
		file = "fit"
	}
	if err := fact.validate(file, "", 0, groups); err != nil {
		return err
	}
	if gen.Distribution == "" {
		return nil
	}
	return gen.validate(file, "generation.", 0, groups)
}

// checkDependents applies the rule to p's keys (the pictures' settings need
// cv --plot), checks its labels, the mean of a bivariate model and the
// tile distribution (as Fit.checkDependents).
func (p *Predict) checkDependents(bad func(key, format string, a ...any) error) error {
	plot := "--plot DIR (cv)"
	if key, msg := firstNeed([]need{
		{"dpi", p.DPI != 0, plot, p.Plot != ""},
		{"z_name", p.ZName != "", plot, p.Plot != ""},
		{"units", p.Units != "", plot, p.Plot != ""},
		{"xy_units", p.XYUnits != "", plot, p.Plot != ""},
	}); key != "" {
		return bad(key, "%s", msg)
	}
	if err := checkLabels(bad, [2]string{"z_name", p.ZName}, [2]string{"units", p.Units}, [2]string{"xy_units", p.XYUnits}); err != nil {
		return err
	}
	if p.Kernel == BivariateKernel && p.Mean != "zero" && p.Mean != "" {
		return bad("mean", "--mean %s is not for --kernel %s (each of its two variables would need a mean of its own): leave --mean out", p.Mean, BivariateKernel)
	}
	if p.Kernel == BivariateKernel && p.Draws > 0 {
		what := "--draws"
		if p.Cmd == "simulate" {
			what = "--conditional"
		}
		return bad("kernel", "%s is not for --kernel %s yet (no conditional simulation of two variables)", what, BivariateKernel)
	}
	return checkPhases(p.Command(), p.Phase, Phase{}, false)
}
