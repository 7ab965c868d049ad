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
var notPaths = []string{"kernel", "distance", "start", "search", "profile", "mean", "devices", "scheduler",
	"ci", "grid", "cv", "z_name", "units", "xy_units", "solve", "computation", "memory_limit", "deadline",
	"distribution"}

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
	v := reflect.ValueOf(f)
	for _, name := range paths {
		for i := range v.NumField() {
			if n, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("toml"), ","); n == name {
				if got := v.Field(i).String(); got != filepath.Join(dir, "rel", name) {
					t.Errorf("%s = %q, want it from the file's directory", name, got)
				}
			}
		}
	}
	if !slices.Contains(paths, "perfmodel") {
		t.Error("perfmodel is not a path key")
	}
}
