package microbench

import "github.com/feather-eval/feather/harness/run/shard"

// InShard is μBench's part of shard s, over unit paths [task, id]: whole
// tasks, balanced across the shards by Cost.
func InShard(s shard.Shard, tasks []*Task) func(path ...string) bool {
	if s.Whole() {
		return func(...string) bool { return true }
	}
	jobs := make([]shard.Job, len(tasks))
	for i, t := range tasks {
		jobs[i] = shard.Job{Key: t.ID, Cost: t.Cost()}
	}
	of := shard.Balance(jobs, s.Count)
	return func(path ...string) bool {
		return len(path) < 1 || of[path[0]] == s.Index
	}
}

// Cost is the task's size in bytes of text the model reads: each choice's
// context and continuation (and its null-context request on pmi tasks),
// each document's text. Bytes stand in for tokens: the suite knows them
// without a model, and every tokenizer's count grows with them.
func (t *Task) Cost() int64 {
	var n int64
	for _, it := range t.Items {
		if t.IsBPB() {
			n += int64(len(it.Text))
			continue
		}
		for i := range it.Choices {
			cont := int64(len(it.Continuation(i)))
			n += int64(len(it.Context)) + cont
			if t.Reduction == PMI {
				n += int64(len(t.Null())) + cont
			}
		}
	}
	return n
}
