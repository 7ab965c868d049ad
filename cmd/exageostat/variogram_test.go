package main

import "testing"

// TestVariogramCLI: the variogram command's bad flags each give one line
// naming the flag (exit 2), and a run writes its outputs.
func TestVariogramCLI(t *testing.T) {
	ll := "lon,lat,z\n10,45,1\n11,46,0.5\n12,44,-1\n10.5,45.5,0.2\n"
	v := func(a ...string) []string { return append([]string{"variogram", "--data", "@d.csv"}, a...) }
	runCLICases(t, binary(t), []cliCase{
		{name: "variogram no data", args: []string{"variogram", "--out", "@v.csv"}, want: "variogram: --data is required"},
		{name: "variogram no output", args: v(), want: "variogram: no output: give --out, --json, --plot, --curve-out or --map-out"},
		{name: "variogram cutoff", args: v("--out", "@v.csv", "--cutoff", "-1"), want: "variogram: --cutoff -1: want a positive distance"},
		{name: "variogram width", args: v("--out", "@v.csv", "--width", "NaN"), want: "variogram: --width NaN: want a positive distance"},
		{name: "variogram width word", args: v("--out", "@v.csv", "--width", "wide"), want: `invalid argument "wide" for "--width" flag`},
		{name: "variogram min pairs", args: v("--out", "@v.csv", "--min-pairs", "-1"), want: "variogram: --min-pairs -1: want >= 0"},
		{name: "variogram alpha range", args: v("--out", "@v.csv", "--alpha", "0,400"), want: "variogram: --alpha 400: want degrees in [0, 360)"},
		{name: "variogram alpha word", args: v("--out", "@v.csv", "--alpha", "north"), want: `variogram: --alpha: "north" is not a number`},
		{name: "variogram five directions", args: v("--out", "@v.csv", "--alpha", "0,30,60,90,120"), want: "variogram: --alpha: 5 directions (at most 4)"},
		{name: "variogram tol without alpha", args: v("--out", "@v.csv", "--tol-hor", "10"), want: "variogram: --tol-hor needs directions (--alpha)"},
		{name: "variogram tol range", args: v("--out", "@v.csv", "--alpha", "0", "--tol-hor", "100"), want: "variogram: --tol-hor 100: want degrees in (0, 90]"},
		{name: "variogram residuals word", args: v("--out", "@v.csv", "--residuals", "ml"), want: "variogram: --residuals ml: want ols, gls or none"},
		{name: "variogram gls without fit", args: v("--out", "@v.csv", "--residuals", "gls"), want: "variogram: --residuals gls needs the coefficients of a fit (--theta-from)"},
		{name: "variogram gls without mean", args: v("--out", "@v.csv", "--residuals", "gls", "--theta-from", "@r.json"), want: "variogram: --residuals gls needs the mean_coefficients of a fit with a mean"},
		{name: "variogram curve without fit", args: v("--curve-out", "@c.csv"), want: "variogram: --curve-out needs a fitted model (--theta-from)"},
		{name: "variogram map cells", args: v("--map-out", "@m.csv", "--cutoff", "1", "--width", "0.0001"), want: "variogram: --map-out: variogram: map cutoff 1 over width 0.0001 gives more than 1001 cells a side"},
		{name: "variogram lon lat directions", args: []string{"variogram", "--data", "@ll.csv", "--out", "@v.csv", "--alpha", "0"}, files: map[string]string{"ll.csv": ll},
			want: "variogram: --alpha: directions need planar x,y coordinates"},
		{name: "variogram unknown flag", args: v("--bins", "3"), want: "unknown flag: --bins"},
		{name: "variogram out is data", args: v("--out", "@d.csv"), want: "variogram: --out d.csv: is the --data file"},
		{name: "variogram writes", args: v("--out", "@v.csv", "--json", "@v.json", "--theta-from", "@r.json", "--curve-out", "@c.csv", "--map-out", "@m.csv", "--min-pairs", "5", "-q"),
			ok: true, want: "variogram: N=60 values=the observations z", writes: []string{"v.csv", "v.json", "c.csv", "m.csv"}},
	})
}
