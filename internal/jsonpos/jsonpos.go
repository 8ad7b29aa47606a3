// Package jsonpos reads JSON files that people write by hand, so errors can
// say where: the line and column of a syntax error, the line of a key, and
// the kind of a value that has the wrong type. encoding/json reports byte
// offsets and silently keeps the last of two duplicate keys; the members
// reader here keeps every key with its line so callers can reject repeats.
package jsonpos

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Position converts a byte offset into a 1-based line and column.
func Position(data []byte, off int64) (line, col int) {
	off = max(0, min(off, int64(len(data))))
	line, col = 1, 1
	for _, b := range data[:off] {
		if b == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}

// SyntaxError reports a decoding error of data (named name) as
// "name:line:col: invalid JSON: …", pointing at the offending byte. Errors
// without an offset keep their text.
func SyntaxError(name string, data []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	off := int64(-1)
	switch {
	case errors.As(err, &se):
		off = se.Offset
		if off > 0 && !strings.Contains(se.Error(), "unexpected end") {
			off-- // Offset counts the offending byte; report its own column
		}
	case errors.As(err, &te):
		off = te.Offset
	case errors.Is(err, io.ErrUnexpectedEOF):
		off = int64(len(data)) // a json.Decoder on a cut-off stream
	}
	if off < 0 {
		return fmt.Errorf("%s: invalid JSON: %v", name, err)
	}
	line, col := Position(data, off)
	msg := strings.TrimPrefix(err.Error(), "json: ")
	if strings.Contains(msg, "unexpected end of JSON input") || errors.Is(err, io.ErrUnexpectedEOF) {
		msg = "unexpected end of input (a missing closing brace or bracket?)"
	}
	return fmt.Errorf("%s:%d:%d: invalid JSON: %s", name, line, col, msg)
}

// ErrNotObject is returned by Members when the document is not an object.
var ErrNotObject = errors.New("not a JSON object")

// Member is one key of an object with its value as written.
type Member struct {
	Key   string
	Value json.RawMessage
	// Line is the 1-based line the key is on.
	Line int
}

// Members reads a top-level object keeping key order and every repeated
// key. Syntax errors come from SyntaxError; a document that is valid JSON
// but not an object returns ErrNotObject, for the caller to word.
func Members(name string, data []byte) ([]Member, error) {
	if err := json.Unmarshal(data, new(any)); err != nil {
		return nil, SyntaxError(name, data, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, _ := dec.Token(); tok != json.Delim('{') {
		return nil, ErrNotObject
	}
	var out []Member
	for dec.More() {
		off := dec.InputOffset()
		for off < int64(len(data)) && strings.IndexByte(" \t\r\n,", data[off]) >= 0 {
			off++ // InputOffset stops before the separator; point at the key
		}
		tok, err := dec.Token()
		if err != nil {
			return nil, SyntaxError(name, data, err)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, SyntaxError(name, data, err)
		}
		line, _ := Position(data, off)
		out = append(out, Member{Key: tok.(string), Value: v, Line: line})
	}
	return out, nil
}

// Kind names the JSON type of a raw value for messages: "a string",
// "an object", "a list", "a boolean", "null", "a number" or "nothing".
func Kind(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "a list"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// ValueKind is Kind for a value already decoded into any (objects as
// map[string]any, lists as []any, numbers as json.Number or float64).
func ValueKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case json.Number, float64:
		return "a number"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case []any:
		return "a list"
	}
	return "an object"
}

// DecoderKind words encoding/json's name for a value it could not store
// (json.UnmarshalTypeError's Value: "string", "number", "number 1.5",
// "array", "object", "bool") the way Kind does: "a string", "a number",
// "a list", "an object", "a boolean".
func DecoderKind(value string) string {
	switch {
	case value == "array":
		return "a list"
	case value == "object":
		return "an object"
	case value == "bool":
		return "a boolean"
	case strings.HasPrefix(value, "number"):
		return "a number"
	}
	return "a " + value
}

// Repeat finds the first member whose key an earlier member already has:
// it returns that member's index and the index of the key's first
// occurrence, or -1, -1 when every key is unique. encoding/json would keep
// only the last of the two values, so callers reject the repeat, saying
// where it is (ms[i].Line) and where the key first was (ms[first].Line).
func Repeat(ms []Member) (i, first int) {
	seen := make(map[string]int, len(ms))
	for i, m := range ms {
		if first, dup := seen[m.Key]; dup {
			return i, first
		}
		seen[m.Key] = i
	}
	return -1, -1
}
