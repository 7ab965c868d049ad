package config

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// notPaths are the string keys of Fit that name no file.
var notPaths = []string{"vecchia_select", "kernel", "distance", "start", "search", "profile", "mean", "devices", "scheduler",
	"ci", "grid", "cv", "z_name", "units", "xy_units", "solve", "computation", "memory_limit", "deadline",
	"distribution", "vecchia_order", "vecchia_grouping", "z", "coords", "time", "na", "dec", "transform", "pin", "crs"}

// TestEveryPathKeyFromTheFile: each string key of a fit's configuration is
// either a path (PathKeys) or listed here as none, so that a path key added
// later cannot be missed; every path a file gives relative to itself is
// taken from the file's directory.
func TestEveryPathKeyFromTheFile(t *testing.T) {
	var src strings.Builder
	var paths []string
	typ := reflect.TypeOf(Fit{})
	var walk func(reflect.Type)
	walk = func(typ reflect.Type) {
		for i := range typ.NumField() {
			f := typ.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
			if f.Anonymous && f.Type.Kind() == reflect.Struct {
				walk(f.Type)
				continue
			}
			if f.Type.Kind() != reflect.String || name == "-" || name == "" {
				continue
			}
			switch {
			case slices.Contains(PathKeys, name):
				paths = append(paths, name)
				src.WriteString(name + " = \"rel/" + name + "\"\n")
			case !slices.Contains(notPaths, name):
				t.Errorf("key %q: a path (add it to PathKeys) or not (add it to notPaths)?", name)
			}
		}
	}
	walk(typ)
	dir := t.TempDir()
	p := filepath.Join(dir, "c.toml")
	if err := os.WriteFile(p, []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	f := DefaultFit()
	if err := LoadFit(p, &f); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	var values func(reflect.Value)
	values = func(v reflect.Value) {
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if f.Anonymous && f.Type.Kind() == reflect.Struct {
				values(v.Field(i)) // embedded tables' keys (vecchia_sets)
				continue
			}
			if n, _, _ := strings.Cut(f.Tag.Get("toml"), ","); n != "" && f.Type.Kind() == reflect.String {
				got[n] = v.Field(i).String()
			}
		}
	}
	values(reflect.ValueOf(f))
	for _, name := range paths {
		if got[name] != filepath.Join(dir, "rel", name) {
			t.Errorf("%s = %q, want it from the file's directory", name, got[name])
		}
	}
	for _, k := range []string{"perfmodel", "vecchia_sets", "vecchia_sets_out"} {
		if !slices.Contains(paths, k) {
			t.Errorf("%s is not a path key", k)
		}
	}
}
