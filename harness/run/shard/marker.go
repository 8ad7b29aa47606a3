package shard

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/feather-eval/feather/harness/run/rundir"
)

// MarkerFile, in a run directory, says which shard of a run it holds; a
// run directory without one is a whole run.
const MarkerFile = "shard.json"

// WriteMarker records in runDir that it holds shard s. A run directory
// that already says it holds another shard is an error (-resume of one
// shard with another's -shard).
func WriteMarker(runDir string, s Shard) error {
	prev, ok, err := ReadMarker(runDir)
	switch {
	case err != nil:
		return err
	case ok && prev != s:
		return fmt.Errorf("%s holds shard %s, not %s: resume a shard with its own -shard", runDir, prev, s)
	case ok:
		return nil
	}
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(runDir, MarkerFile), append(b, '\n'), 0o644)
}

// ReadMarker reads the shard a run directory holds; ok is false for a
// whole run.
func ReadMarker(runDir string) (s Shard, ok bool, err error) {
	p := filepath.Join(runDir, MarkerFile)
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return Shard{}, false, nil
	}
	if err != nil {
		return Shard{}, false, err
	}
	if err := json.Unmarshal(b, &s); err != nil || s.Count < 1 || s.Index < 1 || s.Index > s.Count {
		return Shard{}, false, fmt.Errorf("%s: not a shard marker: want {\"index\": i, \"count\": n} with 1 ≤ i ≤ n", p)
	}
	return s, true, nil
}

// Part is one shard's run directory.
type Part struct {
	Dir   string
	Shard Shard
}

// Check makes sure parts are the whole of one sharded run: the same count
// n, each shard 1..n exactly once. It returns them in shard order.
func Check(parts []Part) ([]Part, error) {
	if len(parts) == 0 {
		return nil, nil
	}
	sorted := append([]Part(nil), parts...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Shard.Index < sorted[j].Shard.Index })
	n := sorted[0].Shard.Count
	at := map[int]string{}
	for _, p := range sorted {
		if p.Shard.Count != n {
			return nil, fmt.Errorf("cannot merge shards: %s is shard %s but %s is shard %s; pass the shards of one run, all i/%d", sorted[0].Dir, sorted[0].Shard, p.Dir, p.Shard, n)
		}
		if d, dup := at[p.Shard.Index]; dup {
			return nil, fmt.Errorf("cannot merge shards: %s and %s are both shard %s; pass each shard of the run once", d, p.Dir, p.Shard)
		}
		at[p.Shard.Index] = p.Dir
	}
	var missing []string
	for i := 1; i <= n; i++ {
		if at[i] == "" {
			missing = append(missing, Shard{Index: i, Count: n}.String())
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("cannot merge shards: shard %s missing (have %s); pass all %d shard run directories", strings.Join(missing, ", "), have(sorted), n)
	}
	return sorted, nil
}

// have lists the shards given, for Check's message.
func have(parts []Part) string {
	list := make([]string, len(parts))
	for i, p := range parts {
		list[i] = p.Shard.String() + " in " + p.Dir
	}
	return strings.Join(list, ", ")
}

// MarkRun records s in run directory d once a suite has created it, so
// that merging can check that the shards are all there. A whole run, and
// a run that wrote nothing, are left as they are.
func MarkRun(d *rundir.Dir, s Shard) error {
	if s.Whole() || !d.Created() {
		return nil
	}
	p, err := d.Path()
	if err != nil {
		return err
	}
	return WriteMarker(p, s)
}

// CheckResume refuses, before anything runs, to continue run directory d
// under a shard other than the one it holds.
func CheckResume(d *rundir.Dir, s Shard) error {
	p, err := d.Path()
	if err != nil {
		return err
	}
	prev, ok, err := ReadMarker(p)
	switch {
	case err != nil:
		return err
	case prev != s && ok:
		return fmt.Errorf("%s holds shard %s, not %s: resume a shard with its own -shard", p, prev, describe(s))
	case prev != s:
		return fmt.Errorf("%s holds a whole run, not shard %s: resume it without -shard", p, s)
	}
	return nil
}

func describe(s Shard) string {
	if s.Whole() {
		return "the whole run (no -shard)"
	}
	return s.String()
}
