package openai

import (
	"io"
	"strings"
	"testing"

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
		{"an endless line", "data: x\n\ndata: " + strings.Repeat("a", maxEventBytes) + "\n\n", []string{"x"}, errEventTooLarge},
		{"an endless event", "data: x\n\n" + strings.Repeat("data: "+strings.Repeat("b", 1<<20)+"\n", 33) + "\n", []string{"x"}, errEventTooLarge},
		{"a long event under the cap", "data: " + strings.Repeat("c", 5000) + "\n\ndata: [DONE]\n\n", []string{strings.Repeat("c", 5000)}, io.EOF},
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

func TestMergeJSON(t *testing.T) {
	for _, tt := range []struct {
		name, body string
		extra      map[string]any
		want       string
	}{
		// go-openai's body never holds the extra fields: they are appended.
		{"appended in key order", `{"model":"m","stream":true}`, map[string]any{"top_k": 1, "provider": map[string]any{"order": []string{"a"}}},
			`{"model":"m","stream":true,"provider":{"order":["a"]},"top_k":1}`},
		{"empty object", ` {} `, map[string]any{"a": 1}, `{"a":1}`},
		{"nothing to add", `{"model":"m"}`, nil, `{"model":"m"}`},
		// A body that names a field anywhere is decoded: the field is replaced, not repeated.
		{"replaced", `{"model":"m","temperature":0.5}`, map[string]any{"temperature": 0.0, "top_k": 1}, `{"model":"m","temperature":0,"top_k":1}`},
		{"named deeper", `{"tools":[{"seed":{"type":"integer"}}]}`, map[string]any{"seed": 7}, `{"seed":7,"tools":[{"seed":{"type":"integer"}}]}`},
		// Names are matched and written as encoding/json writes them (<
		// as \u003c), so a field the body holds is never repeated.
		{"named as encoding/json escapes it", `{"a\u003cb":1}`, map[string]any{"a<b": 2}, `{"a\u003cb":2}`},
		{"appended as encoding/json escapes it", `{}`, map[string]any{"a<b": 2}, `{"a\u003cb":2}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := mergeJSON([]byte(tt.body), tt.extra)
			assert.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
		})
	}
	for _, body := range []string{`[1]`, `{"a":`, ``, `"x"`} {
		_, err := mergeJSON([]byte(body), map[string]any{"a": 1})
		assert.ErrorContains(t, err, "request body is not a JSON object", "%q", body)
	}
}
