package openai

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestSSEReader(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		want    []string
		wantErr error
	}{
		{"plain", "data: {\"a\":1}\n\ndata: [DONE]\n\n", []string{`{"a":1}`}, io.EOF},
		{"CRLF and comments", ": OPENROUTER PROCESSING\r\n\r\ndata: x\r\n\r\n: ping\r\ndata: [DONE]\r\n\r\n", []string{"x"}, io.EOF},
		{"multi-line data and other fields", "event: message\nid: 7\ndata: a\ndata: b\n\ndata:[DONE]\n\n", []string{"a\nb"}, io.EOF},
		{"DONE without its blank line", "data: x\n\ndata: [DONE]", []string{"x"}, io.EOF},
		{"cut after an event", "data: x\n\n", []string{"x"}, errTruncated},
		{"cut inside an event", "data: x\n\ndata: {\"partial", []string{"x"}, errTruncated},
		{"empty body", "", nil, errTruncated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newSSEReader(strings.NewReader(tt.body))
			var got []string
			for {
				data, err := r.next()
				if err != nil {
					assert.Equal(t, tt.wantErr, err)
					break
				}
				got = append(got, string(data))
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 7, 4, 10, 0, 0, 0, time.UTC)
	tests := []struct {
		in     string
		want   time.Duration
		wantOK bool
	}{
		{"", 0, false},
		{"7", 7 * time.Second, true},
		{"1.5", 1500 * time.Millisecond, true},
		{"Sat, 04 Jul 2026 10:00:30 GMT", 30 * time.Second, true},
		{"Sat, 04 Jul 2026 09:59:00 GMT", 0, true}, // in the past: retry now
		{"soon", 0, false},
		{"-3", 0, false},
	}
	for _, tt := range tests {
		got, ok := parseRetryAfter(tt.in, now)
		assert.Equal(t, tt.wantOK, ok, tt.in)
		assert.Equal(t, tt.want, got, tt.in)
	}
}

func TestBackoff(t *testing.T) {
	one := func() float64 { return 1 }
	zero := func() float64 { return 0 }
	base, max := time.Second, 10*time.Second
	assert.Equal(t, time.Second, backoff(1, base, max, one))
	assert.Equal(t, 500*time.Millisecond, backoff(1, base, max, zero))
	assert.Equal(t, 4*time.Second, backoff(3, base, max, one))
	assert.Equal(t, 10*time.Second, backoff(5, base, max, one), "capped")
	assert.Equal(t, 5*time.Second, backoff(50, base, max, zero), "capped, no overflow")
}

func TestMergeJSON(t *testing.T) {
	got, err := mergeJSON([]byte(`{"model":"m","temperature":0.5}`), map[string]any{"temperature": 0.0, "top_k": 1})
	assert.NoError(t, err)
	assert.JSONEq(t, `{"model":"m","temperature":0,"top_k":1}`, string(got))
	_, err = mergeJSON([]byte(`[1]`), map[string]any{"a": 1})
	assert.ErrorContains(t, err, "request body is not a JSON object")
}
