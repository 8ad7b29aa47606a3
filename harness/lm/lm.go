// Package lm holds the backend-neutral types every suite speaks and the two
// capabilities a backend can offer: a Generator (text in, text out) and a
// Scorer (log-likelihoods). Suites depend on this package only; backends
// implement it; the root test files wire the two together.
package lm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// ErrUnsupported marks a request the backend cannot serve by design (tools
// on a local model, say): a capability mismatch, not a harness failure.
// Backends wrap it; suites record the error and skip rather than fail.
var ErrUnsupported = errors.New("not supported by this backend")

// Unsupported returns an error with the given message that wraps
// ErrUnsupported, so a backend keeps its own wording.
func Unsupported(format string, args ...any) error {
	return unsupported(fmt.Sprintf(format, args...))
}

type unsupported string

func (u unsupported) Error() string { return string(u) }
func (u unsupported) Unwrap() error { return ErrUnsupported }

// Message is one chat turn.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Tool is a provider-neutral function definition (Featherbench's task format).
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
}

// ToolCall is a model's call normalised to {name, args}.
type ToolCall struct {
	Name string         `json:"name"`
	Args map[string]any `json:"args"`
	// RawArgs keeps the arguments string exactly as the model produced it,
	// so a call whose arguments are not valid JSON is still visible.
	RawArgs string `json:"raw_args,omitempty"`
}

// Sampling is what a suite asks for. Nil pointers mean "not declared": a
// backend must not send a parameter the suite did not declare (OpenRouter's
// require_parameters would reject the route), and must send every one it did,
// including zero values such as temperature 0.
type Sampling struct {
	Temperature *float64 `json:"temperature,omitempty"`
	TopP        *float64 `json:"top_p,omitempty"`
	TopK        *int     `json:"top_k,omitempty"`
	Seed        *int     `json:"seed,omitempty"`
}

// Greedy declares deterministic decoding: temperature 0 and top_p 1. It
// leaves top_k undeclared: temperature 0 is already greedy, and OpenAI's own
// API rejects top_k, which is not part of its chat-completions schema.
func Greedy() Sampling {
	t, p := 0.0, 1.0
	return Sampling{Temperature: &t, TopP: &p}
}

// GenerateRequest asks for one completion. Exactly one of Messages and
// Prompt is set: Messages go through the model's chat template (or the
// endpoint's chat API); Prompt is raw text the model continues.
type GenerateRequest struct {
	Messages     []Message `json:"messages,omitempty"`
	Prompt       string    `json:"prompt,omitempty"`
	Tools        []Tool    `json:"tools,omitempty"`
	MaxNewTokens int       `json:"max_new_tokens,omitempty"`
	Sampling     Sampling  `json:"sampling"`
	// ResponseFormat, when set, is a JSON Schema the reply must satisfy
	// (structured output); nil asks for free text. It is a request, not a
	// guarantee: a backend sends it only to endpoints declared to enforce
	// it and otherwise ignores it, so callers still validate the reply.
	// The schema's "title", when it has one, names the format on the wire.
	ResponseFormat json.RawMessage `json:"response_format,omitempty"`
}

// Stop reasons, normalised across backends.
const (
	StopEOS       = "eos"        // the model ended its turn (EOS token, "stop" finish)
	StopLength    = "length"     // the max_new_tokens / max_tokens cap was hit
	StopToolCalls = "tool_calls" // the turn ended with tool calls
	StopRefusal   = "refusal"    // a hard refusal by the provider's classifier
	StopError     = "error"      // no usable response; see Err
)

// GenerateResult is one completion with everything a reader needs to trust it.
type GenerateResult struct {
	Text      string     `json:"text"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// PromptSent is the exact text the model saw when the backend knows it
	// (local models: the templated string; raw prompts: the prompt itself).
	PromptSent string `json:"prompt_sent,omitempty"`
	// SamplingSent is what actually reached the model or endpoint.
	SamplingSent    map[string]any `json:"sampling_sent,omitempty"`
	StopReason      string         `json:"stop_reason"`
	RefusalCategory string         `json:"refusal_category,omitempty"`
	InputTokens     int            `json:"input_tokens"`
	OutputTokens    int            `json:"output_tokens"`
	// CostUSD is nil when the backend does not report cost.
	CostUSD *float64 `json:"cost_usd,omitempty"`
	// TTFT is the time to first token; zero when the backend cannot tell
	// (a reply that came whole, not streamed).
	TTFT    time.Duration `json:"ttft_ns"`
	Wall    time.Duration `json:"wall_ns"`
	Retries int           `json:"retries,omitempty"`
	// Cached is set when a response cache answered instead of the model
	// (see respcache); it is never stored.
	Cached bool `json:"-"`
	// Err is set when the request failed; the other fields may be partial.
	Err error `json:"-"`
}

// Generator produces completions. Results are returned in request order and
// have the same length as reqs; a per-request failure is reported in that
// result's Err, while the returned error is for failures of the whole batch.
// Backends batch or parallelise internally as suits them.
type Generator interface {
	Generate(ctx context.Context, reqs []GenerateRequest) ([]GenerateResult, error)
}

// LLRequest asks for log P(Continuation | Context).
//
// Convention shared by all scorers: the scored token sequence is
// [prefix] + tokens(Context) + tokens(Continuation), where prefix is the
// model's BOS token, or EOS when it has none, and is never itself scored.
// Context and Continuation are encoded so no token spans the boundary.
type LLRequest struct {
	Context      string `json:"context"`
	Continuation string `json:"continuation"`
}

// LLResult is the summed log-probability (natural log) of the continuation.
type LLResult struct {
	LogProb float64 `json:"logprob"`
	// IsGreedy reports whether every continuation token was the argmax.
	IsGreedy           bool `json:"is_greedy"`
	ContextTokens      int  `json:"context_tokens"`
	ContinuationTokens int  `json:"continuation_tokens"`
	// Truncated is true when the sequence was left-truncated to MaxLength.
	Truncated bool  `json:"truncated,omitempty"`
	Err       error `json:"-"`
}

// RollingResult is the log-likelihood of a whole text, every token scored
// exactly once (with sliding windows when it exceeds the context).
type RollingResult struct {
	LogProb float64 `json:"logprob"`
	Tokens  int     `json:"tokens"`
	Bytes   int     `json:"bytes"`
	Windows int     `json:"windows"`
	Err     error   `json:"-"`
}

// ScoreOptions apply to one Scorer call.
type ScoreOptions struct {
	// MaxLength left-truncates each sequence (prefix included) to this many
	// tokens; 0 means the model's own context length.
	MaxLength int
	// Progress, when set, hears while the call runs how many of its
	// sequences are scored (done of total; for RollingLogLikelihood the
	// documents' windows), so a long call can show its pace. Calls come one
	// at a time, done never decreases, and the last says done == total. A
	// scorer may not report at all.
	Progress func(done, total int)
}

// Scorer computes log-likelihoods. Like Generator, results come back in
// request order with per-request errors in Err.
type Scorer interface {
	LogLikelihood(ctx context.Context, reqs []LLRequest, opt ScoreOptions) ([]LLResult, error)
	RollingLogLikelihood(ctx context.Context, texts []string, opt ScoreOptions) ([]RollingResult, error)
}

// Info describes a loaded model for results files.
type Info struct {
	// Key is the catalog key; Name is a human-readable label.
	Key     string `json:"key"`
	Name    string `json:"name,omitempty"`
	Backend string `json:"backend"`
	// Path is the model folder, endpoint model name or slug.
	Path string `json:"path,omitempty"`
	// Params is the parameter count when known (local models), else 0.
	Params        int64 `json:"params,omitempty"`
	ContextLength int   `json:"context_length,omitempty"`
	// Chat reports whether prompts go through a chat template / chat API.
	Chat bool `json:"chat"`
	// Smoke marks the built-in deterministic model: its numbers measure the
	// harness, not a language model.
	Smoke bool `json:"smoke,omitempty"`
}

// Model is what a backend constructor returns: a description plus whichever
// capabilities the backend has (a Generator, a Scorer, or both).
type Model interface {
	Info() Info
	Close() error
}

// GenerateOne sends req to g as a batch of one and returns its result; a
// backend that answers with another count is an error.
func GenerateOne(ctx context.Context, g Generator, req GenerateRequest) (GenerateResult, error) {
	results, err := g.Generate(ctx, []GenerateRequest{req})
	if err != nil {
		return GenerateResult{}, err
	}
	if len(results) != 1 {
		return GenerateResult{}, fmt.Errorf("the backend returned %d results for 1 request", len(results))
	}
	return results[0], nil
}
