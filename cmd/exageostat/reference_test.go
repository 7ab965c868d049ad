package main

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
	"github.com/spf13/pflag"

	"github.com/exageostat/exageostat/pkg/comm"
	"github.com/exageostat/exageostat/pkg/job"
)

var updateReference = flag.Bool("update-reference", false, "rewrite docs/commands and docs/man from the commands (make docs)")

// referenceDate is the date the man pages carry: fixed, so that the
// pages change only when a command does.
var referenceDate = time.Date(2026, time.November, 1, 0, 0, 0, 0, time.UTC)

// writeReference writes the command reference of every command, as
// cobra/doc makes it from the flags, help texts and examples: markdown
// under dir/commands and man pages under dir/man. A default that depends
// on the machine (--workers: the cores of the process) is written as
// such, so the reference is the same on every machine.
func writeReference(dir string) error {
	root := newRootCmd(comm.Self{})
	root.DisableAutoGenTag = true
	cores := strconv.Itoa(job.DefaultWorkers())
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if f.Name == "workers" && f.DefValue == cores {
				f.DefValue = "one per core"
			}
		})
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	md, man := filepath.Join(dir, "commands"), filepath.Join(dir, "man")
	for _, d := range []string{md, man} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	if err := doc.GenMarkdownTree(root, md); err != nil {
		return err
	}
	return doc.GenManTree(root, &doc.GenManHeader{Title: "EXAGEOSTAT", Section: "1", Date: &referenceDate,
		Source: "exageostat", Manual: "exageostat manual"}, man)
}

// TestCommandReference: docs/commands (markdown) and docs/man (man
// pages) are exactly what the commands make of themselves now, file for
// file, so the reference cannot fall behind the binary. `make docs`
// rewrites them (go test -run TestCommandReference -update-reference).
func TestCommandReference(t *testing.T) {
	docs := filepath.Join("..", "..", "docs")
	if *updateReference {
		for _, sub := range []string{"commands", "man"} {
			if err := os.RemoveAll(filepath.Join(docs, sub)); err != nil {
				t.Fatal(err)
			}
		}
		if err := writeReference(docs); err != nil {
			t.Fatal(err)
		}
		return
	}
	dir := t.TempDir()
	if err := writeReference(dir); err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{"commands", "man"} {
		want, err := os.ReadDir(filepath.Join(dir, sub))
		if err != nil {
			t.Fatal(err)
		}
		have, err := os.ReadDir(filepath.Join(docs, sub))
		if err != nil {
			t.Fatalf("%v: run make docs", err)
		}
		names := map[string]bool{}
		for _, e := range have {
			names[e.Name()] = true
		}
		for _, e := range want {
			got, err := os.ReadFile(filepath.Join(docs, sub, e.Name()))
			if err != nil {
				t.Errorf("docs/%s/%s is missing: run make docs", sub, e.Name())
				continue
			}
			gen, err := os.ReadFile(filepath.Join(dir, sub, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(gen) {
				t.Errorf("docs/%s/%s differs from the command's help: run make docs", sub, e.Name())
			}
			delete(names, e.Name())
		}
		for n := range names {
			t.Errorf("docs/%s/%s documents no command: run make docs", sub, n)
		}
	}
}
