package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/internal/testenv"
)

// tokenizeTinyJSON is a byte-level tokenizer with a BOS template: "a"=0,
// "b"=1, "ab"=2, "Ġ"=3, "Ġa"=4, and <s>=5 added before every sequence.
const tokenizeTinyJSON = `{"version":"1.0","added_tokens":[{"id":5,"content":"<s>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true}],
"normalizer":null,"pre_tokenizer":{"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,"use_regex":true},
"post_processor":{"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"<s>","type_id":0}},{"Sequence":{"id":"A","type_id":0}}],"pair":[],"special_tokens":{"<s>":{"id":"<s>","ids":[5],"tokens":["<s>"]}}},
"decoder":{"type":"ByteLevel"},
"model":{"type":"BPE","vocab":{"a":0,"b":1,"ab":2,"Ġ":3,"Ġa":4,"<s>":5},"merges":["a b","Ġ a"]}}`

func tokenizeTinyFolder(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tokenizer.json"), []byte(tokenizeTinyJSON), 0o644))
	return dir
}

func runTokenizeCmd(args []string, stdin string) (int, string, string) {
	var out, errb bytes.Buffer
	code := dispatch(append([]string{"tokenize"}, args...), strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestTokenize(t *testing.T) {
	dir := tokenizeTinyFolder(t)
	tests := []struct {
		name  string
		args  []string
		stdin string
		want  string
	}{
		{"special tokens by default", []string{"--model", dir}, `["ab a", "", "<s>b"]`, "[[5,2,4],[5],[5,5,1]]\n"},
		{"--special=false", []string{"--model", dir, "--special=false"}, `["ab a", "", "<s>b"]`, "[[2,4],[],[5,1]]\n"},
		{"empty list", []string{"--model", dir}, `[]`, "[]\n"},
		{"whitespace around the list", []string{"--model", dir}, "\n [\"a\"]\n\n", "[[5,0]]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runTokenizeCmd(tt.args, tt.stdin)
			assert.Equal(t, 0, code, errOut)
			assert.Equal(t, tt.want, out)
			assert.Empty(t, errOut)
		})
	}
}

func TestTokenizeGPT2(t *testing.T) {
	dir := testenv.Tokenizer("gpt2")
	code, out, errOut := runTokenizeCmd([]string{"--model", dir}, `["Hello world", " <|endoftext|>", "\n\nAnswer:"]`)
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "[[15496,995],[220,50256],[198,198,33706,25]]\n", out)
}

func TestTokenizeErrors(t *testing.T) {
	dir := tokenizeTinyFolder(t)
	tests := []struct {
		name  string
		args  []string
		stdin string
		want  string
	}{
		{"no model", nil, `["a"]`, "--model DIR|FILE.gguf is required"},
		{"extra argument", []string{"--model", dir, "file.json"}, `["a"]`, `unexpected argument "file.json"`},
		{"unknown flag", []string{"--modle", dir}, `["a"]`, "flag provided but not defined: -modle"},
		{"bad JSON", []string{"--model", dir}, "[\"a\",\n  \"b\" \"c\"]", "stdin:2:7: invalid JSON"},
		{"not a list", []string{"--model", dir}, `{"a": 1}`, "stdin: want a list, got an object"},
		{"null", []string{"--model", dir}, `null`, "stdin: want a list, got null"},
		{"empty stdin", []string{"--model", dir}, ``, "stdin: empty"},
		{"not a string", []string{"--model", dir}, `["a", 3]`, "stdin: item 1 is 3, not a string"},
		{"null item", []string{"--model", dir}, `["a", null]`, "stdin: item 1 is null, not a string"},
		{"trailing data", []string{"--model", dir}, `["a"] ["b"]`, "stdin:1:7: unexpected data after the list"},
		{"missing folder", []string{"--model", filepath.Join(dir, "nope")}, `["a"]`, "nope"},
		{"folder without a tokenizer", []string{"--model", t.TempDir()}, `["a"]`, "no tokenizer.json, and no vocab.json + merges.txt pair"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runTokenizeCmd(tt.args, tt.stdin)
			assert.Equal(t, 2, code)
			assert.Empty(t, out)
			assert.Contains(t, errOut, tt.want)
		})
	}
}

func TestTokenizeHelp(t *testing.T) {
	code, _, errOut := runTokenizeCmd([]string{"-h"}, "")
	assert.Equal(t, 0, code)
	assert.Contains(t, errOut, "usage: feather tokenize --model DIR|FILE.gguf [--special=false] < strings.json")
}
