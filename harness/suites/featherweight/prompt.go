package featherweight

import (
	"fmt"
	"strings"

	"github.com/feather-eval/feather/harness/lm"
)

// Style is one of the two prompt formats; the spec runs both and reports
// both columns.
type Style string

const (
	// Plain is "closer to a deployed chat interface ... Fed to the model as
	// the user turn."
	Plain Style = "plain"
	// Completion is "an MMLU-style format ending with a bare \"Answer:\"".
	Completion Style = "completion"
)

// Styles is every style in report order.
var Styles = []Style{Plain, Completion}

// ParseStyles reads a style choice: plain, completion or both.
func ParseStyles(s string) ([]Style, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "both", "":
		return append([]Style(nil), Styles...), nil
	case string(Plain):
		return []Style{Plain}, nil
	case string(Completion):
		return []Style{Completion}, nil
	}
	return nil, fmt.Errorf("prompt style %q: want plain, completion or both", s)
}

// MaxNewTokens is the spec's generation cap: "max_new_tokens = 20".
const MaxNewTokens = 20

// Prompt renders an item in a style, byte for byte as the spec prints the
// templates (no trailing newline; the completion prompt ends in a bare
// "Answer:").
func Prompt(style Style, it Item) string {
	c := it.Choices
	switch style {
	case Completion:
		return "Question: " + it.Question + "\n" +
			"A) " + c[0] + "\n" +
			"B) " + c[1] + "\n" +
			"C) " + c[2] + "\n" +
			"D) " + c[3] + "\n" +
			"Answer:"
	default:
		return it.Question + "\n" +
			"\n" +
			"A) " + c[0] + "\n" +
			"B) " + c[1] + "\n" +
			"C) " + c[2] + "\n" +
			"D) " + c[3] + "\n" +
			"\n" +
			"Answer with just the letter of the correct choice."
	}
}

// Sampling is the spec's decoding: "temperature = 0.0, top_p = 1.0,
// top_k = 1", no penalties (lm.Sampling has none to send). Temperature 0
// already decodes greedily, so top_k is not sent (OpenAI's API rejects it);
// a fixed seed is, for endpoints whose temperature 0 is not fully
// deterministic on its own. Local models decode by argmax regardless.
func Sampling() lm.Sampling {
	s := lm.Greedy()
	seed := Seed
	s.Seed = &seed
	return s
}

// Seed is the sampling seed sent to endpoints that take one.
const Seed = 1234

// Request builds the generation request for an item. A chat model gets the
// text as the user message, so its backend applies the chat template with
// the generation prompt ("The user message is the same text as for non-chat
// models — only the surrounding tokens differ"); a base model continues the
// raw text.
func Request(style Style, it Item, chat bool) lm.GenerateRequest {
	text := Prompt(style, it)
	req := lm.GenerateRequest{MaxNewTokens: MaxNewTokens, Sampling: Sampling()}
	if chat {
		req.Messages = []lm.Message{{Role: "user", Content: text}}
	} else {
		req.Prompt = text
	}
	return req
}
