package audit

import (
	"context"
	"fmt"

	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/suites/microbench"
)

// Scorer answers μBench log-likelihood requests as a heuristic chooses:
// the continuation of the choice the heuristic picks for its item gets
// log-probability 0, every other continuation −1. That order survives each
// reduction the suite applies (sum; mean_byte divides by positive byte
// counts; pmi subtracts the null term, which is 0 here), so the suite's own
// argmax, contrast pairs and chance normalisation decide the score.
//
// The scorer is built from the items because requests alone do not say
// which choices belong together: many items share a context ("The key",
// "Last summer,") and differ only in their choices. When two items share a
// whole request (context and continuation), the suite asks it once, as it
// would a model; the request is then preferred if either item picks it.
type Scorer struct {
	h         Heuristic
	preferred map[lm.LLRequest]bool
	known     map[lm.LLRequest]bool
}

var _ lm.Scorer = (*Scorer)(nil)

// NewScorer rates every choice of the tasks' items with h.
func NewScorer(h Heuristic, tasks []*microbench.Task) *Scorer {
	s := &Scorer{h: h, preferred: map[lm.LLRequest]bool{}, known: map[lm.LLRequest]bool{}}
	for _, t := range tasks {
		for _, it := range t.Items {
			if len(it.Choices) == 0 {
				continue
			}
			pick := h.Pick(it.Context, it.Choices)
			for i := range it.Choices {
				r := lm.LLRequest{Context: it.Context, Continuation: it.Continuation(i)}
				s.known[r] = true
				if i == pick {
					s.preferred[r] = true
				}
			}
		}
	}
	return s
}

func (s *Scorer) LogLikelihood(ctx context.Context, reqs []lm.LLRequest, _ lm.ScoreOptions) ([]lm.LLResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([]lm.LLResult, len(reqs))
	for i, r := range reqs {
		switch {
		case r.Context == microbench.NullContext && !s.known[r]:
			// The pmi null term: equal for every choice.
		case s.preferred[r]:
		case s.known[r]:
			out[i].LogProb = -1
		default:
			out[i].Err = fmt.Errorf("heuristic %s: context %q with continuation %q is no choice of the audited items", s.h.Name, r.Context, r.Continuation)
		}
	}
	return out, nil
}

// RollingLogLikelihood refuses: a heuristic chooses among answers and has
// no view of running text, so the audit leaves bits per byte out.
func (s *Scorer) RollingLogLikelihood(_ context.Context, texts []string, _ lm.ScoreOptions) ([]lm.RollingResult, error) {
	out := make([]lm.RollingResult, len(texts))
	for i := range out {
		out[i].Err = lm.Unsupported("heuristic %s: rolling log-likelihood", s.h.Name)
	}
	return out, nil
}
