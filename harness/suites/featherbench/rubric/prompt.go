package rubric

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"text/template"

	"github.com/feather-eval/feather/harness/lm"
)

//go:embed judge_prompt.tmpl
var defaultPromptText string

// DefaultPromptName names the built-in judge prompt in messages.
const DefaultPromptName = "judge_prompt.tmpl"

// PromptData is everything a judge prompt template can show. It holds no
// field that could identify the contestant, so no template, however
// edited, can break blindness: {{.Model}} and the like fail ParsePrompt.
type PromptData struct {
	// Prompt is the task's prompt, exactly as the contestant saw it.
	Prompt string
	// Criteria are the task's rubric criteria, in file order ({{inc $i}}
	// numbers them from 1).
	Criteria []string
	// Response is the contestant's answer text.
	Response string
	// ToolCalls are the contestant's tool calls, one JSON object per line
	// ({"name": ..., "args": ...}); empty when it made none.
	ToolCalls string
	// Fence is a line of '=' that occurs in neither the prompt nor the
	// response, to delimit them so a response cannot close its own section.
	Fence string
}

// Prompt is a parsed judge prompt template.
type Prompt struct {
	// Name is where the template came from (a path or DefaultPromptName).
	Name string
	tmpl *template.Template
}

var funcs = template.FuncMap{"inc": func(i int) int { return i + 1 }}

// DefaultPrompt is the built-in template, judge_prompt.tmpl.
func DefaultPrompt() *Prompt { return defaultPrompt() }

// defaultPrompt parses the built-in template once; a parsed template is
// safe for concurrent use.
var defaultPrompt = sync.OnceValue(func() *Prompt {
	p, err := ParsePrompt(DefaultPromptName, defaultPromptText)
	if err != nil {
		panic("rubric: the built-in judge prompt is invalid: " + err.Error())
	}
	return p
})

// LoadPrompt reads a judge prompt template from path (the judge-prompt
// option), so the prompt can be edited without rebuilding.
func LoadPrompt(path string) (*Prompt, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the judge prompt: %w", err)
	}
	return ParsePrompt(path, string(data))
}

// ParsePrompt parses a template written in Go's text/template syntax over
// PromptData, and checks it on a sample: it must render, and must show the
// task prompt, every criterion and the response, or the judge would grade
// blind in the wrong sense.
func ParsePrompt(name, text string) (*Prompt, error) {
	t, err := template.New(name).Funcs(funcs).Option("missingkey=error").Parse(text)
	if err != nil {
		return nil, fmt.Errorf("judge prompt %s: %v", name, trimTemplateErr(err))
	}
	p := &Prompt{Name: name, tmpl: t}
	sample := PromptData{
		Prompt:   "SAMPLE-TASK-PROMPT",
		Criteria: []string{"SAMPLE-CRITERION-ONE", "SAMPLE-CRITERION-TWO"},
		Response: "SAMPLE-RESPONSE",
	}
	out, err := p.render(sample)
	if err != nil {
		return nil, fmt.Errorf("judge prompt %s: %v (a template can use {{.Prompt}}, {{.Criteria}}, {{.Response}}, {{.ToolCalls}}, {{.Fence}} and {{inc $i}})", name, trimTemplateErr(err))
	}
	for _, need := range []struct{ text, field string }{
		{sample.Prompt, "{{.Prompt}}"},
		{sample.Criteria[0], "each of {{.Criteria}}"},
		{sample.Criteria[1], "each of {{.Criteria}}"},
		{sample.Response, "{{.Response}}"},
	} {
		if !strings.Contains(out, need.text) {
			return nil, fmt.Errorf("judge prompt %s: it never shows %s; the judge must see the task prompt, every criterion and the response", name, need.field)
		}
	}
	return p, nil
}

// Render is the text sent to every judge for one response.
func (p *Prompt) Render(task TaskView, resp Response) (string, error) {
	data := PromptData{
		Prompt:    task.Prompt,
		Criteria:  task.Criteria,
		Response:  resp.Text,
		ToolCalls: toolCallLines(resp.ToolCalls),
	}
	data.Fence = fence(data.Prompt, data.Response, data.ToolCalls)
	return p.render(data)
}

func (p *Prompt) render(data PromptData) (string, error) {
	var b strings.Builder
	if err := p.tmpl.Execute(&b, data); err != nil {
		return "", err
	}
	return b.String(), nil
}

// fence is the shortest line of at least eight '=' found in none of texts.
func fence(texts ...string) string {
	f := strings.Repeat("=", 8)
	for {
		clash := false
		for _, t := range texts {
			if strings.Contains(t, f) {
				clash = true
				break
			}
		}
		if !clash {
			return f
		}
		f += "="
	}
}

func toolCallLines(calls []lm.ToolCall) string {
	lines := make([]string, 0, len(calls))
	for _, c := range calls {
		args := any(c.Args)
		if c.Args == nil && c.RawArgs != "" {
			args = c.RawArgs
		}
		b, err := json.Marshal(struct {
			Name string `json:"name"`
			Args any    `json:"args"`
		}{c.Name, args})
		if err != nil { // args decoded from JSON always marshal; keep the call visible anyway
			b, _ = json.Marshal(struct {
				Name    string `json:"name"`
				RawArgs string `json:"raw_args"`
			}{c.Name, c.RawArgs})
		}
		lines = append(lines, string(b))
	}
	return strings.Join(lines, "\n")
}

// trimTemplateErr drops text/template's "template: " prefix; what remains
// starts with name:line:col.
func trimTemplateErr(err error) string {
	return strings.TrimPrefix(err.Error(), "template: ")
}
