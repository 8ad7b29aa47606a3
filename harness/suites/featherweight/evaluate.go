package featherweight

import (
	"context"
	"fmt"
	"time"

	"github.com/feather-eval/feather/harness/lm"
)

// Record is one question answered by one model in one style: everything a
// reader needs to check the verdict.
type Record struct {
	ID       string `json:"id"`
	Category string `json:"category"`
	Style    Style  `json:"style"`
	// Answer is the correct letter.
	Answer string `json:"answer"`
	// Chat is true when the prompt went as a user message through the
	// model's chat template or chat API.
	Chat bool `json:"chat"`
	// PromptSent is the exact text the model saw as the backend reports it
	// (the chat-templated string for local chat models); when the backend
	// does not know it, the prompt text the suite built.
	PromptSent string `json:"prompt_sent"`
	Reply      string `json:"reply"`
	// Letter is the extracted answer, "" on a parse error.
	Letter     string `json:"letter"`
	Rule       Rule   `json:"rule"`
	Correct    bool   `json:"correct"`
	ParseError bool   `json:"parse_error"`

	InputTokens  int            `json:"input_tokens"`
	OutputTokens int            `json:"output_tokens"`
	LatencyMS    float64        `json:"latency_ms"`
	TTFTMS       float64        `json:"ttft_ms,omitempty"`
	StopReason   string         `json:"stop_reason"`
	SamplingSent map[string]any `json:"sampling_sent,omitempty"`
	// Error is a harness or backend failure: no extracted letter, the item
	// counts as wrong in the score (which is then marked incomplete), and
	// its subtest fails. It is "" when the model answered.
	Error string `json:"error,omitempty"`
}

// Evaluate asks the model every item in one batch, extracts the letters
// and returns one record per item, in item order. The error is for the
// batch as a whole; a failed request is recorded in its record's Error.
func Evaluate(ctx context.Context, g lm.Generator, info lm.Info, style Style, items []Item) ([]Record, error) {
	if len(items) == 0 {
		return nil, nil
	}
	reqs := make([]lm.GenerateRequest, len(items))
	for i, it := range items {
		reqs[i] = Request(style, it, info.Chat)
	}
	res, err := g.Generate(ctx, reqs)
	if err != nil {
		return nil, fmt.Errorf("model %s, %s prompts: %w", label(info), style, err)
	}
	if len(res) != len(reqs) {
		return nil, fmt.Errorf("model %s, %s prompts: the backend returned %d results for %d requests", label(info), style, len(res), len(reqs))
	}
	out := make([]Record, len(items))
	for i, it := range items {
		out[i] = Score(style, it, info.Chat, res[i])
	}
	return out, nil
}

// Score turns one generation result into a record.
func Score(style Style, it Item, chat bool, res lm.GenerateResult) Record {
	rec := Record{
		ID:           it.ID,
		Category:     it.Category,
		Style:        style,
		Answer:       it.AnswerLetter(),
		Chat:         chat,
		PromptSent:   res.PromptSent,
		Reply:        res.Text,
		InputTokens:  res.InputTokens,
		OutputTokens: res.OutputTokens,
		LatencyMS:    ms(res.Wall),
		TTFTMS:       ms(res.TTFT),
		StopReason:   res.StopReason,
		SamplingSent: res.SamplingSent,
	}
	if rec.PromptSent == "" {
		rec.PromptSent = Prompt(style, it)
	}
	if res.Err != nil {
		rec.Error = res.Err.Error()
		return rec
	}
	ex := Extract(res.Text, it.Choices)
	rec.Letter, rec.Rule = ex.Letter, ex.Rule
	rec.ParseError = ex.ParseError()
	rec.Correct = ex.Letter == rec.Answer
	return rec
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func label(info lm.Info) string {
	if info.Key != "" {
		return info.Key
	}
	return info.Name
}
