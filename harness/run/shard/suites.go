package shard

import (
	"strings"

	"github.com/feather-eval/feather/harness/suites/featherweight"
	"github.com/feather-eval/feather/harness/suites/microbench"
)

// The predicates below are a suite's part of a shard, over the unit paths
// its run's Selected takes; a suite ANDs its selection with one (And). A
// path too short to name a unit is taken: some unit under it may be in the
// shard.

// Featherweight takes the items of s by position in the question file, in
// every style: path [style, id].
func (s Shard) Featherweight(items []featherweight.Item) func(path ...string) bool {
	pos := make(map[string]int, len(items))
	for i, it := range items {
		pos[it.ID] = i
	}
	return func(path ...string) bool {
		if len(path) < 2 {
			return true
		}
		i, ok := pos[path[1]]
		return ok && s.HasPosition(i, len(items))
	}
}

// Microbench takes whole tasks, balanced across the shards by TaskCost:
// path [task, id].
func (s Shard) Microbench(tasks []*microbench.Task) func(path ...string) bool {
	if s.Whole() {
		return func(...string) bool { return true }
	}
	jobs := make([]Job, len(tasks))
	for i, t := range tasks {
		jobs[i] = Job{Key: t.ID, Cost: TaskCost(t)}
	}
	of := Balance(jobs, s.Count)
	return func(path ...string) bool {
		return len(path) < 1 || of[path[0]] == s.Index
	}
}

// Featherbench takes trials by their key, task/trial, for every model:
// path [model], [model, task] or [model, task, trial]. The model is left
// out of the key so that a trial's shard does not depend on the models.
func (s Shard) Featherbench() func(path ...string) bool {
	return func(path ...string) bool {
		return len(path) < 3 || s.HasKey(strings.Join(path[1:3], "/"))
	}
}

// TaskCost is a μBench task's cost in bytes of text the model reads: each
// choice's context and continuation (and its null-context request on pmi
// tasks), each document's text. Bytes stand in for tokens: the suite knows
// them without a model, and every tokenizer's count grows with them.
func TaskCost(t *microbench.Task) int64 {
	var n int64
	for _, it := range t.Items {
		if t.IsBPB() {
			n += int64(len(it.Text))
			continue
		}
		for i := range it.Choices {
			cont := int64(len(it.Continuation(i)))
			n += int64(len(it.Context)) + cont
			if t.Reduction == microbench.PMI {
				n += int64(len(t.Null())) + cont
			}
		}
	}
	return n
}
