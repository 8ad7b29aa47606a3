package runs

import (
	"fmt"
	"sort"
	"strings"

	"github.com/feather-eval/feather/harness/run/shard"
	"github.com/feather-eval/feather/harness/suites/featherbench"
	"github.com/feather-eval/feather/harness/suites/featherweight"
	"github.com/feather-eval/feather/harness/suites/microbench"
)

// part is one shard's run directory as read on its own.
type part struct {
	dir string
	set *Set
}

// loadShards reads the shards of one run, in shard order (shard.Check's),
// and adds them to s as one run: what an unsharded run would have written.
func (s *Set) loadShards(shards []shard.Part) error {
	parts := make([]part, len(shards))
	var names []string
	for i, sh := range shards {
		parts[i] = part{dir: sh.Dir, set: &Set{}}
		if err := parts[i].set.loadRun(sh.Dir); err != nil {
			return err
		}
		s.Dirs = append(s.Dirs, sh.Dir)
		s.Notes = append(s.Notes, parts[i].set.Notes...)
		names = append(names, fmt.Sprintf("%s (%s)", sh.Shard, stampOf(sh.Dir)))
		if i > 0 {
			if s.folded == nil {
				s.folded = map[string]bool{}
			}
			s.folded[sh.Dir] = true
		}
	}
	s.Notes = append(s.Notes, fmt.Sprintf("shards %s merged as run %s", strings.Join(names, ", "), stampOf(shards[0].Dir)))
	for _, merge := range []func([]part) error{s.mergeFeatherbench, s.mergeFeatherweight, s.mergeMicrobench} {
		if err := merge(parts); err != nil {
			return err
		}
	}
	return nil
}

// overlap is the refusal of a unit found in two shards.
func overlap(unit, a, b string) error {
	return fmt.Errorf("cannot merge shards: %s is in both %s and %s; the shards of a run are disjoint", unit, a, b)
}

// mergeFeatherbench unions the shards' trials. They carry the first
// shard's run id, so that the summary names one run.
func (s *Set) mergeFeatherbench(parts []part) error {
	var files []string
	var recs []featherbench.Record
	var sources []*featherbench.TaskSource
	in := map[string]string{}
	for _, p := range parts {
		fb := p.set.Featherbench
		if fb == nil {
			continue
		}
		sources = append(sources, fb.sources...)
		for _, r := range fb.Records {
			k := fmt.Sprintf("Featherbench trial %s/%s/%d", r.Model, r.Task, r.Trial)
			if d, dup := in[k]; dup {
				return overlap(k, d, p.dir)
			}
			in[k] = p.dir
			recs = append(recs, r)
		}
		files = append(files, fb.Files...)
	}
	if files == nil {
		return nil
	}
	for i := range recs {
		recs[i].RunID = recs[0].RunID
	}
	if s.Featherbench == nil {
		s.Featherbench = &Featherbench{}
	}
	s.Featherbench.Files = append(s.Featherbench.Files, files...)
	s.Featherbench.Records = append(s.Featherbench.Records, recs...)
	s.Featherbench.sources = append(s.Featherbench.sources, sources...)
	return nil
}

// mergeFeatherweight joins each model's records across the shards: style
// by style, the shards' records in shard order, which is the question
// file's order (shards take blocks of it).
func (s *Set) mergeFeatherweight(parts []part) error {
	var runs []FeatherweightRun
	var dirs []string
	for _, p := range parts {
		if fw := p.set.Featherweight; fw != nil {
			runs, dirs = append(runs, fw.Runs...), append(dirs, p.dir)
		}
	}
	if len(runs) == 0 {
		return nil
	}
	for i, r := range runs[1:] {
		if r.Data.SHA256 != runs[0].Data.SHA256 {
			return fmt.Errorf("cannot merge shards: %s and %s asked different Featherweight question files (sha256 %s and %s)", dirs[0], dirs[i+1], runs[0].Data.SHA256, r.Data.SHA256)
		}
	}
	models, err := joinModels(runs, dirs)
	if err != nil {
		return err
	}
	merged := runs[0]
	merged.Results = models
	if s.Featherweight == nil {
		s.Featherweight = &Featherweight{}
	}
	s.Featherweight.Runs = append(s.Featherweight.Runs, merged)
	return nil
}

// joinModels merges the shards' results of each model, in model file
// name order as ReadModelFiles reads one run.
func joinModels(runs []FeatherweightRun, dirs []string) ([]featherweight.ModelResult, error) {
	byKey := map[string][][]featherweight.Record{}
	info := map[string]featherweight.ModelResult{}
	for i, r := range runs {
		for _, m := range r.Results {
			if _, ok := info[m.Model.Key]; !ok {
				info[m.Model.Key] = featherweight.ModelResult{Model: m.Model}
				byKey[m.Model.Key] = make([][]featherweight.Record, len(runs))
			}
			byKey[m.Model.Key][i] = m.Records
		}
	}
	keys := make([]string, 0, len(info))
	for key := range info {
		keys = append(keys, key)
	}
	// File name order, which also makes the first overlap reported the same
	// on every run.
	sort.Slice(keys, func(i, j int) bool { return keys[i]+".json" < keys[j]+".json" })
	out := make([]featherweight.ModelResult, 0, len(keys))
	for _, key := range keys {
		recs, err := joinStyles(key, byKey[key], dirs)
		if err != nil {
			return nil, err
		}
		m := info[key]
		m.Records = recs
		out = append(out, m)
	}
	return out, nil
}

// joinStyles concatenates one model's shards' records style by style, the
// styles in the order the records first name them.
func joinStyles(model string, shards [][]featherweight.Record, dirs []string) ([]featherweight.Record, error) {
	var styles []featherweight.Style
	seen := map[featherweight.Style]bool{}
	for _, recs := range shards {
		for _, r := range recs {
			if !seen[r.Style] {
				seen[r.Style] = true
				styles = append(styles, r.Style)
			}
		}
	}
	var out []featherweight.Record
	in := map[string]string{}
	for _, st := range styles {
		for i, recs := range shards {
			for _, r := range recs {
				if r.Style != st {
					continue
				}
				k := fmt.Sprintf("Featherweight item %s/%s/%s", model, r.Style, r.ID)
				if d, dup := in[k]; dup {
					return nil, overlap(k, d, dirs[i])
				}
				in[k] = dirs[i]
				out = append(out, r)
			}
		}
	}
	return out, nil
}

// mergeMicrobench merges each model's results across the shards with the
// suite's own Merge, which recomputes the index from the tasks.
func (s *Set) mergeMicrobench(parts []part) error {
	var order []string
	byKey := map[string][]*microbench.Result{}
	var files []string
	for _, p := range parts {
		mb := p.set.Microbench
		if mb == nil {
			continue
		}
		mine := map[string]bool{}
		for _, r := range mb.Results {
			if mine[r.Model.Key] {
				return fmt.Errorf("cannot merge shards: %s holds two μBench results of model %s; merge shards with one each", p.dir, r.Model.Key)
			}
			mine[r.Model.Key] = true
			if byKey[r.Model.Key] == nil {
				order = append(order, r.Model.Key)
			}
			byKey[r.Model.Key] = append(byKey[r.Model.Key], r)
		}
		files = append(files, mb.Files...)
	}
	if files == nil {
		return nil
	}
	if s.Microbench == nil {
		s.Microbench = &Microbench{}
	}
	s.Microbench.Files = append(s.Microbench.Files, files...)
	for _, key := range order {
		r, err := microbench.Merge(byKey[key])
		if err != nil {
			return fmt.Errorf("cannot merge shards: %w", err)
		}
		s.Microbench.Results = append(s.Microbench.Results, r)
	}
	return nil
}
