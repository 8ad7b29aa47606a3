package safetensors

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"
	"strconv"
	"strings"
)

// corrupt ends the messages of headers no writer produces.
const corrupt = "; the file is corrupt or not a safetensors file"

// parseHeader reads the JSON header: __metadata__ and the tensors'
// entries, each checked on its own (checkLayout checks them together).
func (f *File) parseHeader(h []byte) error {
	if h[0] != '{' {
		return fmt.Errorf("the header does not start with '{' (it starts with %s)%s", quotePrefix(h), corrupt)
	}
	// One pass over the whole header first, for syntax errors placed
	// from its start.
	if err := json.Unmarshal(h, new(json.RawMessage)); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return fmt.Errorf("the header is not valid JSON (at header byte %d: %v)%s", se.Offset, se, corrupt)
		}
		return fmt.Errorf("the header is not valid JSON (%v)%s", err, corrupt)
	}
	dec := json.NewDecoder(bytes.NewReader(h))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil {
		return jsonError(err)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return jsonError(err)
		}
		key, _ := tok.(string) // object keys are strings
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return jsonError(err)
		}
		if key == "__metadata__" {
			if f.Metadata != nil {
				return fmt.Errorf("__metadata__ appears twice in the header%s", corrupt)
			}
			if err := f.parseMetadata(raw); err != nil {
				return err
			}
			continue
		}
		if f.byName[key] != nil {
			return fmt.Errorf("tensor %s appears twice in the header%s", key, corrupt)
		}
		t, err := parseTensor(key, raw)
		if err != nil {
			return err
		}
		t.File = f.Path
		f.byName[key] = t
		f.Tensors = append(f.Tensors, t)
	}
	if f.Metadata == nil {
		f.Metadata = map[string]string{}
	}
	return nil
}

// jsonError reports what the first pass let through, which it should
// not.
func jsonError(err error) error {
	return fmt.Errorf("the header is not valid JSON (%v)%s", err, corrupt)
}

func (f *File) parseMetadata(raw json.RawMessage) error {
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		f.Metadata = map[string]string{}
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return fmt.Errorf("__metadata__ must be an object of strings, not %s%s", kindOf(raw), corrupt)
	}
	f.Metadata = map[string]string{}
	for k, v := range m {
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("__metadata__ must map names to strings, but %s holds %s%s", k, kindOfValue(v), corrupt)
		}
		f.Metadata[k] = s
	}
	return nil
}

// entry is a tensor's header entry, each field left nil when absent.
type entry struct {
	DType       *string        `json:"dtype"`
	Shape       *[]json.Number `json:"shape"`
	DataOffsets *[]json.Number `json:"data_offsets"`
}

func parseTensor(name string, raw json.RawMessage) (*Tensor, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("tensor %s: %s%s", name, fmt.Sprintf(format, args...), corrupt)
	}
	if trimmed := bytes.TrimSpace(raw); len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, bad("its entry must be an object with dtype, shape and data_offsets, not %s", kindOf(raw))
	}
	var e entry
	if err := json.Unmarshal(raw, &e); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return nil, bad("%s must be %s, not a JSON %s", te.Field, fieldWant(te.Field), te.Value)
		}
		return nil, bad("its entry does not parse: %v", err)
	}
	switch {
	case e.DType == nil:
		return nil, bad("the entry has no dtype")
	case e.Shape == nil:
		return nil, bad("the entry has no shape")
	case e.DataOffsets == nil:
		return nil, bad("the entry has no data_offsets")
	}
	t := &Tensor{Name: name, DType: DType(*e.DType)}
	size := t.DType.Size()
	if size == 0 {
		return nil, fmt.Errorf("tensor %s: unknown dtype %q (the format's are %s)", name, *e.DType, knownDTypes())
	}
	elems := uint64(1)
	for i, n := range *e.Shape {
		d, err := strconv.ParseInt(n.String(), 10, 64)
		if err != nil || d < 0 {
			return nil, bad("dimension %d of its shape is %s, not a non-negative integer", i, n)
		}
		t.Shape = append(t.Shape, d)
		hi, lo := bits.Mul64(elems, uint64(d))
		if hi != 0 || lo > 1<<62 {
			return nil, bad("shape %v holds more than 2^62 values", shapeString(*e.Shape))
		}
		elems = lo
	}
	if len(*e.DataOffsets) != 2 {
		return nil, bad("data_offsets must be [begin, end], not %d numbers", len(*e.DataOffsets))
	}
	var off [2]int64
	for i, n := range *e.DataOffsets {
		v, err := strconv.ParseInt(n.String(), 10, 64)
		if err != nil || v < 0 {
			return nil, bad("data_offsets %s are not two non-negative integers", shapeString(*e.DataOffsets))
		}
		off[i] = v
	}
	if off[1] < off[0] {
		return nil, bad("data_offsets [%d, %d] end before they begin", off[0], off[1])
	}
	want := elems * uint64(size) // elems ≤ 2^62, size ≤ 8: may exceed int64, never uint64
	if got := uint64(off[1] - off[0]); got != want {
		return nil, fmt.Errorf("tensor %s: shape %v of %s takes %d bytes, but its data_offsets [%d, %d] span %d%s", name, t.Shape, t.DType, want, off[0], off[1], got, corrupt)
	}
	t.Offset, t.Length = off[0], off[1]-off[0]
	return t, nil
}

func fieldWant(field string) string {
	switch field {
	case "dtype":
		return "a string"
	case "shape":
		return "a list of non-negative integers"
	}
	return "a list of two non-negative integers"
}

func shapeString(ns []json.Number) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = n.String()
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// kindOf names a raw JSON value's kind.
func kindOf(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "a list"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

func kindOfValue(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case bool:
		return "a boolean"
	case float64:
		return "a number"
	}
	return "a value"
}

// quotePrefix quotes the first few bytes of b.
func quotePrefix(b []byte) string {
	if len(b) > 8 {
		return strconv.Quote(string(b[:8])) + "…"
	}
	return strconv.Quote(string(b))
}
