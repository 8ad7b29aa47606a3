package audit

import (
	"context"
	"fmt"
	"strings"

	"github.com/feather-eval/feather/harness/featherweight"
	"github.com/feather-eval/feather/harness/lm"
)

// Generator answers Featherweight prompts as a heuristic would choose: it
// reads the question and the four choices back out of the prompt it is
// sent (either style, raw or as the user message) and replies with the
// chosen letter, which the suite's extraction and scoring then judge.
type Generator struct{ H Heuristic }

var _ lm.Generator = (*Generator)(nil)

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
		q, choices, err := parsePrompt(text)
		if err != nil {
			out[i] = lm.GenerateResult{StopReason: lm.StopError, Err: fmt.Errorf("heuristic %s: %w", g.H.Name, err)}
			continue
		}
		out[i] = lm.GenerateResult{Text: featherweight.Letters[g.H.Pick(q, choices)], StopReason: lm.StopEOS, PromptSent: text}
	}
	return out, nil
}

// parsePrompt recovers the question and the choices from a prompt in
// either Featherweight style, reading the "A) " to "D) " lines from the end
// so a question that spans lines stays whole.
func parsePrompt(p string) (question string, choices []string, err error) {
	for _, tail := range []string{"\n\nAnswer with just the letter of the correct choice.", "\nAnswer:"} {
		if strings.HasSuffix(p, tail) {
			p = strings.TrimSuffix(p, tail)
			break
		}
	}
	choices = make([]string, len(featherweight.Letters))
	for i := len(featherweight.Letters) - 1; i >= 0; i-- {
		mark := "\n" + featherweight.Letters[i] + ") "
		at := strings.LastIndex(p, mark)
		if at < 0 {
			return "", nil, fmt.Errorf("the prompt has no %q line; it is not a Featherweight prompt", strings.TrimPrefix(mark, "\n"))
		}
		choices[i] = p[at+len(mark):]
		p = p[:at]
	}
	return strings.TrimPrefix(strings.TrimSuffix(p, "\n"), "Question: "), choices, nil
}
