package jsonpos

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSyntaxErrorPointsAtTheByte(t *testing.T) {
	for _, tc := range []struct{ data, want string }{
		{"{\n  \"a\": 1,,\n}", `f.json:2:10: invalid JSON: invalid character ',' looking for beginning of object key string`},
		{"{\n  \"a\": 1", `f.json:2:9: invalid JSON: unexpected end of input (a missing closing brace or bracket?)`},
		{`{"a": tru}`, `f.json:1:10: invalid JSON: invalid character '}' in literal true (expecting 'e')`},
	} {
		err := json.Unmarshal([]byte(tc.data), new(any))
		require.Error(t, err)
		assert.EqualError(t, SyntaxError("f.json", []byte(tc.data), err), tc.want)
	}
	assert.EqualError(t, SyntaxError("f.json", nil, errors.New("boom")), "f.json: invalid JSON: boom")

	// A json.Decoder reading a cut-off stream reports io.ErrUnexpectedEOF.
	data := []byte(`{"a": [1, 2`)
	err := json.NewDecoder(bytes.NewReader(data)).Decode(new(any))
	require.ErrorIs(t, err, io.ErrUnexpectedEOF)
	assert.EqualError(t, SyntaxError("f.json", data, err), "f.json:1:12: invalid JSON: unexpected end of input (a missing closing brace or bracket?)")
}

func TestMembersKeepOrderRepeatsAndLines(t *testing.T) {
	data := []byte("{\n\"b\": 1,\n\"a\": {\"x\": [1]},\n\"b\": \"again\"\n}")
	ms, err := Members("f.json", data)
	require.NoError(t, err)
	require.Len(t, ms, 3)
	assert.Equal(t, Member{Key: "b", Value: json.RawMessage("1"), Line: 2}, ms[0])
	assert.Equal(t, Member{Key: "a", Value: json.RawMessage(`{"x": [1]}`), Line: 3}, ms[1])
	assert.Equal(t, Member{Key: "b", Value: json.RawMessage(`"again"`), Line: 4}, ms[2])

	_, err = Members("f.json", []byte(`[1, 2]`))
	assert.ErrorIs(t, err, ErrNotObject)
	_, err = Members("f.json", []byte(`{"a": }`))
	assert.EqualError(t, err, "f.json:1:7: invalid JSON: invalid character '}' looking for beginning of value")
}

func TestKindAndPosition(t *testing.T) {
	for raw, want := range map[string]string{`"s"`: "a string", `{}`: "an object", `[]`: "a list", `true`: "a boolean", `null`: "null", `-1.5`: "a number", ` `: "nothing"} {
		assert.Equal(t, want, Kind(json.RawMessage(raw)), raw)
	}
	line, col := Position([]byte("ab\ncd"), 4)
	assert.Equal(t, [2]int{2, 2}, [2]int{line, col})
	line, col = Position([]byte("ab"), 99)
	assert.Equal(t, [2]int{1, 3}, [2]int{line, col}, "offsets past the end clamp")
}

func TestValueKindAgreesWithKind(t *testing.T) {
	for _, raw := range []string{`"s"`, `{}`, `{"a": 1}`, `[]`, `[1]`, `true`, `false`, `null`, `-1.5`, `3`} {
		var plain, numbered any
		require.NoError(t, json.Unmarshal([]byte(raw), &plain))
		dec := json.NewDecoder(bytes.NewReader([]byte(raw)))
		dec.UseNumber()
		require.NoError(t, dec.Decode(&numbered))
		assert.Equal(t, Kind(json.RawMessage(raw)), ValueKind(plain), raw)
		assert.Equal(t, Kind(json.RawMessage(raw)), ValueKind(numbered), "%s with UseNumber", raw)
	}
}

func TestDecoderKind(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		into any
		want string
	}{
		{`"s"`, new(int), "a string"},
		{`1.5`, new(string), "a number"},
		{`1.5`, new(int), "a number"},
		{`[1]`, new(string), "a list"},
		{`{}`, new(string), "an object"},
		{`true`, new(string), "a boolean"},
	} {
		var te *json.UnmarshalTypeError
		require.ErrorAs(t, json.Unmarshal([]byte(tc.raw), tc.into), &te, tc.raw)
		assert.Equal(t, tc.want, DecoderKind(te.Value), "%s (the decoder says %q)", tc.raw, te.Value)
		assert.Equal(t, Kind(json.RawMessage(tc.raw)), DecoderKind(te.Value), "%s: the same words as Kind", tc.raw)
	}
}

func TestRepeat(t *testing.T) {
	for _, tc := range []struct {
		name     string
		keys     []string
		i, first int
	}{
		{"empty", nil, -1, -1},
		{"unique", []string{"a", "b", "c"}, -1, -1},
		{"adjacent", []string{"a", "a"}, 1, 0},
		{"apart", []string{"a", "b", "c", "b"}, 3, 1},
		{"the first repeat wins", []string{"a", "b", "b", "a"}, 2, 1},
		{"three times", []string{"x", "x", "x"}, 1, 0},
		{"keys are case sensitive", []string{"a", "A"}, -1, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ms := make([]Member, len(tc.keys))
			for i, k := range tc.keys {
				ms[i] = Member{Key: k, Line: i + 1}
			}
			i, first := Repeat(ms)
			assert.Equal(t, [2]int{tc.i, tc.first}, [2]int{i, first})
		})
	}
}
