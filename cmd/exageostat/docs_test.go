package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/exageostat/exageostat/pkg/comm"
)

// A shell block of the documentation: its file, the line of its first
// command, its fence's language (sh: run by TestDocsRun; console: shown,
// not run) and its text.
type shellBlock struct {
	file, lang, text string
	line             int
}

// docFiles are the pages whose shell blocks the tests read: README.md and
// docs/*.md (not the generated command reference).
func docFiles(t *testing.T) []string {
	t.Helper()
	root := filepath.Join("..", "..")
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{filepath.Join(root, "README.md")}, files...)
}

// shellBlocks returns the ```sh and ```console blocks of a markdown file.
func shellBlocks(t *testing.T, path string) []shellBlock {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []shellBlock
	var cur *shellBlock
	var b strings.Builder
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && (line == "```sh" || line == "```console"):
			cur = &shellBlock{file: path, lang: strings.TrimPrefix(line, "```"), line: n + 1}
			b.Reset()
		case cur != nil && line == "```":
			cur.text = b.String()
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			b.WriteString(line + "\n")
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// shellWords splits a command line into words as a shell would for the
// simple lines of the docs: blanks separate, single and double quotes
// group, and a word starting with # begins a comment.
func shellWords(s string) []string {
	var words []string
	var w strings.Builder
	inWord := false
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				w.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case r == '#' && !inWord:
			return words
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}

// invocations returns the exageostat command lines of a block: each line
// (continuations joined) cut at ;, &&, || and |, from the word
// exageostat or bin/exageostat on, with the line number.
func invocations(b shellBlock) (lines []int, cmds [][]string) {
	var joined []string // the lines, continuations joined
	var starts []int    // the file line of each
	cont := false
	for i, line := range strings.Split(b.text, "\n") {
		if cont {
			joined[len(joined)-1] += " " + strings.TrimSuffix(line, "\\")
		} else {
			joined, starts = append(joined, strings.TrimSuffix(line, "\\")), append(starts, b.line+i)
		}
		cont = strings.HasSuffix(line, "\\")
	}
	for k, line := range joined {
		var cur []string
		flush := func() {
			for j, w := range cur {
				if w == "exageostat" || strings.HasSuffix(w, "/exageostat") {
					lines, cmds = append(lines, starts[k]), append(cmds, cur[j+1:])
					break
				}
			}
			cur = nil
		}
		for _, w := range shellWords(line) {
			if w == ";" || w == "&&" || w == "||" || w == "|" {
				flush()
				continue
			}
			cur = append(cur, w)
		}
		flush()
	}
	return lines, cmds
}

// checkArgs finds the command that args name under root and reports its
// first flag that the command does not define.
func checkArgs(root *cobra.Command, args []string) error {
	c := root
	i := 0
	for ; i < len(args) && !strings.HasPrefix(args[i], "-"); i++ {
		var next *cobra.Command
		for _, s := range c.Commands() {
			if s.Name() == args[i] {
				next = s
			}
		}
		if next == nil {
			if len(c.Commands()) > 0 {
				return fmt.Errorf("%q is not a command of %q", args[i], c.CommandPath())
			}
			break // a positional argument
		}
		c = next
	}
	for _, a := range args[i:] {
		if !strings.HasPrefix(a, "-") || a == "-" {
			continue
		}
		name := strings.SplitN(strings.TrimLeft(a, "-"), "=", 2)[0]
		if name == "help" || name == "h" || (c == root && name == "version") {
			continue
		}
		var f *pflag.Flag
		if strings.HasPrefix(a, "--") {
			f = c.Flags().Lookup(name)
			if f == nil {
				f = c.InheritedFlags().Lookup(name)
			}
		} else {
			f = c.Flags().ShorthandLookup(name[:1])
			if f == nil {
				f = c.InheritedFlags().ShorthandLookup(name[:1])
			}
		}
		if f == nil {
			return fmt.Errorf("%q has no flag %s", c.CommandPath(), a)
		}
	}
	return nil
}

// TestDocsFlags: every exageostat command line in the shell blocks of
// README.md and docs/*.md, run or shown, names a command that exists and
// only flags it has, so that a renamed flag cannot leave the docs behind.
func TestDocsFlags(t *testing.T) {
	root := newRootCmd(comm.Self{})
	count := 0
	for _, path := range docFiles(t) {
		for _, b := range shellBlocks(t, path) {
			lines, cmds := invocations(b)
			for i, args := range cmds {
				count++
				if err := checkArgs(root, args); err != nil {
					t.Errorf("%s:%d: exageostat %s: %v", filepath.Base(path), lines[i], strings.Join(args, " "), err)
				}
			}
		}
	}
	if count < 50 {
		t.Errorf("found %d exageostat command lines in the docs; the parser has lost them", count)
	}
}

// TestDocsRun runs every ```sh block of README.md and docs/*.md as
// written, with bash -e, in a fresh directory per page where bin/
// exageostat (and exageostat on the PATH) is the binary under test (the
// MPI build), testdata/,
// configs/ and docs/ are the repository's, and mpirun may run as root
// with more ranks than cores. A block that fails fails the test with its
// output: the examples cannot drift from the binary. Blocks fenced
// ```console are shown only (TestDocsFlags checks their flags).
// A block that reads or writes a raster (GDAL) runs only where GDAL is
// installed, as the Makefile's gdal tag does.
func TestDocsRun(t *testing.T) {
	bin := mpiBinary(t)
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	real, err := exec.LookPath("mpirun")
	if err != nil {
		t.Fatal(err)
	}
	wrap := t.TempDir()
	// The blocks' /tmp/ paths become this run's own directory: two runs at
	// once (CI beside a developer's make test) would otherwise share files
	// and checkpoint locks.
	tmp := t.TempDir()
	writeFile(t, wrap, "mpirun", fmt.Sprintf("#!/bin/sh\nexec %q --allow-run-as-root --oversubscribe \"$@\"\n", real))
	if err := os.Symlink(bin, filepath.Join(wrap, "exageostat")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(wrap, "mpirun"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, path := range docFiles(t) {
		var blocks []shellBlock
		for _, b := range shellBlocks(t, path) {
			if b.lang == "sh" {
				blocks = append(blocks, b)
			}
		}
		if len(blocks) == 0 {
			continue
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			dir := t.TempDir()
			if err := os.Mkdir(filepath.Join(dir, "bin"), 0o755); err != nil {
				t.Fatal(err)
			}
			links := map[string]string{"bin/exageostat": bin}
			for _, d := range []string{"testdata", "configs", "docs"} {
				links[d] = filepath.Join(root, d)
			}
			for name, target := range links {
				if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
					t.Fatal(err)
				}
			}
			for _, b := range blocks {
				if !hasGDAL() && needsGDAL(b.text) {
					t.Logf("%s:%d: a GIS block, not run: no gdal-config (scripts/deps.sh installs libgdal-dev)", filepath.Base(path), b.line)
					continue
				}
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
				cmd := exec.CommandContext(ctx, "bash", "-e", "-o", "pipefail", "-c", strings.ReplaceAll(b.text, "/tmp/", tmp+"/"))
				cmd.Dir = dir
				cmd.Env = append(os.Environ(), "PATH="+wrap+string(os.PathListSeparator)+os.Getenv("PATH"))
				out, err := cmd.CombinedOutput()
				cancel()
				if err != nil {
					t.Fatalf("%s:%d: the block fails (%v):\n%s\n%s", filepath.Base(path), b.line, err, b.text, out)
				}
			}
		})
	}
}

// needsGDAL reports whether a shell block uses GIS files or GDAL's tools.
func needsGDAL(text string) bool {
	for _, s := range []string{"gdal", ".tif", ".nc ", ".gpkg", ".shp"} {
		if strings.Contains(text, s) {
			return true
		}
	}
	return false
}
