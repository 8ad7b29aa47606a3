package microbench

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/stats"
)

// Options control Evaluate.
type Options struct {
	// MaxLength left-truncates every sequence (prefix included); 0 means
	// the spec's 512.
	MaxLength int
	// Selected reports whether an item is evaluated, so a -run filter cuts
	// the model calls; nil selects every item.
	Selected func(task, item string) bool
	// OnScoring hears of the scorer's progress (Run.OnScoring).
	OnScoring func(kind string, done, total int)
}

// RequestErrors reports items whose scoring requests failed one by one;
// the Result returned with it still holds every item that succeeded.
type RequestErrors struct {
	// Failed of Total selected items could not be scored.
	Failed, Total int
	// First is the first failure ("task/item-id" and the backend's error).
	FirstItem string
	First     string
}

func (e *RequestErrors) Error() string {
	return fmt.Sprintf("μBench: %d of %d items could not be scored; the first, %s: %s", e.Failed, e.Total, e.FirstItem, e.First)
}

// All reports whether nothing could be scored.
func (e *RequestErrors) All() bool { return e.Failed == e.Total }

type reqKey struct{ context, continuation string }

// plan is the work for one task: the selected items and, per choice, the
// index of its request (and of its null request on pmi tasks).
type plan struct {
	task  *Task
	items []Item
	main  [][]int
	null  [][]int
	docs  []int // index into texts, for the bits-per-byte task
}

// Evaluate scores the selected items of tasks with one LogLikelihood call
// (every choice's continuation plus each distinct null-context request
// once) and one RollingLogLikelihood call (the bits-per-byte documents), then
// computes task, domain and index scores with their standard errors.
//
// A batch failure returns (nil, error). Failed single requests are recorded
// on their items, which then count for no score, and are summarised in a
// *RequestErrors returned along with the Result.
func Evaluate(ctx context.Context, s lm.Scorer, info lm.Info, tasks []*Task, opt Options) (*Result, error) {
	maxLen := opt.MaxLength
	if maxLen == 0 {
		maxLen = MaxLength
	}
	selected := opt.Selected
	if selected == nil {
		selected = func(string, string) bool { return true }
	}

	var reqs []lm.LLRequest
	at := map[reqKey]int{}
	nulls := 0
	request := func(c, cont string, isNull bool) int {
		k := reqKey{c, cont}
		if i, ok := at[k]; ok {
			return i
		}
		at[k] = len(reqs)
		reqs = append(reqs, lm.LLRequest{Context: c, Continuation: cont})
		if isNull {
			nulls++
		}
		return len(reqs) - 1
	}
	var texts []string
	plans := make([]plan, len(tasks))
	for ti, t := range tasks {
		p := plan{task: t}
		for _, it := range t.Items {
			if !selected(t.ID, it.ID) {
				continue
			}
			p.items = append(p.items, it)
			if t.IsBPB() {
				p.docs = append(p.docs, len(texts))
				texts = append(texts, it.Text)
				continue
			}
			main := make([]int, len(it.Choices))
			var null []int
			for i := range it.Choices {
				main[i] = request(it.Context, it.Continuation(i), false)
			}
			if t.Reduction == PMI {
				null = make([]int, len(it.Choices))
				for i := range it.Choices {
					null[i] = request(t.Null(), it.Continuation(i), true)
				}
			}
			p.main = append(p.main, main)
			p.null = append(p.null, null)
		}
		plans[ti] = p
	}

	start := time.Now()
	sopt := lm.ScoreOptions{MaxLength: maxLen}
	progress := func(kind string) func(done, total int) {
		if opt.OnScoring == nil {
			return nil
		}
		return func(done, total int) { opt.OnScoring(kind, done, total) }
	}
	// Each kind is announced at 0 as its call starts, so its rate is
	// timed from there, not from the scorer's first report.
	announce := func(kind string, total int) {
		if opt.OnScoring != nil {
			opt.OnScoring(kind, 0, total)
		}
	}
	var ll []lm.LLResult
	if len(reqs) > 0 {
		var err error
		announce("requests", len(reqs))
		sopt.Progress = progress("requests")
		ll, err = s.LogLikelihood(ctx, reqs, sopt)
		if err != nil {
			return nil, fmt.Errorf("μBench: scoring %d continuations: %w", len(reqs), err)
		}
		if len(ll) != len(reqs) {
			return nil, fmt.Errorf("μBench: the scorer returned %d log-likelihoods for %d requests; every request needs exactly one result", len(ll), len(reqs))
		}
	}
	var rolling []lm.RollingResult
	if len(texts) > 0 {
		var err error
		announce("windows", len(texts))
		sopt.Progress = progress("windows")
		rolling, err = s.RollingLogLikelihood(ctx, texts, sopt)
		if err != nil {
			return nil, fmt.Errorf("μBench: scoring %d bits-per-byte documents: %w", len(texts), err)
		}
		if len(rolling) != len(texts) {
			return nil, fmt.Errorf("μBench: the scorer returned %d rolling log-likelihoods for %d documents; every document needs exactly one result", len(rolling), len(texts))
		}
	}

	res := &Result{
		Suite: Name, Version: Version, Model: info, ModelPath: info.Path, NumParameters: info.Params,
		Seed: Seed, ItemsSHA256: Fingerprint(tasks), MaxLength: maxLen,
		TaskScores: map[string]float64{}, DomainScores: map[string]float64{},
		StandardErrors: StandardErrors{Tasks: map[string]float64{}, Domains: map[string]float64{}},
		TruncatedItems: map[string]int{},
		Requests:       Requests{LogLikelihood: len(reqs), Null: nulls, Rolling: len(texts)},
		ScoringSeconds: time.Since(start).Seconds(),
	}
	var reqErr *RequestErrors
	fail := func(item, msg string) {
		if reqErr == nil {
			reqErr = &RequestErrors{FirstItem: item, First: msg}
		}
		reqErr.Failed++
	}
	for _, p := range plans {
		var tr TaskResult
		if p.task.IsBPB() {
			docs := documentRecords(p, rolling, fail)
			res.Documents = append(res.Documents, docs...)
			tr = summariseDocuments(p, docs)
		} else {
			items := itemRecords(p, ll, fail)
			res.Items = append(res.Items, items...)
			tr = summariseItems(p, items)
		}
		res.Tasks = append(res.Tasks, tr)
		res.TruncatedItems[tr.ID] = tr.Truncated
		if tr.Items > 0 {
			res.TaskScores[tr.ID] = tr.Score
			res.StandardErrors.Tasks[tr.ID] = tr.SE
		}
	}
	aggregate(res)
	if reqErr != nil {
		reqErr.Total = countItems(plans)
		return res, reqErr
	}
	return res, nil
}

func countItems(plans []plan) int {
	n := 0
	for _, p := range plans {
		n += len(p.items)
	}
	return n
}

// scored checks one backend result: an error or a non-finite log-probability
// makes the item or document unscorable.
func scored(err error, logProb float64) error {
	switch {
	case err != nil:
		return err
	case math.IsNaN(logProb) || math.IsInf(logProb, 0):
		return fmt.Errorf("the backend returned log-probability %v", logProb)
	}
	return nil
}

func itemRecords(p plan, ll []lm.LLResult, fail func(item, msg string)) []ItemRecord {
	out := make([]ItemRecord, len(p.items))
	for k, it := range p.items {
		rec := ItemRecord{Task: p.task.ID, ID: it.ID, Level: it.Level, Group: it.Group,
			Context: it.Context, Gold: it.Gold, Prediction: -1}
	choices:
		for i, c := range it.Choices {
			cont := it.Continuation(i)
			r := ll[p.main[k][i]]
			if err := scored(r.Err, r.LogProb); err != nil {
				rec.Error = fmt.Sprintf("choice %d %q: %v", i, cont, err)
				break
			}
			cr := ChoiceRecord{Text: c, Continuation: cont, Bytes: len(cont), LogProb: r.LogProb,
				ContextTokens: r.ContextTokens, ContinuationTokens: r.ContinuationTokens,
				Greedy: r.IsGreedy, Truncated: r.Truncated}
			switch p.task.Reduction {
			case Sum:
				cr.Value = r.LogProb
			case MeanByte:
				cr.Value = r.LogProb / float64(len(cont))
			case PMI:
				n := ll[p.null[k][i]]
				if err := scored(n.Err, n.LogProb); err != nil {
					rec.Error = fmt.Sprintf("choice %d %q under the null context %q: %v", i, cont, p.task.Null(), err)
					break choices
				}
				cr.NullLogProb = &n.LogProb
				cr.Value = r.LogProb - n.LogProb
			}
			rec.Truncated = rec.Truncated || r.Truncated
			rec.Choices = append(rec.Choices, cr)
		}
		if rec.Error != "" {
			rec.Choices = nil
			fail(p.task.ID+"/"+it.ID, rec.Error)
		} else {
			rec.Prediction, rec.Tie = argmax(rec.Choices)
			rec.Correct = rec.Prediction == rec.Gold
		}
		out[k] = rec
	}
	return out
}

// argmax returns the first choice with the highest value (the lowest index
// wins ties, as numpy's argmax does) and whether another choice tied it.
func argmax(cs []ChoiceRecord) (best int, tie bool) {
	for i := 1; i < len(cs); i++ {
		switch {
		case cs[i].Value > cs[best].Value:
			best, tie = i, false
		case cs[i].Value == cs[best].Value:
			tie = true
		}
	}
	return best, tie
}

func summariseItems(p plan, items []ItemRecord) TaskResult {
	t := p.task
	tr := TaskResult{ID: t.ID, Domain: t.Domain, Name: t.Name, Reduction: t.Reduction,
		NullContext: t.Null(), Grouped: t.Grouped, ItemsTotal: len(t.Items)}
	byLevel := map[int]*LevelResult{}
	for _, l := range t.LevelIDs() {
		byLevel[l] = &LevelResult{Level: l, About: t.Levels[l]}
	}
	chance := 0.0
	for _, u := range Units(p.items, t.Grouped) {
		ok, correct, pChance := true, true, 1.0
		for _, m := range u.Members {
			if items[m].Error != "" {
				ok = false
			}
			correct = correct && items[m].Correct
			pChance /= float64(len(p.items[m].Choices))
		}
		if !ok {
			continue
		}
		tr.Units++
		chance += pChance
		lr := byLevel[p.items[u.Members[0]].Level]
		lr.Units++
		if correct {
			tr.CorrectUnits++
			lr.Correct++
		}
	}
	for _, it := range items {
		switch {
		case it.Error != "":
			tr.Errors++
		default:
			tr.Items++
		}
		if it.Truncated {
			tr.Truncated++
		}
	}
	if tr.Units > 0 {
		tr.Chance = chance / float64(tr.Units)
		tr.Accuracy = float64(tr.CorrectUnits) / float64(tr.Units)
		tr.Score = ChanceNormalised(tr.Accuracy, tr.Chance)
		tr.SE = ChanceNormalisedSE(stats.SEProportion(tr.Accuracy, tr.Units), tr.Chance)
	}
	for _, l := range t.LevelIDs() {
		lr := byLevel[l]
		if lr.Units > 0 {
			lr.Accuracy = float64(lr.Correct) / float64(lr.Units)
		}
		tr.Levels = append(tr.Levels, *lr)
	}
	tr.Complete = len(p.items) == len(t.Items) && tr.Errors == 0
	return tr
}

func documentRecords(p plan, rolling []lm.RollingResult, fail func(item, msg string)) []DocumentRecord {
	out := make([]DocumentRecord, len(p.items))
	for k, it := range p.items {
		r := rolling[p.docs[k]]
		d := DocumentRecord{Task: p.task.ID, ID: it.ID, Level: it.Level, Bytes: len(it.Text),
			Tokens: r.Tokens, Windows: r.Windows}
		if err := scored(r.Err, r.LogProb); err != nil {
			d.Error = err.Error()
			fail(p.task.ID+"/"+it.ID, d.Error)
		} else {
			d.LogProb = r.LogProb
			d.Bits = -r.LogProb / math.Ln2
			d.BitsPerByte = d.Bits / float64(d.Bytes)
		}
		out[k] = d
	}
	return out
}

func summariseDocuments(p plan, docs []DocumentRecord) TaskResult {
	t := p.task
	tr := TaskResult{ID: t.ID, Domain: t.Domain, Name: t.Name, Reduction: t.Reduction, ItemsTotal: len(t.Items)}
	var bits, bytes []float64
	totalBits := 0.0
	levelBits, levelBytes, levelDocs := map[int]float64{}, map[int]float64{}, map[int]int{}
	for _, d := range docs {
		if d.Error != "" {
			tr.Errors++
			continue
		}
		tr.Items++
		tr.Bytes += d.Bytes
		tr.Tokens += d.Tokens
		bits = append(bits, d.Bits)
		totalBits += d.Bits
		bytes = append(bytes, float64(d.Bytes))
		levelBits[d.Level] += d.Bits
		levelBytes[d.Level] += float64(d.Bytes)
		levelDocs[d.Level]++
	}
	tr.Units = tr.Items
	if tr.Items > 0 {
		bpb := totalBits / float64(tr.Bytes)
		se := ratioSE(bits, bytes)
		tr.BitsPerByte, tr.BitsPerByteSE = &bpb, &se
		tr.Score = BPBScore(bpb)
		tr.SE = BPBScoreSE(bpb, se)
	}
	for _, l := range t.LevelIDs() {
		lr := LevelResult{Level: l, About: t.Levels[l], Units: levelDocs[l]}
		if levelDocs[l] > 0 {
			v := levelBits[l] / levelBytes[l]
			lr.BitsPerByte = &v
		}
		tr.Levels = append(tr.Levels, lr)
	}
	tr.Complete = len(p.items) == len(t.Items) && tr.Errors == 0
	return tr
}

// aggregate computes domain scores (the unweighted mean of their tasks) and
// the index (the weighted mean of the six domains), with standard errors
// propagated from the tasks as independent. A domain is scored only when
// every task of it was evaluated completely; the index only when all six
// domains are scored.
func aggregate(res *Result) {
	res.Complete = true
	for _, tr := range res.Tasks {
		res.Complete = res.Complete && tr.Complete
	}
	var dv, dse, dw []float64
	for _, d := range Domains {
		var v, se []float64
		complete := true
		for _, tr := range res.Tasks {
			if tr.Domain != d.ID {
				continue
			}
			complete = complete && tr.Complete
			v = append(v, tr.Score)
			se = append(se, tr.SE)
		}
		if len(v) == 0 || !complete {
			continue
		}
		w := make([]float64, len(v))
		for i := range w {
			w[i] = 1 / float64(len(v))
		}
		score, s := Combine(v, se, w)
		res.DomainScores[d.ID] = score
		res.StandardErrors.Domains[d.ID] = s
		dv, dse, dw = append(dv, score), append(dse, s), append(dw, d.Weight)
	}
	if len(dv) == len(Domains) {
		index, se := Combine(dv, dse, dw)
		res.Index, res.StandardErrors.Index = &index, &se
	}
}
