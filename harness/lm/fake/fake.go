// Package fake is a scripted lm backend for tests: each capability is a
// plain function, so a test states exactly what the "model" answers.
package fake

import (
	"context"
	"errors"
	"sync"

	"github.com/feather-eval/feather/harness/lm"
)

// Model implements lm.Model, lm.Generator and lm.Scorer from functions.
// A nil function makes that capability return an error per request.
type Model struct {
	ModelInfo lm.Info
	// Reply answers one generation request.
	Reply func(req lm.GenerateRequest) lm.GenerateResult
	// LogProb answers one log-likelihood request.
	LogProb func(req lm.LLRequest) lm.LLResult
	// Rolling answers one rolling log-likelihood request.
	Rolling func(text string) lm.RollingResult

	mu    sync.Mutex
	calls Calls
}

// Calls records what the model was asked, for assertions on batching and
// on which items a filtered run actually evaluated.
type Calls struct {
	Generate      []lm.GenerateRequest
	LogLikelihood []lm.LLRequest
	Rolling       []string
	Batches       int
}

var errNoScript = errors.New("fake model: no script for this capability")

func (m *Model) Info() lm.Info { return m.ModelInfo }
func (m *Model) Close() error  { return nil }

// Calls returns a copy of everything asked so far.
func (m *Model) Calls() Calls {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.calls
	c.Generate = append([]lm.GenerateRequest(nil), c.Generate...)
	c.LogLikelihood = append([]lm.LLRequest(nil), c.LogLikelihood...)
	c.Rolling = append([]string(nil), c.Rolling...)
	return c
}

func (m *Model) Generate(ctx context.Context, reqs []lm.GenerateRequest) ([]lm.GenerateResult, error) {
	m.mu.Lock()
	m.calls.Generate = append(m.calls.Generate, reqs...)
	m.calls.Batches++
	m.mu.Unlock()
	out := make([]lm.GenerateResult, len(reqs))
	for i, r := range reqs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if m.Reply == nil {
			out[i] = lm.GenerateResult{StopReason: lm.StopError, Err: errNoScript}
			continue
		}
		out[i] = m.Reply(r)
		if out[i].PromptSent == "" && r.Prompt != "" {
			out[i].PromptSent = r.Prompt
		}
	}
	return out, nil
}

// LogLikelihood answers each request with LogProb, reporting progress
// (ScoreOptions.Progress) after each.
func (m *Model) LogLikelihood(ctx context.Context, reqs []lm.LLRequest, opt lm.ScoreOptions) ([]lm.LLResult, error) {
	m.mu.Lock()
	m.calls.LogLikelihood = append(m.calls.LogLikelihood, reqs...)
	m.calls.Batches++
	m.mu.Unlock()
	out := make([]lm.LLResult, len(reqs))
	for i, r := range reqs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if m.LogProb == nil {
			out[i] = lm.LLResult{Err: errNoScript}
			continue
		}
		out[i] = m.LogProb(r)
		if opt.Progress != nil {
			opt.Progress(i+1, len(reqs))
		}
	}
	return out, nil
}

// RollingLogLikelihood answers each text with Rolling, reporting progress
// in texts (one window each) after each.
func (m *Model) RollingLogLikelihood(ctx context.Context, texts []string, opt lm.ScoreOptions) ([]lm.RollingResult, error) {
	m.mu.Lock()
	m.calls.Rolling = append(m.calls.Rolling, texts...)
	m.calls.Batches++
	m.mu.Unlock()
	out := make([]lm.RollingResult, len(texts))
	for i, t := range texts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if m.Rolling == nil {
			out[i] = lm.RollingResult{Err: errNoScript}
			continue
		}
		out[i] = m.Rolling(t)
		if opt.Progress != nil {
			opt.Progress(i+1, len(texts))
		}
	}
	return out, nil
}

// Text is a Reply that always answers s.
func Text(s string) func(lm.GenerateRequest) lm.GenerateResult {
	return func(lm.GenerateRequest) lm.GenerateResult {
		return lm.GenerateResult{Text: s, StopReason: lm.StopEOS}
	}
}
