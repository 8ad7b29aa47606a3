// Package chat renders chat templates from tokenizer_config.json the way
// transformers' apply_chat_template(..., tokenize=False) does: Jinja with
// trim_blocks and lstrip_blocks, raise_exception, strftime_now, and a
// tojson filter that writes what Python's json.dumps writes (key order
// kept, ", " and ": " separators, non-ASCII left as is).
package chat

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/nikolalohinski/gonja/v2/exec"

	"github.com/feather-eval/feather/harness/lm"
)

// ErrNoTemplate means a tokenizer folder has no chat template; Load wraps
// it with the path it read.
var ErrNoTemplate = errors.New("no chat_template (the model has no chat template; use raw prompts)")

// Options are the arguments of one rendering.
type Options struct {
	// AddGenerationPrompt ends the text with the tokens that open an
	// assistant turn.
	AddGenerationPrompt bool
	// Tools are function definitions as the template expects them, usually
	// the OpenAI shape {"type": "function", "function": {...}}. A non-nil
	// slice (even empty) selects a "tool_use" template when the model has
	// named templates, as transformers does for tools that are not None.
	Tools []map[string]any
	// Documents are retrieval documents ({"title", "text"}) for templates
	// that take them.
	Documents []map[string]any
	// Extra are further template variables (enable_thinking, ...). They may
	// override special tokens but not messages, tools, documents or
	// add_generation_prompt.
	Extra map[string]any
	// Name selects one of a model's named templates; empty means
	// "tool_use" when Tools are given and present, else "default".
	Name string
}

// Template is a compiled chat template (or a model's set of named ones)
// with the special tokens it is rendered with. It is safe for concurrent
// use.
type Template struct {
	origin  string // where the template came from, for errors
	single  *compiled
	named   map[string]*compiled
	special map[string]string // bos_token, eos_token, ... (only those set)
}

type compiled struct {
	name   string // origin plus the template's name when it has one
	source string
	tpl    *exec.Template
}

// New compiles one template. Empty bosToken or eosToken leave the variable
// undefined, as transformers does for a tokenizer without that token.
func New(source, bosToken, eosToken string) (*Template, error) {
	c, err := compile("chat template", source)
	if err != nil {
		return nil, err
	}
	return &Template{origin: "chat template", single: c, special: specialTokens(bosToken, eosToken)}, nil
}

func specialTokens(bos, eos string) map[string]string {
	m := map[string]string{}
	if bos != "" {
		m["bos_token"] = bos
	}
	if eos != "" {
		m["eos_token"] = eos
	}
	return m
}

// Source is the text of the template Render uses by default (no Name, no
// Tools); "" when a model's named templates have no "default".
func (t *Template) Source() string {
	if t.single != nil {
		return t.single.source
	}
	if c, ok := t.named["default"]; ok {
		return c.source
	}
	return ""
}

// Names lists a model's named templates, sorted; nil for a single template.
func (t *Template) Names() []string {
	if t.named == nil {
		return nil
	}
	names := make([]string, 0, len(t.named))
	for n := range t.named {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Render renders plain role/content messages.
func (t *Template) Render(msgs []lm.Message, opt Options) (string, error) {
	list := make(pyList, len(msgs))
	for i, m := range msgs {
		d := exec.NewDict()
		d.Pairs = []*exec.Pair{
			{Key: exec.AsValue("role"), Value: exec.AsValue(m.Role)},
			{Key: exec.AsValue("content"), Value: exec.AsValue(m.Content)},
		}
		list[i] = d
	}
	return t.render(list, opt)
}

// RenderMaps renders messages with further fields (tool_calls, reasoning,
// content parts). Go maps have no key order, so keys come out in the
// conventional OpenAI order (role, content, id, type, function, name,
// description, parameters, arguments, properties, items, required), then
// alphabetically; a json.RawMessage value keeps the order it was written in.
func (t *Template) RenderMaps(msgs []map[string]any, opt Options) (string, error) {
	list := make(pyList, len(msgs))
	for i, m := range msgs {
		v, err := toTemplate(m, fmt.Sprintf("messages[%d]", i))
		if err != nil {
			return "", fmt.Errorf("%s: %w", t.origin, err)
		}
		list[i] = v
	}
	return t.render(list, opt)
}

// reserved are the variables transformers sets itself.
var reserved = []string{"messages", "tools", "documents", "add_generation_prompt"}

func (t *Template) render(messages pyList, opt Options) (string, error) {
	c, err := t.pick(opt)
	if err != nil {
		return "", err
	}
	vars := map[string]any{
		"messages":              messages,
		"add_generation_prompt": opt.AddGenerationPrompt,
		"tools":                 none,
		"documents":             none,
	}
	if opt.Tools != nil {
		if vars["tools"], err = toTemplate(opt.Tools, "tools"); err != nil {
			return "", fmt.Errorf("%s: %w", c.name, err)
		}
	}
	if opt.Documents != nil {
		if vars["documents"], err = toTemplate(opt.Documents, "documents"); err != nil {
			return "", fmt.Errorf("%s: %w", c.name, err)
		}
	}
	for k, v := range t.special {
		vars[k] = v
	}
	for k, v := range opt.Extra {
		for _, r := range reserved {
			if k == r {
				return "", fmt.Errorf("%s: Options.Extra[%q] clashes with a variable the renderer sets; use the Options field instead", c.name, k)
			}
		}
		if vars[k], err = toTemplate(v, k); err != nil {
			return "", fmt.Errorf("%s: Options.Extra: %w", c.name, err)
		}
	}
	return c.execute(vars)
}

func (t *Template) pick(opt Options) (*compiled, error) {
	if t.single != nil {
		if opt.Name != "" {
			return nil, fmt.Errorf("%s: Options.Name %q asks for a named template, but this model has a single one; leave Name empty", t.origin, opt.Name)
		}
		return t.single, nil
	}
	if opt.Name != "" {
		if c, ok := t.named[opt.Name]; ok {
			return c, nil
		}
		return nil, fmt.Errorf("%s: no chat template named %q; the model has %s", t.origin, opt.Name, strings.Join(t.Names(), ", "))
	}
	if c, ok := t.named["tool_use"]; ok && opt.Tools != nil {
		return c, nil
	}
	if c, ok := t.named["default"]; ok {
		return c, nil
	}
	return nil, fmt.Errorf("%s: the model has several chat templates and none is named \"default\"; set Options.Name to one of %s", t.origin, strings.Join(t.Names(), ", "))
}

// ExceptionError is a template's own refusal: raise_exception(message),
// typically a conversation the template does not accept.
type ExceptionError struct {
	Template string // where the template came from
	Message  string // the template's message
}

func (e *ExceptionError) Error() string {
	return e.Template + ": the template raised an exception: " + e.Message
}

// now is the clock strftime_now reads; tests replace it.
var now = time.Now

func (c *compiled) execute(vars map[string]any) (string, error) {
	// raise_exception and strftime_now are bound per rendering so that the
	// template's message survives gonja's error wrapping intact.
	var (
		mu     sync.Mutex
		raised *ExceptionError
	)
	vars["raise_exception"] = func(args *exec.VarArgs) (any, error) {
		msg := ""
		if len(args.Args) > 0 {
			msg = args.Args[0].String()
		}
		mu.Lock()
		if raised == nil {
			raised = &ExceptionError{Template: c.name, Message: msg}
		}
		mu.Unlock()
		return nil, errors.New(msg)
	}
	vars["strftime_now"] = strftimeNow
	out, err := c.tpl.ExecuteToString(exec.NewContext(vars))
	mu.Lock()
	defer mu.Unlock()
	if raised != nil {
		return "", raised
	}
	if err != nil {
		return "", fmt.Errorf("%s: rendering failed: %v", c.name, err)
	}
	return out, nil
}
