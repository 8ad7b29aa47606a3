// Package runs reads finished run directories (results/<stamp>/) back
// through each suite's own readers, for reports and leaderboards: nothing
// here re-parses a suite's files by hand.
package runs

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/feather-eval/feather/harness/run/shard"
	"github.com/feather-eval/feather/harness/suites/featherbench"
	"github.com/feather-eval/feather/harness/suites/featherweight"
	"github.com/feather-eval/feather/harness/suites/microbench"
)

// Suite subdirectories of a run directory.
const (
	FeatherbenchDir  = "featherbench"
	FeatherweightDir = "featherweight"
	MicrobenchDir    = "microbench"
)

// Set is everything read from some run directories. A suite is nil when no
// directory holds results for it.
type Set struct {
	// Dirs are the run directories read, resolved (results/latest becomes
	// results/<stamp>), without repeats.
	Dirs          []string
	Featherbench  *Featherbench
	Featherweight *Featherweight
	Microbench    *Microbench
	// Notes say what was passed over and why, for the report to show.
	Notes []string
	// folded are the run directories of shards 2..n of a sharded run:
	// the run goes by its first shard's stamp.
	folded map[string]bool
}

// Featherbench is every trial record found, in directory and file order.
type Featherbench struct {
	Files   []string
	Records []featherbench.Record
	// Tasks are the task files the records refer to, by id: from the
	// folder the report was given, else the folders the runs recorded
	// (featherbench.TaskSource), else the default folder.
	Tasks map[string]featherbench.Task
	// TasksDir names the folders Tasks came from ("" when none).
	TasksDir string
	// sources are the runs' records of their tasks; recorded their tasks
	// by id, for categories when the files cannot be read.
	sources  []*featherbench.TaskSource
	recorded map[string]featherbench.SourceTask
}

// Categories maps task ids to categories for featherbench.Summarize: the
// task files', else the runs' record of them; nil without either.
func (f *Featherbench) Categories() map[string]string {
	if len(f.Tasks) == 0 && len(f.recorded) == 0 {
		return nil
	}
	out := map[string]string{}
	for id, t := range f.recorded {
		out[id] = t.Category
	}
	for id, t := range f.Tasks {
		out[id] = t.Category
	}
	return out
}

// Featherweight is one entry per run directory that has Featherweight results.
type Featherweight struct {
	Runs []FeatherweightRun
}

// FeatherweightRun is one run's Featherweight results.
type FeatherweightRun struct {
	Dir, Stamp string
	Data       featherweight.DataInfo
	Results    []featherweight.ModelResult
}

// Microbench is every μBench result file found.
type Microbench struct {
	Files   []string
	Results []*microbench.Result
}

// Options control Load.
type Options struct {
	// TasksDir is the Featherbench task folder the user named (--tasks):
	// it is read instead of the folders the runs recorded, and must load.
	TasksDir string
	// DefaultTasksDir is read for runs that recorded no task folder (made
	// before runs recorded one), when it loads; "" for none.
	DefaultTasksDir string
	// NoTasks reads no task files and says nothing of them, for callers
	// that need no categories or prompts.
	NoTasks bool
}

// Load reads run directories. Each argument is a run directory
// (results/<stamp> or results/latest), one suite's subdirectory of one, or
// a folder of shard run directories. The shards of a sharded run (-shard)
// are merged into one run equal to an unsharded one; they must all be
// there, each once.
func Load(dirs []string, opt Options) (*Set, error) {
	found, err := find(dirs)
	if err != nil {
		return nil, err
	}
	var parts []shard.Part
	for _, d := range found {
		if !d.shard.Whole() {
			parts = append(parts, shard.Part{Dir: d.path, Shard: d.shard})
		}
	}
	if parts, err = shard.Check(parts); err != nil {
		return nil, err
	}
	s := &Set{}
	for _, d := range found {
		switch {
		case d.shard.Whole():
			s.Dirs = append(s.Dirs, d.path)
			err = s.loadRun(d.path)
		case d.shard.Index == 1:
			err = s.loadShards(parts)
		}
		if err != nil {
			return nil, err
		}
	}
	if s.Featherbench != nil && !opt.NoTasks {
		if err := s.loadTasks(opt); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// found is a run directory to read (or one suite's subdirectory of one)
// and the shard it holds.
type found struct {
	path  string
	shard shard.Shard
}

// find resolves the arguments to run directories, without repeats: a
// folder that holds no suite results stands for the shard run directories
// below it.
func find(dirs []string) ([]found, error) {
	var out []found
	seen := map[string]bool{}
	for _, d := range dirs {
		real, err := filepath.EvalSymlinks(d)
		if err != nil {
			return nil, fmt.Errorf("run directory %s: %w", d, err)
		}
		if info, err := os.Stat(real); err != nil || !info.IsDir() {
			return nil, fmt.Errorf("%s is not a directory; pass run directories such as results/latest or results/<stamp>", d)
		}
		runDirs := []string{real}
		if len(suitesIn(real)) == 0 {
			if runDirs, err = shardsBelow(real); err != nil {
				return nil, err
			}
		}
		if len(runDirs) == 0 {
			return nil, fmt.Errorf("%s holds no results: a run directory has a featherweight/, microbench/ or featherbench/ subdirectory; pass results/latest or results/<stamp>", d)
		}
		for _, p := range runDirs {
			if seen[p] {
				continue
			}
			seen[p] = true
			sh, _, err := shard.ReadMarker(runDirOf(p))
			if err != nil {
				return nil, err
			}
			out = append(out, found{path: p, shard: sh})
		}
	}
	return out, nil
}

// suitesIn maps the suites a run directory (or one suite's subdirectory
// of one) holds results of to their folders.
func suitesIn(dir string) map[string]string {
	if base := filepath.Base(dir); isSuite(base) {
		return map[string]string{base: dir}
	}
	suites := map[string]string{}
	for _, sub := range []string{FeatherbenchDir, FeatherweightDir, MicrobenchDir} {
		if isDir(filepath.Join(dir, sub)) {
			suites[sub] = filepath.Join(dir, sub)
		}
	}
	return suites
}

// runDirOf is the run directory of a run directory or of one suite's
// subdirectory of one.
func runDirOf(dir string) string {
	if isSuite(filepath.Base(dir)) {
		return filepath.Dir(dir)
	}
	return dir
}

// shardsBelow finds the shard run directories (those with a shard
// marker) under root, in path order. Links are not followed, so
// results/latest is not found twice.
func shardsBelow(root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && d.Name() == shard.MarkerFile {
			out = append(out, filepath.Dir(p))
		}
		if d.IsDir() && isSuite(d.Name()) {
			return filepath.SkipDir
		}
		return nil
	})
	return out, err
}

func isSuite(name string) bool {
	return name == FeatherbenchDir || name == FeatherweightDir || name == MicrobenchDir
}

// loadRun reads one run directory's suites into s.
func (s *Set) loadRun(dir string) error {
	suites := suitesIn(dir)
	stamp := stampOf(dir)
	if p := suites[FeatherbenchDir]; p != "" {
		if err := s.loadFeatherbench(p); err != nil {
			return err
		}
	}
	if p := suites[FeatherweightDir]; p != "" {
		if err := s.loadFeatherweight(p, stamp); err != nil {
			return err
		}
	}
	if p := suites[MicrobenchDir]; p != "" {
		if err := s.loadMicrobench(p, stamp); err != nil {
			return err
		}
	}
	return nil
}

func isDir(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.IsDir()
}

func (s *Set) loadFeatherbench(dir string) error {
	files, err := filepath.Glob(filepath.Join(dir, "results-*.jsonl"))
	if err != nil {
		return err
	}
	sort.Strings(files)
	if len(files) == 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("%s: no results-*.jsonl file", dir))
		return nil
	}
	recs, err := featherbench.ReadRecords(files...)
	if err != nil {
		return err
	}
	sources, err := filepath.Glob(filepath.Join(dir, featherbench.TaskSourceName("*")))
	if err != nil {
		return err
	}
	if s.Featherbench == nil {
		s.Featherbench = &Featherbench{}
	}
	sort.Strings(sources)
	for _, p := range sources {
		src, err := featherbench.ReadTaskSource(p)
		if err != nil {
			return err
		}
		s.Featherbench.sources = append(s.Featherbench.sources, src)
	}
	s.Featherbench.Files = append(s.Featherbench.Files, files...)
	s.Featherbench.Records = append(s.Featherbench.Records, recs...)
	return nil
}

func (s *Set) loadFeatherweight(dir, stamp string) error {
	data, results, err := featherweight.ReadModelFiles(dir)
	if err != nil {
		return err
	}
	if len(results) == 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("%s: no %s/*.json model file", dir, featherweight.ModelsDir))
		return nil
	}
	if s.Featherweight == nil {
		s.Featherweight = &Featherweight{}
	}
	s.Featherweight.Runs = append(s.Featherweight.Runs, FeatherweightRun{Dir: dir, Stamp: stamp, Data: data, Results: results})
	return nil
}

func (s *Set) loadMicrobench(dir, stamp string) error {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return err
	}
	sort.Strings(files)
	found := 0
	for _, f := range files {
		suite, err := suiteOf(f)
		if err != nil {
			return err
		}
		if suite != microbench.Name {
			s.Notes = append(s.Notes, fmt.Sprintf("%s: not a μBench result file (suite %q), skipped", f, suite))
			continue
		}
		r, err := microbench.ReadResult(f)
		if err != nil {
			return err
		}
		if r.Run == "" {
			r.Run = stamp
		}
		if s.Microbench == nil {
			s.Microbench = &Microbench{}
		}
		s.Microbench.Files = append(s.Microbench.Files, f)
		s.Microbench.Results = append(s.Microbench.Results, r)
		found++
	}
	if found == 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("%s: no μBench result file", dir))
	}
	return nil
}

// suiteOf reads a JSON file's top-level "suite" field without decoding the
// rest, so other JSON files in a suite directory can be passed over.
func suiteOf(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return "", fmt.Errorf("%s: not a JSON object; μBench result files are objects with a \"suite\" field", path)
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return "", fmt.Errorf("%s: %v", path, err)
		}
		if k == "suite" {
			var v string
			if err := dec.Decode(&v); err != nil {
				return "", fmt.Errorf("%s: suite: %v", path, err)
			}
			return v, nil
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return "", fmt.Errorf("%s: %v", path, err)
		}
	}
	return "", nil
}

// Empty reports whether no suite results were found.
func (s *Set) Empty() bool {
	return s.Featherbench == nil && s.Featherweight == nil && s.Microbench == nil
}

// Stamps lists the run stamps (directory names) of the run directories;
// a sharded run is one run, named by its first shard's stamp.
func (s *Set) Stamps() []string {
	var out []string
	for _, d := range s.Dirs {
		if !s.folded[d] {
			out = append(out, stampOf(d))
		}
	}
	return out
}

// stampOf is a run directory's name; for a suite's subdirectory, its
// parent's.
func stampOf(dir string) string {
	switch b := filepath.Base(dir); b {
	case FeatherbenchDir, FeatherweightDir, MicrobenchDir:
		return filepath.Base(filepath.Dir(dir))
	default:
		return b
	}
}

// Describe is a one-line list of what was read, for page headers.
func (s *Set) Describe() string {
	return strings.Join(s.Stamps(), ", ")
}
