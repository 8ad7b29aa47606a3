package ckpt

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// scratchPrefix names the folders that hold converted weights while
// sessions load them, followed by the process id and a random suffix.
const scratchPrefix = "feather-checkpoint-"

// scratchRoots are where scratch folders go, in order of preference:
// memory-backed /dev/shm (the file lives only while sessions load it, and
// a disk would write it back for nothing, or throttle the writes when
// other programs' writes are pending), unless TMPDIR names the place;
// else the temporary folder.
func scratchRoots() []string {
	if os.Getenv("TMPDIR") != "" {
		return []string{os.TempDir()}
	}
	return []string{"/dev/shm", os.TempDir()}
}

// makeScratch makes a scratch folder, first removing those that
// processes which no longer run left behind (killed while loading).
func makeScratch() (string, error) {
	var err error
	for _, root := range scratchRoots() {
		sweep(root)
		var dir string
		if dir, err = os.MkdirTemp(root, fmt.Sprintf("%s%d-*", scratchPrefix, os.Getpid())); err == nil {
			return dir, nil
		}
	}
	return "", err
}

// sweep removes root's scratch folders of processes that are gone.
func sweep(root string) {
	dirs, _ := filepath.Glob(filepath.Join(root, scratchPrefix+"*"))
	for _, d := range dirs {
		pid, _, _ := strings.Cut(strings.TrimPrefix(filepath.Base(d), scratchPrefix), "-")
		if n, err := strconv.Atoi(pid); err == nil && n != os.Getpid() && gone(n) {
			os.RemoveAll(d)
		}
	}
}
