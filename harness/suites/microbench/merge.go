package microbench

import (
	"fmt"
	"slices"
)

// Merge rebuilds one model's Result from the results of disjoint parts of
// its run (the shards of a sharded run, each of which scored whole tasks):
// each task's records and summary come from the part that scored it, and
// the task, domain and index scores are recomputed as Evaluate computes
// them. The parts must describe the same model, item set and settings, and
// no task may be scored in two parts. The merged Run is the first part's;
// ScoringSeconds is the parts' sum.
func Merge(parts []*Result) (*Result, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("μBench: no results to merge")
	}
	first := parts[0]
	for _, p := range parts[1:] {
		if err := sameRun(first, p); err != nil {
			return nil, err
		}
	}
	res := &Result{
		Suite: first.Suite, Version: first.Version, Run: first.Run, Model: first.Model, ModelPath: first.ModelPath,
		NumParameters: first.NumParameters, Seed: first.Seed, ItemsSHA256: first.ItemsSHA256, MaxLength: first.MaxLength,
		TaskScores: map[string]float64{}, DomainScores: map[string]float64{},
		StandardErrors: StandardErrors{Tasks: map[string]float64{}, Domains: map[string]float64{}},
		TruncatedItems: map[string]int{},
	}
	for i := range first.Tasks {
		p, err := scoredIn(parts, i)
		if err != nil {
			return nil, err
		}
		res.addTask(p, p.Tasks[i])
	}
	for _, p := range parts {
		res.ScoringSeconds += p.ScoringSeconds
	}
	res.Requests = requestsOf(res.Items, len(res.Documents))
	aggregate(res)
	return res, nil
}

// sameRun checks that b is another part of a's run.
func sameRun(a, b *Result) error {
	ids := func(r *Result) []string {
		out := make([]string, len(r.Tasks))
		for i, t := range r.Tasks {
			out[i] = t.ID
		}
		return out
	}
	switch {
	case a.Model.Key != b.Model.Key:
		return fmt.Errorf("μBench: cannot merge results of different models, %q and %q", a.Model.Key, b.Model.Key)
	case a.Version != b.Version || a.Seed != b.Seed || a.ItemsSHA256 != b.ItemsSHA256 || a.MaxLength != b.MaxLength:
		return fmt.Errorf("μBench: cannot merge %s's results of runs %s and %s: they differ in version, seed, items or max length", a.Model.Key, a.Run, b.Run)
	case !slices.Equal(ids(a), ids(b)):
		return fmt.Errorf("μBench: cannot merge %s's results of runs %s and %s: they list different tasks", a.Model.Key, a.Run, b.Run)
	}
	return nil
}

// scoredIn is the part that scored task i: the only one with records of
// it, or the first when none has (no part selected the task).
func scoredIn(parts []*Result, i int) (*Result, error) {
	var in *Result
	for _, p := range parts {
		if t := p.Tasks[i]; t.Items+t.Errors == 0 {
			continue
		}
		if in != nil {
			return nil, fmt.Errorf("μBench: task %s of %s was scored in both runs %s and %s; merge disjoint parts of one run", p.Tasks[i].ID, p.Model.Key, in.Run, p.Run)
		}
		in = p
	}
	if in == nil {
		in = parts[0]
	}
	return in, nil
}

// addTask adds a task's summary and records from the part that scored it,
// with the per-task maps Evaluate keeps.
func (res *Result) addTask(from *Result, tr TaskResult) {
	res.Tasks = append(res.Tasks, tr)
	res.TruncatedItems[tr.ID] = tr.Truncated
	if tr.Items > 0 {
		res.TaskScores[tr.ID] = tr.Score
		res.StandardErrors.Tasks[tr.ID] = tr.SE
	}
	for _, it := range from.Items {
		if it.Task == tr.ID {
			res.Items = append(res.Items, it)
		}
	}
	for _, d := range from.Documents {
		if d.Task == tr.ID {
			res.Documents = append(res.Documents, d)
		}
	}
}

// requestsOf counts the requests one run would have made for these
// records: each distinct (context, continuation) once, null-context ones
// counted as null, and one rolling request per document. An item that
// failed keeps no choices, so its requests cannot be counted.
func requestsOf(items []ItemRecord, documents int) Requests {
	type key struct{ context, continuation string }
	seen := map[key]bool{}
	r := Requests{Rolling: documents}
	add := func(k key, null bool) {
		if seen[k] {
			return
		}
		seen[k] = true
		r.LogLikelihood++
		if null {
			r.Null++
		}
	}
	for _, it := range items {
		for _, c := range it.Choices {
			add(key{it.Context, c.Continuation}, false)
		}
		for _, c := range it.Choices {
			if c.NullLogProb != nil {
				add(key{NullContext, c.Continuation}, true)
			}
		}
	}
	return r
}
