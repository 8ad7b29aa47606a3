package openai

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"sync"

	"github.com/feather-eval/feather/internal/redact"
)

// attempt carries one HTTP attempt's wire additions into the doer and its
// response metadata back out. It travels in the request's context because
// go-openai builds the *http.Request itself.
type attempt struct {
	// extra fields merged into the JSON body (what go-openai cannot express:
	// OpenRouter's routing, reasoning and usage objects, top_k, and sampling
	// values go-openai would drop as zero).
	extra   map[string]any
	header  http.Header    // Authorization and the entry's headers
	secrets redact.Secrets // scrubbed from a failed answer's body before it is cut to a snippet

	status      int    // 0 when no response arrived
	retryAfter  string // the Retry-After header of a failed answer
	contentType string // what the server said its body is, for errors
	body        io.ReadCloser
	output      bool // a token arrived: the answer may be billed, so no retry
}

type attemptKey struct{}

func withAttempt(ctx context.Context, a *attempt) context.Context {
	return context.WithValue(ctx, attemptKey{}, a)
}

// doer is the HTTPClient given to go-openai: a request hook that adds the
// fields and headers go-openai lacks and records the response metadata
// (status, Retry-After, body) that go-openai does not expose.
type doer struct{ client *http.Client }

func (d *doer) Do(req *http.Request) (*http.Response, error) {
	a, _ := req.Context().Value(attemptKey{}).(*attempt)
	if a == nil {
		return d.client.Do(req)
	}
	if len(a.extra) > 0 && req.Body != nil {
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		merged, err := mergeJSON(body, a.extra)
		if err != nil {
			return nil, err
		}
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(merged))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(merged)), nil }
		req.ContentLength = int64(len(merged))
	}
	for k, vs := range a.header {
		req.Header[k] = vs
	}
	resp, err := d.client.Do(req)
	if err != nil {
		return nil, err
	}
	a.status = resp.StatusCode
	a.retryAfter = resp.Header.Get("Retry-After")
	a.contentType = resp.Header.Get("Content-Type")
	a.body = resp.Body
	return resp, nil
}

// mergeJSON sets extra's fields on the JSON object in body. The body is
// go-openai's, which never holds them (the request it encodes sets none),
// so they are appended to the object as it stands, in key order, rather
// than the whole body being decoded into a map and encoded again: that
// was a fifth of the backend's own CPU per streamed request. A body that
// names one of them anywhere takes the decoding path, which replaces it.
func mergeJSON(body []byte, extra map[string]any) ([]byte, error) {
	body = bytes.TrimSpace(body)
	if len(body) < 2 || body[0] != '{' || body[len(body)-1] != '}' {
		return nil, errors.New("request body is not a JSON object")
	}
	keys := make([]string, 0, len(extra))
	quoted := make(map[string][]byte, len(extra)) // each key as encoding/json writes it
	for k := range extra {
		q, err := json.Marshal(k)
		if err != nil {
			return nil, fmt.Errorf("encoding request field name %q: %w", k, err)
		}
		if bytes.Contains(body, q) {
			return mergeJSONDecoded(body, extra)
		}
		keys, quoted[k] = append(keys, k), q
	}
	sort.Strings(keys)
	out := make([]byte, 0, len(body)+64*len(keys))
	out = append(out, bytes.TrimSpace(body[:len(body)-1])...)
	empty := len(out) == 1 // "{"
	for _, k := range keys {
		v, err := json.Marshal(extra[k])
		if err != nil {
			return nil, fmt.Errorf("encoding request field %q: %w", k, err)
		}
		if !empty {
			out = append(out, ',')
		}
		empty = false
		out = append(append(append(out, quoted[k]...), ':'), v...)
	}
	return append(out, '}'), nil
}

// mergeJSONDecoded is mergeJSON for a body that may hold extra's keys.
func mergeJSONDecoded(body []byte, extra map[string]any) ([]byte, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(body, &obj); err != nil {
		return nil, fmt.Errorf("request body is not a JSON object: %w", err)
	}
	for k, v := range extra {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("encoding request field %q: %w", k, err)
		}
		obj[k] = b
	}
	return json.Marshal(obj)
}

// errTruncated marks a stream that ended before its [DONE] sentinel, and
// errReplyCut a non-streamed reply cut short of its length. Both unwrap
// to io.ErrUnexpectedEOF so the retry policy sees a dropped connection
// (retried only while no token has arrived).
var (
	errTruncated error = truncatedError{"the stream ended before it finished (no [DONE]): the connection dropped or the server cut the response off"}
	errReplyCut  error = truncatedError{"the reply ended before it finished: the connection dropped or the server cut the response off"}
)

type truncatedError struct{ msg string }

func (e truncatedError) Error() string { return e.msg }

func (truncatedError) Unwrap() error { return io.ErrUnexpectedEOF }

// sseReader reads the data of server-sent events.
//
// go-openai's own stream reader is not used for three reasons: it decodes
// chunks into types without OpenRouter's usage.cost, native_finish_reason
// and error fields; it reports the same io.EOF whether [DONE] arrived or
// the connection dropped, so a truncated stream would pass as complete; and
// it buffers SSE comment lines (OpenRouter's keep-alives) into its error
// accumulator, which garbles an error event that follows them.
type sseReader struct {
	r    *bufio.Reader
	done bool
	// seen is set by the first line in the syntax of server-sent events
	// (a field or a comment); until then head keeps the body's first
	// bytes, so that a reply that is no stream at all can be shown.
	seen bool
	head []byte
}

// headBytes is how much of a body that is not a stream is kept to show.
const headBytes = 1 << 10

// sseBuffers are the readers' 4 KiB buffers, kept between streams: a
// fresh one per request was the largest allocation of a streamed answer.
var sseBuffers = sync.Pool{New: func() any { return bufio.NewReader(nil) }}

func newSSEReader(r io.Reader) *sseReader {
	br := sseBuffers.Get().(*bufio.Reader)
	br.Reset(r)
	return &sseReader{r: br}
}

// firstByte is the body's first byte that is not white space, read
// ahead without consuming it; 0 when the body ends or fails first. It
// waits for that byte and no more, so a stream's timing is untouched.
func (s *sseReader) firstByte() byte {
	for n := 1; n <= s.r.Size(); n++ {
		b, _ := s.r.Peek(n)
		if len(b) < n {
			return 0
		}
		switch c := b[n-1]; c {
		case ' ', '\t', '\r', '\n':
		default:
			return c
		}
	}
	return 0
}

// release hands the buffer back; the reader is not used again. The data
// next returned does not share it.
func (s *sseReader) release() {
	s.r.Reset(nil)
	sseBuffers.Put(s.r)
	s.r = nil
}

// maxEventBytes bounds one event's data: a broken or hostile server must
// not exhaust memory with an endless line.
const maxEventBytes = 32 << 20

var errEventTooLarge = fmt.Errorf("reading the stream: an event is over %d MiB, which no chat completion chunk is: the server is not speaking server-sent events as expected", maxEventBytes>>20)

// readLine reads one line, at most maxEventBytes long. A line that fits
// the buffer, as nearly all do, is returned in it, valid until the next
// read: copying every line cost two allocations each.
func (s *sseReader) readLine() ([]byte, error) {
	frag, err := s.r.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		return frag, err
	}
	buf := append([]byte(nil), frag...)
	for {
		frag, err := s.r.ReadSlice('\n')
		if len(buf)+len(frag) > maxEventBytes {
			return nil, errEventTooLarge
		}
		buf = append(buf, frag...)
		if err != bufio.ErrBufferFull {
			return buf, err
		}
	}
}

// keep adds a line to head while no line of server-sent events has come.
func (s *sseReader) keep(line []byte) {
	if !s.seen && len(s.head) < headBytes {
		s.head = append(s.head, line[:min(len(line), headBytes-len(s.head))]...)
	}
}

// next returns the next event's data: io.EOF after [DONE], errTruncated when
// the body ends first.
func (s *sseReader) next() ([]byte, error) {
	if s.done {
		return nil, io.EOF
	}
	var data []byte
	have := false
	for {
		line, err := s.readLine()
		if err == errEventTooLarge {
			return nil, err
		}
		if err != nil && (err != io.EOF || len(line) == 0) {
			switch err {
			case io.EOF, io.ErrUnexpectedEOF: // a clean end, or a chunked body cut off
				return nil, errTruncated
			}
			return nil, fmt.Errorf("reading the stream: %w", err)
		}
		raw := line
		line = bytes.TrimRight(line, "\r\n")
		switch {
		case len(line) == 0:
			s.keep(raw)
			if !have {
				continue // blank lines between events
			}
			if string(bytes.TrimSpace(data)) == "[DONE]" {
				s.done = true
				return nil, io.EOF
			}
			return data, nil
		case bytes.HasPrefix(line, []byte(":")):
			s.seen = true // a comment (keep-alive)
		case bytes.HasPrefix(line, []byte("event:")), bytes.HasPrefix(line, []byte("id:")), bytes.HasPrefix(line, []byte("retry:")):
			s.seen = true // fields that carry nothing we use
		case bytes.HasPrefix(line, []byte("data:")):
			s.seen = true
			v := bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))
			if have {
				data = append(data, '\n')
			}
			if len(data)+len(v) > maxEventBytes {
				return nil, errEventTooLarge
			}
			data = append(data, v...)
			have = true
		default:
			s.keep(raw) // not a line of server-sent events
		}
		if err == io.EOF {
			// The last event lacked its blank line; [DONE] still counts.
			if have && string(bytes.TrimSpace(data)) == "[DONE]" {
				s.done = true
				return nil, io.EOF
			}
			return nil, errTruncated
		}
	}
}
