package dataset

import (
	"fmt"
	"math"
	"testing"
)

func TestValidate(t *testing.T) {
	f := func(v ...float64) []float64 { return v }
	cases := []struct {
		name string
		d    *Data
		min  int
		want string // "" for no error
	}{
		{"ok", &Data{X: f(0, 1, 0), Y: f(0, 0, 1), Obs: f(1, 2, 3)}, 3, ""},
		{"ok locations only", &Data{X: f(0, 1, 0), Y: f(0, 0, 1)}, 3, ""},
		{"ok geographic edges", &Data{X: f(-180, 360, 0), Y: f(-90, 90, 0), Coords: Geographic}, 3, ""},
		{"same x different y", &Data{X: f(1, 1, 1), Y: f(1, 2, 3)}, 3, ""},
		{"fewer than 3", &Data{X: f(0, 1), Y: f(0, 1), Obs: f(1, 2)}, 3, "need at least 3 locations, got 2"},
		{"empty", &Data{}, 1, "need at least 1 locations, got 0"},
		{"duplicate", &Data{X: f(0, 1, 2, 3, 4, 5, 6, 7, 3), Y: f(0, 1, 2, 3, 4, 5, 6, 7, 3)}, 3,
			"duplicate locations at rows 4 and 9: the covariance matrix is singular without a nugget (estimate one: fit with a 4th value in --lb and --ub; or give one: --nugget, or theta's 4th value)"},
		{"signed zero duplicate", &Data{X: f(0, 1, math.Copysign(0, -1)), Y: f(0, 1, 0)}, 3,
			"duplicate locations at rows 1 and 3: the covariance matrix is singular without a nugget (estimate one: fit with a 4th value in --lb and --ub; or give one: --nugget, or theta's 4th value)"},
		{"first duplicate reported", &Data{X: f(5, 1, 1, 5), Y: f(5, 2, 2, 5)}, 3,
			"duplicate locations at rows 2 and 3: the covariance matrix is singular without a nugget (estimate one: fit with a 4th value in --lb and --ub; or give one: --nugget, or theta's 4th value)"},
		{"latitude", &Data{X: f(0, 1, 2), Y: f(0, 90.5, 0), Coords: Geographic}, 3, "row 2: latitude 90.5 outside [-90, 90] degrees"},
		{"negative latitude", &Data{X: f(0, 1, 2), Y: f(0, 0, -91), Coords: Geographic}, 3, "row 3: latitude -91 outside [-90, 90] degrees"},
		{"longitude", &Data{X: f(0, 361, 2), Y: f(0, 0, 0), Coords: Geographic}, 3, "row 2: longitude 361 outside [-180, 360] degrees"},
		{"negative longitude", &Data{X: f(-180.5, 1, 2), Y: f(0, 0, 0), Coords: Geographic}, 3, "row 1: longitude -180.5 outside [-180, 360] degrees"},
		{"planar outside lat range is fine", &Data{X: f(0, 1000, 2), Y: f(-500, 0, 0)}, 3, ""},
		{"nan obs", &Data{X: f(0, 1, 2), Y: f(0, 0, 0), Obs: f(1, math.NaN(), 3)}, 3, "row 2: z is NaN"},
		{"inf x", &Data{X: f(0, 1, math.Inf(1)), Y: f(0, 0, 0)}, 3, "row 3: x is +Inf"},
		{"nan lon", &Data{X: f(math.NaN(), 1, 2), Y: f(0, 0, 0), Coords: Geographic}, 3, "row 1: lon is NaN"},
		{"lengths", &Data{X: f(0, 1, 2), Y: f(0, 0)}, 3, "inconsistent data: 3 x values but 2 y values"},
		{"obs length", &Data{X: f(0, 1, 2), Y: f(0, 0, 0), Obs: f(1)}, 3, "inconsistent data: 3 locations but 1 observations"},
		{"bad coords", &Data{X: f(0, 1, 2), Y: f(0, 0, 0), Coords: 7}, 3, "unknown coordinate metric Coords(7)"},
		{"nil", nil, 3, "no data"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Validate(c.d, c.min)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != c.want {
				t.Errorf("got %q want %q", got, c.want)
			}
		})
	}
}

func TestValidateLargeGrid(t *testing.T) {
	d := Grid(20000, 1)
	if err := Validate(d, 3); err != nil {
		t.Fatal(err)
	}
	d.X = append(d.X, d.X[123])
	d.Y = append(d.Y, d.Y[123])
	want := "duplicate locations at rows 124 and 20001: the covariance matrix is singular without a nugget (estimate one: fit with a 4th value in --lb and --ub; or give one: --nugget, or theta's 4th value)"
	if err := Validate(d, 3); err == nil || err.Error() != want {
		t.Errorf("got %v want %q", err, want)
	}
}

func TestValidateWithDuplicates(t *testing.T) {
	d := &Data{X: []float64{0.1, 0.5, 0.1, 0.7}, Y: []float64{0.2, 0.1, 0.2, 0.7}, Obs: []float64{1, 2, 3, 1}}
	cases := []struct {
		duplicates bool
		want       string
	}{
		{false, "duplicate locations at rows 1 and 3: the covariance matrix is singular without a nugget (estimate one: fit with a 4th value in --lb and --ub; or give one: --nugget, or theta's 4th value)"},
		{true, ""},
	}
	for _, c := range cases {
		err := ValidateWith(d, 3, c.duplicates)
		if got := fmt.Sprint(err); (c.want == "" && err != nil) || (c.want != "" && got != c.want) {
			t.Errorf("duplicates allowed %v: %v, want %q", c.duplicates, err, c.want)
		}
	}
	// Other checks still apply when duplicates are allowed.
	d.Obs[1] = math.NaN()
	if err := ValidateWith(d, 3, true); err == nil || err.Error() != "row 2: z is NaN" {
		t.Errorf("NaN with duplicates allowed: %v", err)
	}
}
