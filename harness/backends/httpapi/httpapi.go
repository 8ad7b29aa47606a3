// Package httpapi is the backend for custom HTTP endpoints: a server that
// takes a JSON body holding the prompt and answers with JSON holding the
// reply (Featherweight's "chathaiku-shape" endpoints).
//
// A catalog entry gives the URL, a request_template and a response_path:
//
//	"haiku": {
//	  "backend": "http",
//	  "url": "http://localhost:8080/generate",
//	  "request_template": {"input": "{{prompt}}", "max_new_tokens": "{{max_tokens}}"},
//	  "response_path": "choices.0.message.content",
//	  "headers": {"X-Team": "${TEAM_ID}"},
//	  "api_key_env": "HAIKU_API_KEY"
//	}
//
// Every string in the template containing {{prompt}} has it replaced by the
// prompt (JSON-escaped as the string is re-encoded). A string that is
// exactly {{max_tokens}}, {{temperature}}, {{top_p}}, {{top_k}} or {{seed}}
// becomes that number when the request declares it; an undeclared one is
// left out (an object member is removed, an array element becomes null),
// as every backend sends only declared sampling. Key order and number
// spelling in the template are kept.
//
// Header values may name variables as ${NAME}; api_key_env sends its
// variable as "Authorization: Bearer …". Both are read at each call and
// scrubbed from every error. Failed requests are retried as the openai
// backend's are (package retry): 429 and 5xx answers, honouring
// Retry-After, and failures before any answer (no answer in time, a
// refused, reset or dropped connection); a 2xx answer whose body breaks off
// is not, since the endpoint did the work. The reply is not streamed, so
// time to first token equals wall time of the successful attempt; custom endpoints report no finish reason, so the
// stop reason is recorded as eos. A template carries one prompt and nothing
// else: a request that offers tools fails with lm.ErrUnsupported, and a
// ResponseFormat is not sent.
package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/internal/jsonpos"
	"github.com/feather-eval/feather/internal/parallel"
	"github.com/feather-eval/feather/internal/redact"
	"github.com/feather-eval/feather/internal/retry"
)

// Model is one custom endpoint: an lm.Model and lm.Generator.
type Model struct {
	// Concurrency (default 4), Timeout per attempt (default 10m) and
	// MaxAttempts per request (default 4) may be changed before the first
	// Generate.
	Concurrency int
	Timeout     time.Duration
	MaxAttempts int
	// Retry shapes the waits between attempts (backoff, the longest
	// Retry-After honoured) and holds the clock and sleep tests replace;
	// Timeout and MaxAttempts, when set, win over its own.
	Retry retry.Policy
	// Getenv reads api_key_env and header variables (os.Getenv).
	Getenv func(string) string

	entry  catalog.Entry
	s      *Settings
	client *http.Client
}

// New checks an "http" catalog entry.
func New(e catalog.Entry) (*Model, error) {
	s, ok := e.Settings.(*Settings)
	if !ok {
		return nil, errors.New("the entry has no http settings")
	}
	u, err := url.Parse(s.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf(`"url" %q is not an http(s) URL`, s.URL)
	}
	if _, _, err := render(s.RequestTemplate, "", lm.GenerateRequest{}); err != nil {
		return nil, fmt.Errorf(`"request_template": %v`, err)
	}
	if !bytes.Contains(s.RequestTemplate, []byte("{{prompt}}")) {
		return nil, errors.New(`"request_template" has no "{{prompt}}" placeholder; put it in the string field that carries the prompt`)
	}
	for _, seg := range strings.Split(s.ResponsePath, ".") {
		if seg == "" {
			return nil, fmt.Errorf(`"response_path" %q has an empty segment; write it like choices.0.message.content`, s.ResponsePath)
		}
	}
	return &Model{Concurrency: 4, Timeout: 10 * time.Minute, MaxAttempts: 4, Getenv: os.Getenv, entry: e, s: s, client: &http.Client{}}, nil
}

// Info describes the endpoint. It applies its own template, if any, so
// requests are treated as chat turns.
func (m *Model) Info() lm.Info {
	return lm.Info{Key: m.entry.Key, Name: m.entry.Name, Backend: m.entry.Backend, Path: m.s.URL, Chat: true}
}

// Close releases idle connections.
func (m *Model) Close() error {
	m.client.CloseIdleConnections()
	return nil
}

// Generate sends each request, retrying as package retry says, up to
// Concurrency at a time; results come back in order, failures as results
// with Err set.
func (m *Model) Generate(ctx context.Context, reqs []lm.GenerateRequest) ([]lm.GenerateResult, error) {
	out := make([]lm.GenerateResult, len(reqs))
	parallel.For(len(reqs), m.Concurrency, func(i int) { out[i] = m.generate(ctx, reqs[i]) })
	return out, ctx.Err()
}

func (m *Model) generate(ctx context.Context, req lm.GenerateRequest) lm.GenerateResult {
	var res lm.GenerateResult
	var secrets redact.Secrets
	fail := func(err error) lm.GenerateResult {
		res.StopReason = lm.StopError
		res.Err = secrets.Err(fmt.Errorf("http model %q: POST %s: %w", m.entry.Key, m.s.URL, err))
		return res
	}
	prompt, err := promptOf(req)
	if err != nil {
		return fail(err)
	}
	res.PromptSent = prompt
	body, sent, err := render(m.s.RequestTemplate, prompt, req)
	if err != nil {
		return fail(fmt.Errorf(`"request_template": %v`, err))
	}
	res.SamplingSent = sent
	header, secrets, err := m.headers()
	if err != nil {
		return fail(err)
	}
	var data []byte
	res.Retries, err = retry.Do(ctx, m.policy(), func(actx context.Context, a *retry.Attempt) error {
		hr, err := http.NewRequestWithContext(actx, http.MethodPost, m.s.URL, bytes.NewReader(body))
		if err != nil {
			return err
		}
		hr.Header = header.Clone()
		start := time.Now()
		resp, err := m.client.Do(hr)
		if err != nil {
			var ue *url.Error
			if errors.As(err, &ue) {
				err = ue.Err // the URL is already in the message
			}
			return err
		}
		a.Status, a.RetryAfter = resp.StatusCode, resp.Header.Get("Retry-After")
		// A 2xx answer means the endpoint did the work: no retry after it.
		a.Output = resp.StatusCode/100 == 2
		data, err = io.ReadAll(resp.Body)
		resp.Body.Close()
		// The answer arrives whole: no time to first token (TTFT stays 0,
		// which records as unavailable), as with an unstreamed API reply.
		res.Wall = time.Since(start)
		if err != nil {
			return fmt.Errorf("reading the response: %w", err)
		}
		if resp.StatusCode/100 != 2 {
			return fmt.Errorf("HTTP %d %s: %s", resp.StatusCode, http.StatusText(resp.StatusCode), secrets.Snippet(data))
		}
		return nil
	})
	if err != nil {
		return fail(err)
	}
	text, err := extract(data, m.s.ResponsePath, secrets)
	if err != nil {
		return fail(err)
	}
	res.Text = secrets.String(text)
	res.StopReason = lm.StopEOS
	return res
}

// promptOf is the one text the endpoint takes.
func promptOf(req lm.GenerateRequest) (string, error) {
	switch {
	case len(req.Tools) > 0:
		return "", fmt.Errorf("the request offers tools, which a request_template cannot carry; use an openai backend for tool use: %w", lm.ErrUnsupported)
	case req.Prompt != "" && len(req.Messages) > 0:
		return "", errors.New("the request has both messages and a raw prompt; send one")
	case req.Prompt != "":
		return req.Prompt, nil
	case len(req.Messages) == 1:
		return req.Messages[0].Content, nil
	case len(req.Messages) == 0:
		return "", errors.New("the request has neither messages nor a prompt")
	}
	var roles []string
	for _, msg := range req.Messages {
		roles = append(roles, msg.Role)
	}
	return "", fmt.Errorf("the endpoint takes one prompt but the request has %d messages (%s)", len(req.Messages), strings.Join(roles, ", "))
}

// headers reads the entry's headers and key at call time, and the secrets
// to keep out of everything the backend returns.
func (m *Model) headers() (http.Header, redact.Secrets, error) {
	getenv := m.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json")
	secrets, err := redact.Headers(h, m.s.Headers, getenv)
	if err != nil {
		return nil, secrets, err
	}
	if m.s.APIKeyEnv != "" {
		key := strings.TrimSpace(getenv(m.s.APIKeyEnv))
		if key == "" {
			return nil, secrets, fmt.Errorf("the key variable %s (api_key_env) is not set: export it, or remove api_key_env if the endpoint needs no key", m.s.APIKeyEnv)
		}
		h.Set("Authorization", "Bearer "+key)
		secrets = append(secrets, key)
	}
	return h, secrets, nil
}

// policy is Retry with the model's own Timeout and MaxAttempts.
func (m *Model) policy() retry.Policy {
	p := m.Retry
	if m.Timeout > 0 {
		p.AttemptTimeout = m.Timeout
	}
	if m.MaxAttempts > 0 {
		p.MaxAttempts = m.MaxAttempts
	}
	return p
}

// render fills the template; sent records the sampling values substituted.
func render(tmpl json.RawMessage, prompt string, req lm.GenerateRequest) (body []byte, sent map[string]any, err error) {
	if len(bytes.TrimSpace(tmpl)) == 0 {
		return nil, nil, errors.New(`it is missing: give the JSON body with "{{prompt}}" where the prompt goes`)
	}
	if !json.Valid(tmpl) {
		return nil, nil, errors.New("it is not valid JSON")
	}
	r := renderer{prompt: prompt, values: map[string]any{}, sent: map[string]any{}}
	s := req.Sampling
	if req.MaxNewTokens > 0 {
		r.values["max_tokens"] = req.MaxNewTokens
	}
	if s.Temperature != nil {
		r.values["temperature"] = *s.Temperature
	}
	if s.TopP != nil {
		r.values["top_p"] = *s.TopP
	}
	if s.TopK != nil {
		r.values["top_k"] = *s.TopK
	}
	if s.Seed != nil {
		r.values["seed"] = *s.Seed
	}
	dec := json.NewDecoder(bytes.NewReader(tmpl))
	dec.UseNumber()
	var buf bytes.Buffer
	if _, err := r.value(dec, &buf); err != nil {
		return nil, nil, err
	}
	return buf.Bytes(), r.sent, nil
}

type renderer struct {
	prompt string
	values map[string]any // declared sampling by placeholder name
	sent   map[string]any
}

// value copies one JSON value from dec to w, substituting placeholders;
// it reports false when the value is an undeclared placeholder to leave out.
func (r *renderer) value(dec *json.Decoder, w *bytes.Buffer) (bool, error) {
	tok, err := dec.Token()
	if err != nil {
		return false, err
	}
	switch t := tok.(type) {
	case json.Delim:
		closing := map[json.Delim]json.Delim{'{': '}', '[': ']'}[t]
		w.WriteString(t.String())
		n := 0
		for dec.More() {
			var item bytes.Buffer
			if t == '{' {
				k, err := dec.Token()
				if err != nil {
					return false, err
				}
				writeString(&item, k.(string))
				item.WriteByte(':')
			}
			keep, err := r.value(dec, &item)
			if err != nil {
				return false, err
			}
			if !keep {
				if t == '{' {
					continue
				}
				item.WriteString("null")
			}
			if n > 0 {
				w.WriteByte(',')
			}
			w.Write(item.Bytes())
			n++
		}
		if _, err := dec.Token(); err != nil {
			return false, err
		}
		w.WriteString(closing.String())
	case string:
		if name, ok := wholePlaceholder(t); ok {
			v, declared := r.values[name]
			if !declared {
				return false, nil
			}
			r.sent[name] = v
			b, _ := json.Marshal(v)
			w.Write(b)
			return true, nil
		}
		writeString(w, strings.ReplaceAll(t, "{{prompt}}", r.prompt))
	case json.Number:
		w.WriteString(t.String())
	case bool:
		w.WriteString(strconv.FormatBool(t))
	case nil:
		w.WriteString("null")
	}
	return true, nil
}

func wholePlaceholder(s string) (string, bool) {
	switch s {
	case "{{max_tokens}}", "{{temperature}}", "{{top_p}}", "{{top_k}}", "{{seed}}":
		return s[2 : len(s)-2], true
	}
	return "", false
}

// writeString JSON-encodes s without HTML escaping, so the endpoint gets
// the prompt's characters as they are.
func writeString(w *bytes.Buffer, s string) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	w.Truncate(w.Len() - 1) // Encode's newline
}

// extract follows a dotted path (numeric segments index lists) to the
// reply text.
func extract(data []byte, path string, secrets redact.Secrets) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", fmt.Errorf("the response is not JSON (%v): %s", err, secrets.Snippet(data))
	}
	segs := strings.Split(path, ".")
	for i, seg := range segs {
		at := strings.Join(segs[:i], ".")
		if at == "" {
			at = "the top level"
		} else {
			at = fmt.Sprintf("%q", at)
		}
		missing := func(detail string) error {
			return fmt.Errorf(`the response has no %q: %s; set "response_path" to where the reply text is. The response: %s`, path, detail, secrets.Snippet(data))
		}
		switch c := v.(type) {
		case map[string]any:
			next, ok := c[seg]
			if !ok {
				return "", missing(fmt.Sprintf("%q is missing at %s (keys there: %s)", seg, at, keys(c)))
			}
			v = next
		case []any:
			n, err := strconv.Atoi(seg)
			if err != nil {
				return "", missing(fmt.Sprintf("%s is a list, so %q must be an index", at, seg))
			}
			if n < 0 || n >= len(c) {
				return "", missing(fmt.Sprintf("index %d is out of range at %s (the list has %d items)", n, at, len(c)))
			}
			v = c[n]
		default:
			return "", missing(fmt.Sprintf("%q is missing: %s is %s, not an object or list", seg, at, jsonpos.ValueKind(v)))
		}
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf(`%q in the response is %s, not text; point "response_path" at the reply string`, path, jsonpos.ValueKind(v))
	}
	return s, nil
}

func keys(m map[string]any) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	if len(ks) == 0 {
		return "none"
	}
	sort.Strings(ks)
	return strings.Join(ks, ", ")
}
