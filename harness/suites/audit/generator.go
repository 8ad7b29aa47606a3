package audit

import (
	"context"
	"fmt"

	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/suites/featherweight"
)

// Generator answers Featherweight prompts as a heuristic chooses: it
// replies with the letter of the choice the heuristic picks, which the
// suite's extraction and scoring then judge. Like Scorer it is built from
// the items, knowing each one's prompt in every style as
// featherweight.Prompt renders it, so nothing is read back out of the
// prompt text.
type Generator struct {
	h Heuristic
	// reply maps a prompt (raw, or the chat request's user message) to
	// the letter of the heuristic's choice.
	reply map[string]string
}

var _ lm.Generator = (*Generator)(nil)

// NewGenerator answers the items' prompts, in every style, with h.
func NewGenerator(h Heuristic, items []featherweight.Item) *Generator {
	g := &Generator{h: h, reply: map[string]string{}}
	for _, it := range items {
		letter := featherweight.Letters[h.Pick(it.Question, it.Choices[:])]
		for _, st := range featherweight.Styles {
			g.reply[featherweight.Prompt(st, it)] = letter
		}
	}
	return g
}

func (g *Generator) Generate(ctx context.Context, reqs []lm.GenerateRequest) ([]lm.GenerateResult, error) {
	out := make([]lm.GenerateResult, len(reqs))
	for i, r := range reqs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		text := r.Prompt
		if len(r.Messages) > 0 {
			text = r.Messages[len(r.Messages)-1].Content
		}
		letter, ok := g.reply[text]
		if !ok {
			out[i] = lm.GenerateResult{StopReason: lm.StopError, Err: fmt.Errorf("heuristic %s: prompt %q is no prompt of the audited items", g.h.Name, text)}
			continue
		}
		out[i] = lm.GenerateResult{Text: letter, StopReason: lm.StopEOS, PromptSent: text}
	}
	return out, nil
}
