// Package atomicfile writes output files so that a reader never sees a
// half-written one: the content goes to a temporary file in the same
// directory, which is synced and renamed onto the target only when complete.
//
// A symbolic link is written through: the link is resolved (link after
// link) and its target is replaced, in the target's directory, so the link
// itself stays a link. CheckWritable and Same let a command check its
// outputs before it starts its work.
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// maxLinks bounds the symbolic links followed by Resolve (as the kernel's
// ELOOP limit).
const maxLinks = 40

// Resolve returns the file that writing path replaces: path itself, or the
// final target of the symbolic links it names, followed one by one (a
// relative link is taken from the directory holding it). The target need
// not exist (a dangling link is resolved to the file it names). Only the
// last element is followed: the directories on the way are left as given,
// which reaches the same file.
func Resolve(path string) (string, error) {
	p := path
	for range maxLinks {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return p, nil // the callers report the missing directory
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return p, nil
		}
		to, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(to) {
			to = filepath.Join(filepath.Dir(p), to)
		}
		p = to
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links", path)
}

// Write creates or replaces path with what fill writes. On any error the
// temporary file is removed and path is left untouched; an existing file
// keeps its permissions. A symbolic link is written through to its target
// (Resolve), which is replaced; the link stays. Errors name the path.
func Write(path string, fill func(io.Writer) error) error {
	return WriteAll([]string{path}, []func(io.Writer) error{fill})
}

// WriteAll writes each paths[i] with fills[i] as Write does, all or none:
// every file is written to its temporary file first, and only when all are
// complete are they renamed onto their targets, in order. An error before
// the renames leaves every path untouched; no temporary file remains on
// any error. len(fills) must be len(paths).
func WriteAll(paths []string, fills []func(io.Writer) error) (err error) {
	if len(fills) != len(paths) {
		panic(fmt.Sprintf("atomicfile: %d paths and %d fills", len(paths), len(fills)))
	}
	temps := make([]string, 0, len(paths))
	targets := make([]string, 0, len(paths))
	defer func() {
		if err != nil {
			for _, t := range temps {
				os.Remove(t) // the renamed ones are gone already
			}
		}
	}()
	for i, path := range paths {
		tmp, target, err := writeTemp(path, fills[i])
		if err != nil {
			return err
		}
		temps, targets = append(temps, tmp), append(targets, target)
	}
	for i := range temps {
		if err := os.Rename(temps[i], targets[i]); err != nil {
			return fmt.Errorf("write %s: %w", paths[i], err)
		}
	}
	return nil
}

// writeTemp writes what fill writes to a synced temporary file beside the
// file that writing path replaces (target, through its links), with the
// permissions of an existing target (else 0644). On error the temporary
// file is removed; errors name path.
func writeTemp(path string, fill func(io.Writer) error) (tmpName, target string, err error) {
	target, err = Resolve(path)
	if err != nil {
		return "", "", fmt.Errorf("write %s: %w", path, err)
	}
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	mode := os.FileMode(0o644)
	if fi, statErr := os.Stat(target); statErr == nil {
		if !fi.Mode().IsRegular() {
			return "", "", fmt.Errorf("write %s: not a regular file", path)
		}
		mode = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return "", "", fmt.Errorf("write %s: %w", path, err)
	}
	name := tmp.Name() // the results are "" on error
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(name)
			err = fmt.Errorf("write %s: %w", path, err)
		}
	}()
	bw := bufio.NewWriterSize(tmp, 1<<16)
	if err = fill(bw); err != nil {
		return "", "", err
	}
	if err = bw.Flush(); err != nil {
		return "", "", err
	}
	if err = tmp.Chmod(mode); err != nil {
		return "", "", err
	}
	if err = tmp.Sync(); err != nil {
		return "", "", err
	}
	if err = tmp.Close(); err != nil {
		return "", "", err
	}
	return name, target, nil
}

// CheckWritable reports, before any work, whether Write could replace
// path: path (through its links) is not a directory or another
// non-regular file, and a temporary file can be created and removed in
// its directory. Nothing is left behind. The error says why, without
// naming path (the caller names it with its flag).
func CheckWritable(path string) error {
	if path == "" {
		return errors.New("empty path")
	}
	target, err := Resolve(path)
	if err != nil {
		return err
	}
	if fi, err := os.Stat(target); err == nil {
		if fi.IsDir() {
			return errors.New("is a directory")
		}
		if !fi.Mode().IsRegular() {
			return errors.New("not a regular file")
		}
	}
	dir := filepath.Dir(target)
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("directory %s does not exist", dir)
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	return CheckDir(dir)
}

// CheckDir reports whether a file can be created (and is then removed) in
// the existing directory dir.
func CheckDir(dir string) error {
	f, err := os.CreateTemp(dir, ".exageostat-check-*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("cannot create a file in %s: %v", dir, err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// Same reports whether the paths a and b name the same file: equal once
// made absolute and cleaned, or, when both exist, the same file after
// their symbolic links (os.SameFile); a link that dangles is compared by
// the path it resolves to.
func Same(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	abs := func(p string) string {
		if q, err := filepath.Abs(p); err == nil {
			return q
		}
		return filepath.Clean(p)
	}
	if abs(a) == abs(b) {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(fa, fb)
	}
	ra, errA := Resolve(a)
	rb, errB := Resolve(b)
	if errA == nil && errB == nil {
		ra, rb = abs(ra), abs(rb)
		if ra == rb {
			return true
		}
		// The same name in the same directory reached two ways.
		da, errA := os.Stat(filepath.Dir(ra))
		db, errB := os.Stat(filepath.Dir(rb))
		return errA == nil && errB == nil && filepath.Base(ra) == filepath.Base(rb) && os.SameFile(da, db)
	}
	return false
}

// RemoveTemps removes the temporary files that Write leaves beside path
// when the process dies between creating one and renaming it (kill -9):
// ".BASE.tmp*" in the directory of path's target. Call it only while no
// other process writes path (holding its lock, pkg/lockfile): it would
// remove a file another Write is filling. It returns how many it removed.
func RemoveTemps(path string) (int, error) {
	target, err := Resolve(path)
	if err != nil {
		return 0, err
	}
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	names, err := filepath.Glob(filepath.Join(dir, "."+globEscape(base)+".tmp*"))
	if err != nil {
		return 0, err
	}
	n := 0
	for _, name := range names {
		if fi, err := os.Lstat(name); err == nil && fi.Mode().IsRegular() && os.Remove(name) == nil {
			n++
		}
	}
	return n, nil
}

// globEscape quotes the characters filepath.Match reads as a pattern.
func globEscape(s string) string {
	var b []byte
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '*', '?', '[', '\\':
			b = append(b, '\\')
		}
		b = append(b, s[i])
	}
	return string(b)
}
