package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/internal/parallel"
	"github.com/feather-eval/feather/internal/redact"
)

// Generate runs a batch with up to Options.Concurrency requests in flight;
// results come back in request order. Failed requests end as results with
// Err set and StopReason "error"; the returned error is only for a
// cancelled context.
func (m *Model) Generate(ctx context.Context, reqs []lm.GenerateRequest) ([]lm.GenerateResult, error) {
	out := make([]lm.GenerateResult, len(reqs))
	parallel.For(len(reqs), m.opts.Concurrency, func(i int) { out[i] = m.generate(ctx, reqs[i]) })
	return out, ctx.Err()
}

func (m *Model) generate(ctx context.Context, req lm.GenerateRequest) lm.GenerateResult {
	sent, extra := m.sampling(req)
	res := lm.GenerateResult{SamplingSent: sent}
	var secrets redact.Secrets
	fail := func(err error) lm.GenerateResult {
		res.StopReason = lm.StopError
		res.Err = secrets.Err(fmt.Errorf("%s: %w", m.where(), err))
		return res
	}
	format, err := m.responseFormat(req)
	if err != nil {
		return fail(err)
	}
	if format != nil {
		extra["response_format"] = format
	}
	switch {
	case len(req.Messages) > 0 && req.Prompt != "":
		return fail(errors.New("the request has both messages and a raw prompt; send one"))
	case len(req.Messages) == 0 && req.Prompt == "":
		return fail(errors.New("the request has neither messages nor a prompt"))
	case !m.chat() && len(req.Messages) > 0:
		return fail(errors.New(`the entry has "chat": "no" (the completions endpoint, raw text only) but the request is a chat conversation; remove "chat": "no" to use the chat endpoint`))
	}
	header, secrets, err := m.credentials()
	if err != nil {
		return fail(err)
	}
	if !m.chat() {
		res.PromptSent = req.Prompt
	}
	var acc *accumulator
	retries, err := m.retry(ctx, attempt{extra: extra, header: header, secrets: secrets}, func(actx context.Context, a *attempt) error {
		acc = &accumulator{start: time.Now(), secrets: secrets}
		defer func() { a.output = !acc.first.IsZero() }()
		if m.chat() {
			stream, err := m.client.CreateChatCompletionStream(actx, m.chatRequest(req))
			if err != nil {
				return m.httpError(err, a)
			}
			defer stream.Close()
			return acc.read(a.body, a.contentType)
		}
		stream, err := m.client.CreateCompletionStream(actx, goopenai.CompletionRequest{
			Model:         m.model,
			Prompt:        req.Prompt,
			StreamOptions: &goopenai.StreamOptions{IncludeUsage: true},
		})
		if err != nil {
			return m.httpError(err, a)
		}
		defer stream.Close()
		return acc.read(a.body, a.contentType)
	})
	res.Retries = retries
	if acc != nil {
		acc.fill(&res)
		// A server that echoes the key back must not put it in a record.
		res.Text = secrets.String(res.Text)
		for i, c := range res.ToolCalls {
			if raw := secrets.String(c.RawArgs); raw != c.RawArgs {
				res.ToolCalls[i] = normaliseCall(c.Name, raw)
			}
		}
	}
	if err != nil {
		return fail(err)
	}
	return res
}

// sampling returns what is recorded as sent and the extra body fields to
// send: the request's declared sampling and cap only. The catalog's
// defaults are already in the request (lm.WithDefaults, applied when the
// catalog opens the model).
func (m *Model) sampling(req lm.GenerateRequest) (sent, extra map[string]any) {
	s := req.Sampling
	sent = map[string]any{}
	if s.Temperature != nil {
		sent["temperature"] = *s.Temperature
	}
	if s.TopP != nil {
		sent["top_p"] = *s.TopP
	}
	if s.TopK != nil {
		sent["top_k"] = *s.TopK
	}
	if s.Seed != nil {
		sent["seed"] = *s.Seed
	}
	if req.MaxNewTokens > 0 {
		sent["max_tokens"] = req.MaxNewTokens
	}
	if m.openRouter && m.effort != "" {
		sent["reasoning"] = map[string]any{"effort": m.effort}
	}
	extra = make(map[string]any, len(sent)+2)
	for k, v := range sent {
		extra[k] = v
	}
	if m.openRouter {
		// Pin the upstream so a run never scores a silent fallback, and make
		// the route honour every parameter sent (or fail).
		extra["provider"] = map[string]any{"order": m.providerOrder, "allow_fallbacks": false, "require_parameters": true}
		extra["usage"] = map[string]any{"include": true}
	}
	return sent, extra
}

// formatNameRE is what OpenAI accepts as a json_schema name.
var formatNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// responseFormat is the response_format for req's schema, or nil. It is
// sent only to the chat endpoint of an entry that declares
// structured_outputs: OpenRouter's require_parameters would refuse every
// provider that lacks it, and a plain server might reject the field. The
// schema's title names it (json_schema.name is required), else "response".
func (m *Model) responseFormat(req lm.GenerateRequest) (map[string]any, error) {
	if len(req.ResponseFormat) == 0 || !m.structured || !m.chat() {
		return nil, nil
	}
	var schema map[string]json.RawMessage
	if err := json.Unmarshal(req.ResponseFormat, &schema); err != nil || schema == nil {
		return nil, errors.New("the request's response format is not a JSON Schema object")
	}
	name := "response"
	var title string
	if json.Unmarshal(schema["title"], &title) == nil && formatNameRE.MatchString(title) {
		name = title
	}
	return map[string]any{"type": "json_schema", "json_schema": map[string]any{
		"name": name, "strict": true, "schema": req.ResponseFormat,
	}}, nil
}

func (m *Model) chatRequest(req lm.GenerateRequest) goopenai.ChatCompletionRequest {
	cr := goopenai.ChatCompletionRequest{
		Model:         m.model,
		StreamOptions: &goopenai.StreamOptions{IncludeUsage: true},
	}
	if req.Prompt != "" {
		cr.Messages = []goopenai.ChatCompletionMessage{{Role: goopenai.ChatMessageRoleUser, Content: req.Prompt}}
	}
	for _, msg := range req.Messages {
		cr.Messages = append(cr.Messages, goopenai.ChatCompletionMessage{Role: msg.Role, Content: msg.Content})
	}
	for _, t := range req.Tools {
		var params any = json.RawMessage(`{"type":"object","properties":{}}`)
		if len(t.Parameters) > 0 {
			params = t.Parameters
		}
		cr.Tools = append(cr.Tools, goopenai.Tool{Type: goopenai.ToolTypeFunction, Function: &goopenai.FunctionDefinition{
			Name: t.Name, Description: t.Description, Parameters: params,
		}})
	}
	return cr
}

// httpError turns go-openai's error for a failed request into statusError.
func (m *Model) httpError(err error, a *attempt) error {
	if a.body != nil {
		a.body.Close() // go-openai leaves a failed answer's body open
	}
	var apiErr *goopenai.APIError
	var reqErr *goopenai.RequestError
	switch {
	case errors.As(err, &apiErr) && apiErr.HTTPStatusCode != 0:
		msg := apiErr.Message
		if apiErr.Type != "" {
			msg += " (" + apiErr.Type + ")"
		}
		return m.statusError(a.status, msg)
	case errors.As(err, &reqErr):
		return m.statusError(a.status, a.secrets.Snippet(reqErr.Body))
	}
	return err
}

// statusError is a failed answer with the status, the server's own words
// and, for the usual mistakes, the fix.
func (m *Model) statusError(status int, msg string) error {
	out := fmt.Sprintf("HTTP %d %s: %s", status, http.StatusText(status), msg)
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden:
		if m.keyEnv != "" {
			out += fmt.Sprintf("; check the key in %s", m.keyEnv)
		} else {
			out += `; the server wants a key: name its variable in "api_key_env"`
		}
	case http.StatusNotFound:
		out += `; check "base_url" (it usually ends in /v1) and "model"`
	case http.StatusPaymentRequired:
		out += "; add credits to the account"
	}
	return errors.New(out)
}

// Wire shapes of streamed chunks, chat and completions alike, with the
// fields go-openai's types lack. A reply that was not streamed has the
// same shape, with a whole message where a chunk has a delta.
type wireChunk struct {
	Object  string       `json:"object"`
	Message string       `json:"message"` // vLLM's {"object": "error", "message": …}
	Error   *wireError   `json:"error"`
	Choices []wireChoice `json:"choices"`
	Usage   *wireUsage   `json:"usage"`
}

type wireChoice struct {
	Index              int          `json:"index"`
	Delta              wireDelta    `json:"delta"`
	Message            *wireDelta   `json:"message"` // not streamed
	Text               *string      `json:"text"`    // completions
	FinishReason       *string      `json:"finish_reason"`
	NativeFinishReason *string      `json:"native_finish_reason"`
	StopDetails        *stopDetails `json:"stop_details"`
	Error              *wireError   `json:"error"`
}

type wireDelta struct {
	Content   *string        `json:"content"`
	Refusal   *string        `json:"refusal"`
	ToolCalls []wireToolCall `json:"tool_calls"`
}

type wireToolCall struct {
	Index    *int   `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type stopDetails struct {
	Type     string `json:"type"`
	Category string `json:"category"`
}

type wireError struct {
	Code    json.RawMessage `json:"code"`
	Message string          `json:"message"`
}

func (e *wireError) err() error {
	return fmt.Errorf("the provider reported an error inside the stream: %s", e.text())
}

func (e *wireError) text() string {
	msg := e.Message
	if msg == "" {
		msg = "(no message)"
	}
	if code := strings.Trim(string(e.Code), `"`); code != "" && code != "null" {
		msg += " (code " + code + ")"
	}
	return msg
}

type toolCallAcc struct {
	index int
	name  string
	args  strings.Builder
}

// accumulator assembles a streamed answer, or takes a whole one from a
// server that does not stream.
type accumulator struct {
	start time.Time
	first time.Time
	end   time.Time
	// unstreamed: the answer came in one piece, so the time its first
	// token took is unknown.
	unstreamed bool
	text       strings.Builder
	refusal    strings.Builder
	calls      []*toolCallAcc
	finish     string
	native     string
	details    *stopDetails
	usage      *wireUsage
	secrets    redact.Secrets
}

// read consumes the answer: server-sent events up to [DONE] or, from a
// server that ignores "stream": true, one JSON completion (see readWhole).
// A body that opens with '{' is the latter whatever its Content-Type
// (such servers send application/json); a stream never does, since its
// lines open with a field name or ':'. A body that is neither is an
// error showing what came, not a stream cut short.
func (acc *accumulator) read(body io.Reader, contentType string) error {
	if body == nil {
		return errors.New("no response body")
	}
	sse := newSSEReader(body)
	defer sse.release()
	defer func() { acc.end = time.Now() }()
	if sse.firstByte() == '{' {
		return acc.readWhole(sse.r, contentType)
	}
	for {
		data, err := sse.next()
		if err == io.EOF {
			return acc.finished()
		}
		if err == errTruncated && !sse.seen && len(sse.head) > 0 {
			return acc.unreadable(contentType, sse.head)
		}
		if err != nil {
			return err
		}
		var c wireChunk
		if err := json.Unmarshal(data, &c); err != nil {
			return fmt.Errorf("unreadable stream chunk %s: %v", acc.secrets.Snippet(data), err)
		}
		if c.Error != nil {
			return c.Error.err()
		}
		if c.Object == "error" {
			return (&wireError{Message: c.Message}).err()
		}
		if c.Usage != nil {
			acc.usage = c.Usage
		}
		for _, ch := range c.Choices {
			if ch.Index != 0 {
				continue // only one completion is asked for
			}
			if ch.Error != nil {
				return ch.Error.err()
			}
			acc.add(ch)
		}
	}
}

// readWhole reads the answer of a server that replied without streaming:
// one chat or text completion, whose text, tool calls, finish reason and
// usage count as a stream's would. Its time to first token is unknown.
func (acc *accumulator) readWhole(r io.Reader, contentType string) error {
	acc.unstreamed = true
	body, err := io.ReadAll(io.LimitReader(r, maxEventBytes+1))
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errReplyCut
	case err != nil:
		return fmt.Errorf("reading the reply: %w", err)
	case len(body) > maxEventBytes:
		return fmt.Errorf("the reply is over %d MiB, which no completion is: the server is not answering as an OpenAI-compatible API does", maxEventBytes>>20)
	}
	var c wireChunk
	if err := json.Unmarshal(body, &c); err != nil || c.Error == nil && c.Object != "error" && len(c.Choices) == 0 && c.Usage == nil {
		return acc.unreadable(contentType, body)
	}
	if c.Error != nil {
		return fmt.Errorf("the server replied with an error: %s", c.Error.text())
	}
	if c.Object == "error" {
		return fmt.Errorf("the server replied with an error: %s", (&wireError{Message: c.Message}).text())
	}
	acc.usage = c.Usage
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue
		}
		if ch.Error != nil {
			return fmt.Errorf("the server replied with an error: %s", ch.Error.text())
		}
		if ch.Message != nil {
			ch.Delta = *ch.Message
			// Whole calls, in order, each with its id or none.
			for i := range ch.Delta.ToolCalls {
				if ch.Delta.ToolCalls[i].Index == nil {
					ch.Delta.ToolCalls[i].Index = &i
				}
			}
		}
		acc.add(ch)
	}
	return acc.finished()
}

// finished is the error of an answer that ended with finish_reason
// "error" or "abort" but no error object; nil otherwise.
func (acc *accumulator) finished() error {
	if f := strings.ToLower(acc.finish); f == "error" || f == "abort" {
		what := "stream"
		if acc.unstreamed {
			what = "reply"
		}
		return fmt.Errorf("the %s finished with finish_reason %q and no error message", what, acc.finish)
	}
	return nil
}

// unreadable is the error for a reply that is neither a stream nor a
// completion: what the server sent, so that its cause shows (a web page
// or a proxy's notice where the API was expected, say).
func (acc *accumulator) unreadable(contentType string, body []byte) error {
	what := "no Content-Type"
	if contentType != "" {
		what = fmt.Sprintf("Content-Type %q", contentType)
	}
	return fmt.Errorf(`the reply is neither a stream of server-sent events nor a JSON completion (%s; it begins %q): check "base_url", which must be the API's address (it usually ends in /v1)`,
		what, acc.secrets.Snippet(body[:min(len(body), headBytes)]))
}

func (acc *accumulator) add(ch wireChoice) {
	token := false
	if ch.Delta.Content != nil && *ch.Delta.Content != "" {
		acc.text.WriteString(*ch.Delta.Content)
		token = true
	}
	if ch.Text != nil && *ch.Text != "" {
		acc.text.WriteString(*ch.Text)
		token = true
	}
	if ch.Delta.Refusal != nil && *ch.Delta.Refusal != "" {
		acc.refusal.WriteString(*ch.Delta.Refusal)
		token = true
	}
	for _, tc := range ch.Delta.ToolCalls {
		acc.toolCall(tc)
		token = true
	}
	if token && acc.first.IsZero() {
		acc.first = time.Now()
	}
	if ch.FinishReason != nil && *ch.FinishReason != "" {
		acc.finish = *ch.FinishReason
	}
	if ch.NativeFinishReason != nil && *ch.NativeFinishReason != "" {
		acc.native = *ch.NativeFinishReason
	}
	if ch.StopDetails != nil {
		acc.details = ch.StopDetails
	}
}

// toolCall adds a fragment to the call with its index; servers that send
// no index start a new call with each id.
func (acc *accumulator) toolCall(tc wireToolCall) {
	var c *toolCallAcc
	switch {
	case tc.Index != nil:
		for _, x := range acc.calls {
			if x.index == *tc.Index {
				c = x
			}
		}
		if c == nil {
			c = &toolCallAcc{index: *tc.Index}
			acc.calls = append(acc.calls, c)
		}
	case tc.ID != "" || len(acc.calls) == 0:
		c = &toolCallAcc{index: len(acc.calls)}
		acc.calls = append(acc.calls, c)
	default:
		c = acc.calls[len(acc.calls)-1]
	}
	if tc.Function.Name != "" {
		c.name = tc.Function.Name
	}
	c.args.WriteString(tc.Function.Arguments)
}

// fill copies what arrived into res. Time to first token is measured to
// the first content, refusal or tool-call delta; a streamed answer with
// none has TTFT equal to its wall time, and one that was not streamed
// has none (zero: unknown).
func (acc *accumulator) fill(res *lm.GenerateResult) {
	res.Text = acc.text.String()
	refusal := acc.refusal.String()
	if res.Text == "" {
		res.Text = refusal
	}
	sort.SliceStable(acc.calls, func(i, j int) bool { return acc.calls[i].index < acc.calls[j].index })
	for _, c := range acc.calls {
		res.ToolCalls = append(res.ToolCalls, normaliseCall(c.name, c.args.String()))
	}
	if !acc.end.IsZero() {
		res.Wall = acc.end.Sub(acc.start)
		switch {
		case acc.unstreamed:
		case !acc.first.IsZero():
			res.TTFT = acc.first.Sub(acc.start)
		default:
			res.TTFT = res.Wall
		}
	}
	if acc.usage != nil {
		res.InputTokens = acc.usage.PromptTokens
		res.OutputTokens = acc.usage.CompletionTokens
		res.CostUSD = acc.usage.Cost
	}
	res.StopReason = stopReason(acc.finish, acc.native, refusal != "", acc.details, len(acc.calls) > 0)
	if res.StopReason == lm.StopRefusal && acc.details != nil {
		res.RefusalCategory = acc.details.Category
	}
}

// normaliseCall parses a call's arguments; arguments that are not a JSON
// object leave Args nil and stay visible in RawArgs.
func normaliseCall(name, raw string) lm.ToolCall {
	call := lm.ToolCall{Name: name, RawArgs: raw}
	if strings.TrimSpace(raw) == "" {
		call.Args = map[string]any{}
		return call
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(raw), &args); err == nil && args != nil {
		call.Args = args
	}
	return call
}

// stopReason normalises finish reasons. A refusal is any of: finish_reason
// content_filter or refusal, OpenRouter's native_finish_reason refusal, a
// refusal delta, or stop_details of type refusal.
func stopReason(finish, native string, refusalDelta bool, details *stopDetails, calls bool) string {
	finish, native = strings.ToLower(finish), strings.ToLower(native)
	switch {
	case finish == "content_filter" || finish == "refusal" || native == "refusal" || refusalDelta ||
		(details != nil && strings.EqualFold(details.Type, "refusal")):
		return lm.StopRefusal
	case finish == "length" || finish == "max_tokens":
		return lm.StopLength
	case finish == "tool_calls" || finish == "function_call" || calls:
		return lm.StopToolCalls
	case finish == "error" || finish == "abort":
		return lm.StopError
	}
	return lm.StopEOS
}
