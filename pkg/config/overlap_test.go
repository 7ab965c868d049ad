package config

import (
	"strings"
	"testing"
)

// TestOverlapTable: the [overlap] table's keys turn switches off, the
// others keep their default (on); a value of the wrong type or an unknown
// key is an error naming the file, the line and the key.
func TestOverlapTable(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      Overlap
		err       string
	}{
		{"defaults", "nb = 160\n", AllOverlap(), ""},
		{"two off", "[overlap]\nasync = false\nsubmission_order = false\n",
			Overlap{LocalSolve: true, Memory: true, Priorities: true, Oversubscribe: true}, ""},
		{"all off", "[overlap]\nasync = false\nlocal_solve = false\nmemory = false\npriorities = false\nsubmission_order = false\noversubscription = false\n",
			Overlap{}, ""},
		{"wrong type", "[overlap]\nasync = 3\n", Overlap{}, ":2: key \"overlap.async\": incompatible types"},
		{"unknown key", "[overlap]\nasync = true\nturbo = false\n", Overlap{}, ":3: key \"overlap.turbo\": unknown key"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := write(t, c.src)
			f := DefaultFit()
			err := Load(p, &f)
			if c.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), p) || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %s%s", err, p, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if f.Overlap != c.want {
				t.Errorf("got %+v, want %+v", f.Overlap, c.want)
			}
		})
	}
}

// TestOverlapApply: the --overlap syntax.
func TestOverlapApply(t *testing.T) {
	for _, c := range []struct {
		list string
		want string
		err  string
	}{
		{"", "async=on,local-solve=on,memory=on,priorities=on,submission-order=on,oversubscription=on", ""},
		{"async=off,local-solve=off", "async=off,local-solve=off,memory=on,priorities=on,submission-order=on,oversubscription=on", ""},
		{"all=off,memory=on", "async=off,local-solve=off,memory=on,priorities=off,submission-order=off,oversubscription=off", ""},
		{"submission_order=false, oversubscription=off", "async=on,local-solve=on,memory=on,priorities=on,submission-order=off,oversubscription=off", ""},
		{"async", "", `"async": want NAME=on|off`},
		{"async=maybe", "", `"async=maybe": want NAME=on|off`},
		{"turbo=on", "", `unknown optimisation "turbo"`},
	} {
		t.Run(c.list, func(t *testing.T) {
			o := AllOverlap()
			err := o.Apply(c.list)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				if o != AllOverlap() {
					t.Errorf("a failed Apply changed the switches: %v", o)
				}
				return
			}
			if err != nil || o.String() != c.want {
				t.Errorf("got %s (%v), want %s", o, err, c.want)
			}
		})
	}
}
