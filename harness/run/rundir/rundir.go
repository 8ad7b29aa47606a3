// Package rundir creates the timestamped directory a run writes into.
// A run directory is never reused: two runs in the same second get distinct
// names, so nothing a previous run wrote is overwritten.
package rundir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// StampFormat is the UTC stamp in directory and file names (20260704T101530Z).
const StampFormat = "20060102T150405Z"

// Dir is a run directory, created on first use so that a test binary that
// runs no suite leaves nothing behind.
type Dir struct {
	root string
	now  time.Time

	mu    sync.Mutex
	path  string
	stamp string
	err   error
}

// New describes a run directory under root stamped with now (UTC).
func New(root string, now time.Time) *Dir {
	return &Dir{root: root, now: now.UTC()}
}

// Path creates the directory if needed and returns it.
func (d *Dir) Path() (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.path == "" && d.err == nil {
		d.create()
	}
	return d.path, d.err
}

// Stamp is the run's timestamp as used in file names; it has a -N suffix
// when an earlier run took the plain stamp.
func (d *Dir) Stamp() string {
	d.Path()
	return d.stamp
}

// Created reports whether the directory exists (some suite used it).
func (d *Dir) Created() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.path != ""
}

// Sub creates and returns a subdirectory, for one suite's files.
func (d *Dir) Sub(name string) (string, error) {
	p, err := d.Path()
	if err != nil {
		return "", err
	}
	sub := filepath.Join(p, name)
	if err := os.MkdirAll(sub, 0o755); err != nil {
		return "", fmt.Errorf("creating %s: %w", sub, err)
	}
	return sub, nil
}

func (d *Dir) create() {
	if err := os.MkdirAll(d.root, 0o755); err != nil {
		d.err = fmt.Errorf("creating results directory %s: %w", d.root, err)
		return
	}
	base := d.now.Format(StampFormat)
	for n := 1; n < 1000; n++ {
		stamp := base
		if n > 1 {
			stamp = fmt.Sprintf("%s-%d", base, n)
		}
		p := filepath.Join(d.root, stamp)
		err := os.Mkdir(p, 0o755)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			d.err = fmt.Errorf("creating run directory %s: %w", p, err)
			return
		}
		d.path, d.stamp = p, stamp
		d.linkLatest()
		return
	}
	d.err = fmt.Errorf("no free run directory name under %s for stamp %s", d.root, base)
}

// linkLatest points root/latest at this run, for scripts and people. It is a
// convenience: failure to make it is not an error.
func (d *Dir) linkLatest() {
	link := filepath.Join(d.root, "latest")
	tmp := link + ".tmp-" + d.stamp
	if err := os.Symlink(d.stamp, tmp); err != nil {
		return
	}
	if err := os.Rename(tmp, link); err != nil {
		os.Remove(tmp)
	}
}

// Existing returns the run directory at path, made by an earlier run, to
// continue it (-resume): its stamp is the directory's name, and nothing is
// created. The error says what to pass instead when path is not one.
func Existing(path string) (*Dir, error) {
	path = filepath.Clean(path)
	if resolved, err := filepath.EvalSymlinks(path); err == nil {
		path = resolved // results/latest names the run it points at
	}
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("-resume %s: %w; pass a run directory such as results/20260704T101530Z", path, err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("-resume %s: not a directory; pass a run directory such as results/20260704T101530Z", path)
	}
	stamp := filepath.Base(path)
	base, _, _ := strings.Cut(stamp, "-")
	if _, err := time.Parse(StampFormat, base); err != nil {
		return nil, fmt.Errorf("-resume %s: %q is not a run directory's name (a UTC stamp such as 20260704T101530Z); pass the directory a run printed as \"results in …\"", path, stamp)
	}
	return &Dir{root: filepath.Dir(path), path: path, stamp: stamp}, nil
}
