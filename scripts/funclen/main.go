// Command funclen fails when a non-test Go function is longer than the
// limit (120 lines, from its func keyword to its closing brace), unless
// the allowlist names it; an allowlisted function that is no longer over
// the limit (or no longer exists) fails too, so the list only shrinks.
//
// Usage (from the repository root; `make test` runs it):
//
//	go run ./scripts/funclen [-max 120] [-allow scripts/funclen/allow.txt] cmd pkg
//
// Functions are named dir.Name or dir.Recv.Name (pkg/job.Fit,
// pkg/lp.Problem.Solve); every file is read, whatever its build tags.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	limit := flag.Int("max", 120, "the longest function allowed, in lines")
	allowFile := flag.String("allow", "scripts/funclen/allow.txt", "the functions allowed over the limit, one name a line (# comments)")
	flag.Parse()
	allow, err := readAllow(*allowFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "funclen:", err)
		os.Exit(2)
	}
	long, err := longFuncs(flag.Args(), *limit)
	if err != nil {
		fmt.Fprintln(os.Stderr, "funclen:", err)
		os.Exit(2)
	}
	bad := check(long, allow, *limit, *allowFile)
	for _, b := range bad {
		fmt.Fprintln(os.Stderr, "funclen:", b)
	}
	if len(bad) > 0 {
		os.Exit(1)
	}
}

// check returns a line for each function over the limit that the
// allowlist does not name, and for each allowlisted name that is not over
// the limit.
func check(long map[string]funcLen, allow map[string]bool, limit int, allowFile string) []string {
	var bad []string
	for name, f := range long {
		if !allow[name] {
			bad = append(bad, fmt.Sprintf("%s:%d: %s is %d lines (at most %d): split it", f.file, f.line, name, f.lines, limit))
		}
	}
	for name := range allow {
		if _, ok := long[name]; !ok {
			bad = append(bad, fmt.Sprintf("%s: %s is no longer over %d lines (or is gone): remove it from the list", allowFile, name, limit))
		}
	}
	sort.Strings(bad)
	return bad
}

type funcLen struct {
	file        string
	line, lines int
}

// longFuncs parses the non-test .go files under roots and returns the
// functions longer than limit lines, by name.
func longFuncs(roots []string, limit int) (map[string]funcLen, error) {
	out := map[string]funcLen{}
	fset := token.NewFileSet()
	for _, root := range roots {
		err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				start, end := fset.Position(fd.Pos()).Line, fset.Position(fd.End()).Line
				if n := end - start + 1; n > limit {
					out[name(filepath.ToSlash(filepath.Dir(path)), fd)] = funcLen{file: path, line: start, lines: n}
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// name is dir.Name, or dir.Recv.Name for a method.
func name(dir string, fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return dir + "." + fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	for {
		switch x := t.(type) {
		case *ast.StarExpr:
			t = x.X
			continue
		case *ast.IndexExpr:
			t = x.X
			continue
		case *ast.IndexListExpr:
			t = x.X
			continue
		case *ast.Ident:
			return dir + "." + x.Name + "." + fd.Name.Name
		}
		return dir + "." + fd.Name.Name
	}
}

func readAllow(path string) (map[string]bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]bool{}
	s := bufio.NewScanner(f)
	for s.Scan() {
		line := strings.TrimSpace(s.Text())
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		if line != "" {
			out[line] = true
		}
	}
	return out, s.Err()
}
