// Package fakeserver is an in-process OpenAI-compatible server for tests.
// It speaks the real wire formats — chat completions as SSE chunks (role and
// content deltas, tool-call deltas split across chunks, a final usage chunk
// with OpenRouter's cost, finish_reason and native_finish_reason), legacy
// completions with echo and log-probs — and it can fail the ways real
// servers do: 429 with Retry-After, 5xx (with a JSON error or a proxy's raw
// page), an error object inside a 200 stream, a stream cut off before it
// finishes (cleanly, or by a dropped connection, even mid-event), a server
// that accepts a request and never answers, a stream that stalls or drips,
// a chunk that is not JSON, a usage object of the wrong shape, a
// connection closed or reset without an answer, a refusal, a server that
// silently drops prompt log-probs, one that answers a streamed request
// with a whole JSON completion, and one that answers with something else
// entirely (a web page).
//
// A test scripts the server with a function from the decoded request to a
// Reply, and inspects every raw request body and header afterwards:
//
//	s := fakeserver.Start(t, func(r fakeserver.Request) fakeserver.Reply {
//		if strings.Contains(r.Messages[0].Content, "capital of France") {
//			return fakeserver.Reply{Text: "A", Cost: fakeserver.USD(0.0001)}
//		}
//		return fakeserver.Reply{Status: 503, ErrorMessage: "overloaded"}
//	})
//	entry := s.Entry("fake", "test-model") // an openai catalog entry for s
//	...
//	body := s.Requests()[0].JSON // {"model": "test-model", "stream": true, ...}
//
// Log-prob requests (completions with echo) are answered from a
// deterministic toy model so expected sums can be worked out by hand: the
// prompt is split by Tokenize, prefixed with the BOS token "<s>" (whose
// log-prob is null, as on vLLM), every token t has log-prob LogProb(t) =
// -len([]rune(t))/4, and the runner-up at every position is RunnerUp with
// log-prob -1. So a token of at most four characters is the greedy choice.
package fakeserver

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/backends/openai"
)

// Message is one chat turn of a recorded request.
type Message struct {
	Role    string
	Content string
}

// Request is one request as the server received it.
type Request struct {
	// Seq is the 0-based arrival order across the server's life.
	Seq int
	// Attempt counts earlier requests with the identical body, so a script
	// can fail each request's first tries even when a batch runs
	// concurrently.
	Attempt int
	Method  string
	Path    string // e.g. "/v1/chat/completions"
	Header  http.Header
	Body    []byte         // the raw body
	JSON    map[string]any // the body decoded (nil when it is not a JSON object)

	// Decoded conveniences.
	Model    string
	Messages []Message
	Prompt   string
	Stream   bool
	Echo     bool
}

// ToolCall is a scripted tool call; Arguments is the raw arguments string
// the model "produces" (it need not be valid JSON).
type ToolCall struct {
	ID        string
	Name      string
	Arguments string
}

// Reply is what the server answers one request with. The zero Reply is a
// successful empty answer; set fields to shape it or make it fail.
type Reply struct {
	// Text is the answer. Streams send it in pieces (Chunks, or Tokenize(Text)).
	Text   string
	Chunks []string
	// ToolCalls are streamed as tool-call deltas, each call's arguments
	// split into several fragments.
	ToolCalls []ToolCall
	// Refusal is streamed as "refusal" deltas (OpenAI's structured refusal).
	Refusal string
	// FinishReason defaults to "tool_calls" when there are tool calls and to
	// "stop" otherwise. NativeFinishReason (OpenRouter's upstream reason) is
	// sent only when set.
	FinishReason       string
	NativeFinishReason string
	// RefusalCategory is sent as stop_details {"type": "refusal", "category": ...}
	// on the finishing choice.
	RefusalCategory string
	// Token counts for the usage chunk; zero means counted with Tokenize.
	PromptTokens     int
	CompletionTokens int
	// Cost is usage.cost in USD (OpenRouter); nil leaves it out.
	Cost *float64
	// Usage, when set, is sent verbatim as the usage object instead of
	// the counted one: a provider's wrong usage, such as counts written
	// as floats or strings.
	Usage json.RawMessage
	// ChunkDelay is the pause between this answer's streamed chunks
	// (0: the server's, SetChunkDelay): a slow drip.
	ChunkDelay time.Duration
	// Malformed is written verbatim halfway through the streamed content,
	// as one more event: a chunk that is not JSON, as a broken proxy
	// sends (`data: {"choices": [{"delt` and a blank line).
	Malformed string

	// Status other than 0 or 200 answers with that HTTP status and an error
	// object carrying ErrorMessage; RetryAfter sets the Retry-After header.
	// ErrorBody, when set, is sent as the body instead, as text/plain (a
	// proxy's page rather than the API's JSON).
	Status       int
	RetryAfter   string
	ErrorMessage string
	ErrorBody    string
	// StreamError ends a 200 stream, after the content, with an error chunk
	// in OpenRouter's shape (an "error" object and finish_reason "error").
	StreamError string
	// Truncate ends the stream after the content: no finish, no usage, no
	// [DONE]. A non-streamed answer is cut halfway instead: its
	// Content-Length promises the whole body and the connection drops.
	Truncate bool
	// Partial is raw text written after the content of a Truncate or Stall
	// stream, such as half an event: `data: {"choices": [{"delta": {"cont`.
	Partial string
	// Stall streams the content (and Partial), then holds the connection
	// open without another byte, as a stuck upstream does, until the client
	// gives up or the server closes.
	Stall bool
	// Hang accepts the request and never answers, not even a status line,
	// until the client gives up or the server closes.
	Hang bool
	// DropConnection closes the TCP connection instead of answering. With
	// Truncate it closes it after the streamed content (and Partial), so
	// the body breaks off mid-stream instead of ending cleanly.
	DropConnection bool
	// Reset is DropConnection with a TCP reset (RST) instead of a clean close.
	Reset bool

	// NoStream answers a streamed request the way servers that cannot
	// stream do: with the whole completion as one application/json body,
	// the same one a request without "stream" gets.
	NoStream bool
	// Body, when set, is the whole answer, sent verbatim with status 200
	// and ContentType (default "text/html; charset=utf-8"): a server that
	// does not speak the API, such as a web page at the base URL.
	Body        string
	ContentType string

	// LogProb overrides the toy model for echo requests: the log-prob of tok
	// after the tokens in prev (prev[0] is the BOS token).
	LogProb func(prev []string, tok string) float64
	// DropPromptLogprobs makes an echo request come back with log-probs for
	// the generated token only, as some servers silently do.
	DropPromptLogprobs bool
}

// Script answers one request.
type Script func(r Request) Reply

// Sequence answers the n-th request (in arrival order) with replies[n]; the
// last reply repeats.
func Sequence(replies ...Reply) Script {
	return func(r Request) Reply {
		if len(replies) == 0 {
			return Reply{}
		}
		if r.Seq < len(replies) {
			return replies[r.Seq]
		}
		return replies[len(replies)-1]
	}
}

// FailFirst answers each distinct request with fault for its first n
// attempts and with next after that, however a batch interleaves them.
func FailFirst(n int, fault Reply, next Script) Script {
	return func(r Request) Reply {
		if r.Attempt < n {
			return fault
		}
		if next == nil {
			return Reply{Text: "ok"}
		}
		return next(r)
	}
}

// USD returns a pointer to a cost, for Reply.Cost.
func USD(v float64) *float64 { return &v }

// The toy scoring model.
const (
	BOS             = "<s>"
	RunnerUp        = " the"
	RunnerUpLogProb = -1.0
)

// Tokenize splits text the way the server's toy tokenizer does: a new token
// starts at every space, which stays with the word that follows it
// ("Answer: Paris" -> "Answer:", " Paris").
func Tokenize(text string) []string {
	var out []string
	start := 0
	for i, r := range text {
		if r == ' ' && i > start {
			out = append(out, text[start:i])
			start = i
		}
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}

// LogProb is the toy model's log-prob of a token: minus a quarter per character.
func LogProb(tok string) float64 { return -float64(utf8.RuneCountInString(tok)) / 4 }

// Server is a running fake server.
type Server struct {
	// URL is the API base, ending in /v1, as a catalog's base_url wants it.
	URL string

	srv    *httptest.Server
	script Script

	// closing ends hung and stalled answers so the server can shut down.
	closing chan struct{}
	conns   atomic.Int64

	mu       sync.Mutex
	requests []Request
	forget   bool // keep no request log (KeepRequests)
	count    int
	bodies   map[[32]byte]int
	delay    time.Duration
}

// Start runs a server until the test ends. A nil script answers "ok".
func Start(t testing.TB, script Script) *Server {
	t.Helper()
	if script == nil {
		script = func(Request) Reply { return Reply{Text: "ok"} }
	}
	s := &Server{script: script, bodies: map[[32]byte]int{}, delay: time.Millisecond, closing: make(chan struct{})}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.conns.Add(1)
		}
	}
	s.srv.Start()
	s.URL = s.srv.URL + "/v1"
	t.Cleanup(func() {
		close(s.closing)
		s.srv.Close()
	})
	return s
}

// SetChunkDelay sets the pause between streamed chunks (default 1ms, so
// time to first token is always shorter than the whole response).
func (s *Server) SetChunkDelay(d time.Duration) {
	s.mu.Lock()
	s.delay = d
	s.mu.Unlock()
}

// Requests returns every request received so far, in arrival order
// (none under KeepRequests(false)).
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// KeepRequests says whether the server logs each request for Requests
// (the default). A long run that measures the client's memory turns the
// log off, so that the server's own memory stays flat; Count still counts.
func (s *Server) KeepRequests(keep bool) {
	s.mu.Lock()
	s.forget = !keep
	s.mu.Unlock()
}

// Count is how many requests the server has received.
func (s *Server) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.count
}

// Conns is how many connections clients have opened to the server so
// far: a client that reuses its connections opens one per request it has
// in flight at once, not one per request.
func (s *Server) Conns() int { return int(s.conns.Load()) }

// Entry is an openai catalog entry that points at this server.
func (s *Server) Entry(key, model string) catalog.Entry {
	return catalog.Entry{Key: key, Backend: openai.Name, Enabled: true, Settings: &openai.Settings{BaseURL: s.URL, Model: model}}
}

// Settings are the openai settings of an entry from Entry, to adjust.
func Settings(e catalog.Entry) *openai.Settings { return e.Settings.(*openai.Settings) }

func (s *Server) serve(w http.ResponseWriter, hr *http.Request) {
	body, _ := io.ReadAll(hr.Body)
	r := Request{Method: hr.Method, Path: hr.URL.Path, Header: hr.Header.Clone(), Body: body}
	if err := json.Unmarshal(body, &r.JSON); err == nil {
		decodeConveniences(&r)
	}
	s.mu.Lock()
	r.Seq = s.count
	s.count++
	sum := sha256.Sum256(append([]byte(hr.URL.Path+"\x00"), body...))
	r.Attempt = s.bodies[sum]
	s.bodies[sum]++
	if !s.forget {
		s.requests = append(s.requests, r)
	}
	delay := s.delay
	s.mu.Unlock()

	if hr.Method != http.MethodPost {
		writeError(w, http.StatusMethodNotAllowed, "", "use POST")
		return
	}
	if r.JSON == nil {
		writeError(w, http.StatusBadRequest, "", "the request body is not a JSON object")
		return
	}
	rep := s.script(r)
	switch {
	case rep.Hang:
		s.hold(hr)
		return
	case (rep.DropConnection || rep.Reset) && !rep.Truncate:
		drop(w, rep.Reset)
		return
	case rep.Status != 0 && rep.Status != http.StatusOK:
		if rep.ErrorBody != "" {
			if rep.RetryAfter != "" {
				w.Header().Set("Retry-After", rep.RetryAfter)
			}
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(rep.Status)
			io.WriteString(w, rep.ErrorBody)
			return
		}
		writeError(w, rep.Status, rep.RetryAfter, rep.ErrorMessage)
		return
	case rep.Body != "":
		ct := rep.ContentType
		if ct == "" {
			ct = "text/html; charset=utf-8"
		}
		w.Header().Set("Content-Type", ct)
		io.WriteString(w, rep.Body)
		return
	}
	if rep.NoStream {
		r.Stream = false
	}
	if rep.ChunkDelay > 0 {
		delay = rep.ChunkDelay
	}
	st := &stream{w: w, delay: delay, id: fmt.Sprintf("fake-%d", r.Seq), model: r.Model, hold: func() { s.hold(hr) }}
	switch strings.TrimSuffix(hr.URL.Path, "/") {
	case "/v1/chat/completions":
		if r.Stream {
			st.chat(r, rep)
		} else {
			chatJSON(w, r, rep)
		}
	case "/v1/completions":
		switch {
		case r.Echo && r.JSON["logprobs"] != nil:
			if r.Stream {
				writeError(w, http.StatusBadRequest, "", "echo with logprobs is only supported without streaming")
				return
			}
			scoreJSON(w, r, rep)
		case r.Stream:
			st.completion(r, rep)
		default:
			completionJSON(w, r, rep)
		}
	default:
		writeError(w, http.StatusNotFound, "", "no such endpoint: "+hr.URL.Path)
	}
}

// hold blocks until the client goes away or the server closes.
func (s *Server) hold(hr *http.Request) {
	select {
	case <-hr.Context().Done():
	case <-s.closing:
	}
}

// drop closes the connection under w, sending what was written so far;
// reset makes the close a TCP reset.
func drop(w http.ResponseWriter, reset bool) {
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler) // the server's own way to close a connection unanswered
	}
	buf.Flush()
	if tc, ok := conn.(*net.TCPConn); ok && reset {
		tc.SetLinger(0)
	}
	conn.Close()
}

func decodeConveniences(r *Request) {
	r.Model, _ = r.JSON["model"].(string)
	r.Prompt, _ = r.JSON["prompt"].(string)
	r.Stream, _ = r.JSON["stream"].(bool)
	r.Echo, _ = r.JSON["echo"].(bool)
	msgs, _ := r.JSON["messages"].([]any)
	for _, m := range msgs {
		mm, _ := m.(map[string]any)
		role, _ := mm["role"].(string)
		r.Messages = append(r.Messages, Message{Role: role, Content: contentText(mm["content"])})
	}
}

// contentText reads a message's content, a string or a list of text parts.
func contentText(v any) string {
	switch c := v.(type) {
	case string:
		return c
	case []any:
		var b strings.Builder
		for _, p := range c {
			if pm, ok := p.(map[string]any); ok {
				t, _ := pm["text"].(string)
				b.WriteString(t)
			}
		}
		return b.String()
	}
	return ""
}

func writeError(w http.ResponseWriter, status int, retryAfter, msg string) {
	if msg == "" {
		msg = http.StatusText(status)
	}
	if retryAfter != "" {
		w.Header().Set("Retry-After", retryAfter)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "code": status}})
}

func promptText(r Request) string {
	if r.Messages == nil {
		return r.Prompt
	}
	var parts []string
	for _, m := range r.Messages {
		parts = append(parts, m.Content)
	}
	return strings.Join(parts, "\n")
}

func (rep Reply) pieces() []string {
	if rep.Chunks != nil {
		return rep.Chunks
	}
	return Tokenize(rep.Text)
}

func (rep Reply) finish() string {
	switch {
	case rep.FinishReason != "":
		return rep.FinishReason
	case len(rep.ToolCalls) > 0:
		return "tool_calls"
	}
	return "stop"
}

func (rep Reply) usage(r Request, include bool) any {
	if !include {
		return nil
	}
	if rep.Usage != nil {
		return rep.Usage
	}
	in, out := rep.PromptTokens, rep.CompletionTokens
	if in == 0 {
		in = len(Tokenize(promptText(r)))
	}
	if out == 0 {
		out = len(Tokenize(rep.Text)) + len(Tokenize(rep.Refusal))
		for _, tc := range rep.ToolCalls {
			out += len(Tokenize(tc.Name + " " + tc.Arguments))
		}
	}
	u := map[string]any{"prompt_tokens": in, "completion_tokens": out, "total_tokens": in + out}
	if rep.Cost != nil {
		u["cost"] = *rep.Cost
	}
	return u
}

// wantsUsage reports whether the request asked for a usage chunk, the
// OpenAI way (stream_options.include_usage) or OpenRouter's (usage.include).
func wantsUsage(r Request) bool {
	if so, ok := r.JSON["stream_options"].(map[string]any); ok && so["include_usage"] == true {
		return true
	}
	if u, ok := r.JSON["usage"].(map[string]any); ok && u["include"] == true {
		return true
	}
	return false
}

// stream writes server-sent events.
type stream struct {
	w     http.ResponseWriter
	delay time.Duration
	id    string
	model string
	sent  bool
	hold  func() // blocks until the client or the server gives up
}

func (st *stream) start() {
	st.w.Header().Set("Content-Type", "text/event-stream")
	st.w.Header().Set("Cache-Control", "no-cache")
	st.w.WriteHeader(http.StatusOK)
	// OpenRouter sends SSE comments as keep-alives; clients must skip them.
	io.WriteString(st.w, ": OPENROUTER PROCESSING\n\n")
}

func (st *stream) event(v any) {
	if st.sent && st.delay > 0 {
		time.Sleep(st.delay)
	}
	st.sent = true
	b, _ := json.Marshal(v)
	fmt.Fprintf(st.w, "data: %s\n\n", b)
	if f, ok := st.w.(http.Flusher); ok {
		f.Flush()
	}
}

// malformed writes the reply's Malformed event before content piece i of
// n, halfway through.
func (st *stream) malformed(rep Reply, i, n int) {
	if rep.Malformed == "" || i != n/2 {
		return
	}
	io.WriteString(st.w, rep.Malformed)
	if f, ok := st.w.(http.Flusher); ok {
		f.Flush()
	}
}

// cut ends a Truncate or Stall stream after its content and reports
// whether it did.
func (st *stream) cut(rep Reply) bool {
	if !rep.Truncate && !rep.Stall {
		return false
	}
	io.WriteString(st.w, rep.Partial)
	if f, ok := st.w.(http.Flusher); ok {
		f.Flush()
	}
	switch {
	case rep.Stall:
		st.hold()
	case rep.DropConnection || rep.Reset:
		drop(st.w, rep.Reset)
	}
	return true
}

func (st *stream) done() {
	io.WriteString(st.w, "data: [DONE]\n\n")
}

func (st *stream) chunk(object string, choices []any, usage any) map[string]any {
	c := map[string]any{"id": st.id, "object": object, "created": 1700000000, "model": st.model, "choices": choices}
	if usage != nil {
		c["usage"] = usage
	}
	return c
}

func delta(d map[string]any) []any {
	return []any{map[string]any{"index": 0, "delta": d, "finish_reason": nil}}
}

const chatChunk = "chat.completion.chunk"

func (st *stream) chat(r Request, rep Reply) {
	st.start()
	st.event(st.chunk(chatChunk, delta(map[string]any{"role": "assistant", "content": ""}), nil))
	pieces := rep.pieces()
	for i, p := range pieces {
		st.malformed(rep, i, len(pieces))
		st.event(st.chunk(chatChunk, delta(map[string]any{"content": p}), nil))
	}
	for _, p := range Tokenize(rep.Refusal) {
		st.event(st.chunk(chatChunk, delta(map[string]any{"refusal": p}), nil))
	}
	for i, tc := range rep.ToolCalls {
		id := tc.ID
		if id == "" {
			id = fmt.Sprintf("call_%d", i)
		}
		st.event(st.chunk(chatChunk, delta(map[string]any{"tool_calls": []any{map[string]any{
			"index": i, "id": id, "type": "function",
			"function": map[string]any{"name": tc.Name, "arguments": ""},
		}}}), nil))
		for _, frag := range fragments(tc.Arguments, 3) {
			st.event(st.chunk(chatChunk, delta(map[string]any{"tool_calls": []any{map[string]any{
				"index": i, "function": map[string]any{"arguments": frag},
			}}}), nil))
		}
	}
	if st.cut(rep) {
		return
	}
	if rep.StreamError != "" {
		c := st.chunk(chatChunk, []any{map[string]any{"index": 0, "delta": map[string]any{"content": ""}, "finish_reason": "error"}}, nil)
		c["error"] = map[string]any{"code": 502, "message": rep.StreamError}
		st.event(c)
		return
	}
	fin := map[string]any{"index": 0, "delta": map[string]any{}, "finish_reason": rep.finish()}
	if rep.NativeFinishReason != "" {
		fin["native_finish_reason"] = rep.NativeFinishReason
	}
	if rep.RefusalCategory != "" {
		fin["stop_details"] = map[string]any{"type": "refusal", "category": rep.RefusalCategory}
	}
	st.event(st.chunk(chatChunk, []any{fin}, nil))
	if u := rep.usage(r, wantsUsage(r)); u != nil {
		st.event(st.chunk(chatChunk, []any{}, u))
	}
	st.done()
}

// fragments splits s into n nearly equal pieces on rune boundaries.
func fragments(s string, n int) []string {
	runes := []rune(s)
	if len(runes) < n {
		return []string{s}
	}
	var out []string
	for i := 0; i < n; i++ {
		out = append(out, string(runes[i*len(runes)/n:(i+1)*len(runes)/n]))
	}
	return out
}

func (st *stream) completion(r Request, rep Reply) {
	st.start()
	pieces := rep.pieces()
	for i, p := range pieces {
		st.malformed(rep, i, len(pieces))
		st.event(st.chunk("text_completion", []any{map[string]any{"index": 0, "text": p, "finish_reason": nil, "logprobs": nil}}, nil))
	}
	if st.cut(rep) {
		return
	}
	if rep.StreamError != "" {
		c := st.chunk("text_completion", []any{map[string]any{"index": 0, "text": "", "finish_reason": "error"}}, nil)
		c["error"] = map[string]any{"code": 502, "message": rep.StreamError}
		st.event(c)
		return
	}
	fin := map[string]any{"index": 0, "text": "", "finish_reason": rep.finish(), "logprobs": nil}
	if rep.NativeFinishReason != "" {
		fin["native_finish_reason"] = rep.NativeFinishReason
	}
	st.event(st.chunk("text_completion", []any{fin}, nil))
	if u := rep.usage(r, wantsUsage(r)); u != nil {
		st.event(st.chunk("text_completion", []any{}, u))
	}
	st.done()
}

// writeJSON answers with v; a Truncate reply promises the whole body
// (Content-Length) and drops the connection halfway through it.
func writeJSON(w http.ResponseWriter, v any, rep Reply) {
	w.Header().Set("Content-Type", "application/json")
	var buf bytes.Buffer
	json.NewEncoder(&buf).Encode(v)
	if !rep.Truncate {
		w.Write(buf.Bytes())
		return
	}
	w.Header().Set("Content-Length", fmt.Sprint(buf.Len()))
	w.Write(buf.Bytes()[:buf.Len()/2])
	if f, ok := w.(http.Flusher); ok {
		f.Flush() // Hijack would discard what is still buffered
	}
	drop(w, rep.Reset)
}

func chatJSON(w http.ResponseWriter, r Request, rep Reply) {
	msg := map[string]any{"role": "assistant", "content": rep.Text}
	if rep.Refusal != "" {
		msg["refusal"] = rep.Refusal
	}
	var calls []any
	for i, tc := range rep.ToolCalls {
		id := tc.ID
		if id == "" {
			id = fmt.Sprintf("call_%d", i)
		}
		calls = append(calls, map[string]any{"id": id, "type": "function", "function": map[string]any{"name": tc.Name, "arguments": tc.Arguments}})
	}
	if calls != nil {
		msg["tool_calls"] = calls
	}
	choice := map[string]any{"index": 0, "message": msg, "finish_reason": rep.finish()}
	if rep.NativeFinishReason != "" {
		choice["native_finish_reason"] = rep.NativeFinishReason
	}
	if rep.RefusalCategory != "" {
		choice["stop_details"] = map[string]any{"type": "refusal", "category": rep.RefusalCategory}
	}
	writeJSON(w, map[string]any{"id": "fake", "object": "chat.completion", "created": 1700000000, "model": r.Model,
		"choices": []any{choice}, "usage": rep.usage(r, true)}, rep)
}

func completionJSON(w http.ResponseWriter, r Request, rep Reply) {
	writeJSON(w, map[string]any{"id": "fake", "object": "text_completion", "created": 1700000000, "model": r.Model,
		"choices": []any{map[string]any{"index": 0, "text": rep.Text, "finish_reason": rep.finish(), "logprobs": nil}},
		"usage":   rep.usage(r, true)}, rep)
}

// scoreJSON answers an echo request with per-token log-probs of the prompt
// (and of the generated tokens, max_tokens of them, each RunnerUp).
func scoreJSON(w http.ResponseWriter, r Request, rep Reply) {
	lp := rep.LogProb
	if lp == nil {
		lp = func(_ []string, tok string) float64 { return LogProb(tok) }
	}
	maxTokens := 16 // the OpenAI default
	if v, ok := r.JSON["max_tokens"].(float64); ok {
		maxTokens = int(v)
	}
	promptToks := append([]string{BOS}, Tokenize(r.Prompt)...)
	var (
		tokens  []string
		lps     []any
		tops    []any
		offsets []int
		off     int
	)
	add := func(tok string, l any, top any) {
		tokens = append(tokens, tok)
		lps = append(lps, l)
		tops = append(tops, top)
		offsets = append(offsets, off)
		off += utf8.RuneCountInString(tok)
	}
	for i, tok := range promptToks {
		if i == 0 {
			add(tok, nil, nil)
			continue
		}
		v := lp(promptToks[:i], tok)
		top := map[string]any{RunnerUp: RunnerUpLogProb}
		top[tok] = v
		add(tok, v, top)
	}
	if rep.DropPromptLogprobs {
		tokens, lps, tops, offsets = nil, nil, nil, nil
	}
	text := r.Prompt
	for i := 0; i < maxTokens; i++ {
		add(RunnerUp, RunnerUpLogProb, map[string]any{RunnerUp: RunnerUpLogProb})
		text += RunnerUp
	}
	writeJSON(w, map[string]any{"id": "fake", "object": "text_completion", "created": 1700000000, "model": r.Model,
		"choices": []any{map[string]any{"index": 0, "text": text, "finish_reason": "length",
			"logprobs": map[string]any{"tokens": tokens, "token_logprobs": lps, "top_logprobs": tops, "text_offset": offsets}}},
		"usage": map[string]any{"prompt_tokens": len(promptToks), "completion_tokens": maxTokens, "total_tokens": len(promptToks) + maxTokens}}, rep)
}
