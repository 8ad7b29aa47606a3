package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/feather-eval/feather/harness/backends/llamacpp"
	"github.com/feather-eval/feather/harness/backends/onnx/tokenizer"
	"github.com/feather-eval/feather/internal/jsonpos"
)

func init() {
	register("tokenize", "print the token ids of a JSON list of strings on stdin", runTokenize)
}

// runTokenize encodes each string on stdin with a model's tokenizer, so
// ids can be compared with transformers' output line for line.
func runTokenize(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("tokenize", flag.ContinueOnError)
	fs.SetOutput(stderr)
	model := fs.String("model", "", "model or tokenizer `folder` (tokenizer.json, or vocab.json + merges.txt), or a .gguf file, tokenized by llama.cpp")
	special := fs.Bool("special", true, "add the model's special tokens, as add_special_tokens=True does (BOS for many models)")
	setUsage(fs, "tokenize", "--model DIR|FILE.gguf [--special=false] < strings.json",
		"Reads a JSON list of strings and prints a JSON list of their token id lists, on one line.")
	if err := fs.Parse(args); err != nil {
		return parseFailed(err)
	}
	fail := failer(stderr, "tokenize")
	if fs.NArg() > 0 {
		return fail(2, "unexpected argument %q; strings are read from stdin", fs.Arg(0))
	}
	if *model == "" {
		return fail(2, "--model DIR|FILE.gguf is required (a folder with tokenizer.json, or vocab.json + merges.txt, or a GGUF file)")
	}
	data, err := io.ReadAll(stdin)
	if err != nil {
		return fail(2, "reading stdin: %v", err)
	}
	texts, err := decodeStringList(data)
	if err != nil {
		return fail(2, "%v\nstdin must be a JSON list of strings, e.g. [\"Hello\", \" world\"]", err)
	}
	encode, done, err := openTokenizer(*model)
	if err != nil {
		return fail(2, "%v", err)
	}
	defer done()
	out := make([][]int, len(texts))
	for i, s := range texts {
		if out[i], err = encode(s, *special); err != nil {
			return fail(1, "string %d: %v", i, err)
		}
	}
	line, err := json.Marshal(out)
	if err != nil {
		return fail(2, "%v", err)
	}
	if _, err := fmt.Fprintf(stdout, "%s\n", line); err != nil {
		return fail(2, "writing output: %v", err)
	}
	return 0
}

// openTokenizer returns the encoder of a tokenizer folder, or of a GGUF
// file's vocabulary through llama.cpp, and what releases it.
func openTokenizer(path string) (func(string, bool) ([]int, error), func(), error) {
	if isGGUF(path) {
		m, err := llamacpp.Open(context.Background(), path, llamacpp.Options{})
		if err != nil {
			return nil, nil, err
		}
		return m.Tokenize, func() { m.Close() }, nil
	}
	tok, err := tokenizer.Load(path)
	if err != nil {
		return nil, nil, err
	}
	return func(s string, special bool) ([]int, error) { return tok.Encode(s, special), nil }, func() {}, nil
}

// decodeStringList reads a JSON list of strings, naming the line and column
// or the item that is wrong.
func decodeStringList(data []byte) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var items []json.RawMessage
	if err := dec.Decode(&items); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			return nil, jsonpos.SyntaxError("stdin", data, err)
		case errors.As(err, &typ):
			return nil, fmt.Errorf("stdin: want a list, got %s", jsonpos.Kind(data))
		case errors.Is(err, io.EOF):
			return nil, errors.New("stdin: empty")
		}
		return nil, fmt.Errorf("stdin: %v", err)
	}
	if items == nil {
		return nil, errors.New("stdin: want a list, got null")
	}
	if dec.More() {
		line, col := jsonpos.Position(data, dec.InputOffset())
		return nil, fmt.Errorf("stdin:%d:%d: unexpected data after the list", line, col)
	}
	texts := make([]string, len(items))
	for i, raw := range items {
		if err := json.Unmarshal(raw, &texts[i]); err != nil || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
			return nil, fmt.Errorf("stdin: item %d is %s, not a string", i, raw)
		}
	}
	return texts, nil
}
