package lm

import "context"

// Defaults are a catalog entry's max_tokens and sampling. They apply to
// every request that does not set its own, in one place for every backend
// and every suite: a suite that fixes its own cap and sampling
// (Featherweight: 20 tokens, greedy) keeps them.
type Defaults struct {
	MaxNewTokens int
	Sampling     Sampling
}

// Apply fills req's unset MaxNewTokens and undeclared sampling fields.
func (d Defaults) Apply(req GenerateRequest) GenerateRequest {
	if req.MaxNewTokens <= 0 {
		req.MaxNewTokens = d.MaxNewTokens
	}
	s := &req.Sampling
	if s.Temperature == nil {
		s.Temperature = d.Sampling.Temperature
	}
	if s.TopP == nil {
		s.TopP = d.Sampling.TopP
	}
	if s.TopK == nil {
		s.TopK = d.Sampling.TopK
	}
	if s.Seed == nil {
		s.Seed = d.Sampling.Seed
	}
	return req
}

func (d Defaults) none() bool { return d.MaxNewTokens <= 0 && d.Sampling == (Sampling{}) }

// WithDefaults returns m with d applied to every Generate request. It keeps
// m's capabilities: a Scorer stays a Scorer, and a model that cannot
// generate, or defaults that declare nothing, leave m as it is.
func WithDefaults(m Model, d Defaults) Model {
	g, ok := m.(Generator)
	if !ok || d.none() {
		return m
	}
	w := withDefaults{Model: m, gen: g, d: d}
	if s, ok := m.(Scorer); ok {
		return struct {
			withDefaults
			Scorer
		}{w, s}
	}
	return w
}

type withDefaults struct {
	Model
	gen Generator
	d   Defaults
}

func (w withDefaults) Generate(ctx context.Context, reqs []GenerateRequest) ([]GenerateResult, error) {
	filled := make([]GenerateRequest, len(reqs))
	for i, r := range reqs {
		filled[i] = w.d.Apply(r)
	}
	return w.gen.Generate(ctx, filled)
}
