package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/onnx/ortlib/orttest"
	"github.com/feather-eval/feather/harness/backends/onnx/testmodel"
	"github.com/feather-eval/feather/harness/backends/onnx/tokenizer"
)

// chainPrompt ends in the token after which the designed model greedily
// says two chosen tokens and then EOS.
const chainPrompt = "The end"

var chainTokens = []int{300, 301}

// designedModel builds a bigram model folder whose greedy continuation of
// chainPrompt is chainTokens then EOS; it returns the folder and the text
// of chainTokens.
func designedModel(t *testing.T) (dir, chainText string) {
	t.Helper()
	orttest.Require(t)
	plain, err := testmodel.Build(filepath.Join(t.TempDir(), "plain"), testmodel.Config{})
	require.NoError(t, err)
	tok, err := tokenizer.Load(plain.Dir)
	require.NoError(t, err)
	p := tok.Encode(chainPrompt, false)
	start := p[len(p)-1]
	bg, err := testmodel.BuildBigram(filepath.Join(t.TempDir(), "bigram"), testmodel.BigramConfig{
		Config: testmodel.Config{PositionIDs: true, MaxPositions: 64, Seed: 3},
		Next:   map[int]int{start: chainTokens[0], chainTokens[0]: chainTokens[1], chainTokens[1]: testmodel.EOSID},
	})
	require.NoError(t, err)
	return bg.Dir, tok.Decode(chainTokens, true)
}

func TestGenerateCommand(t *testing.T) {
	dir, chainText := designedModel(t)
	tok, err := tokenizer.Load(dir)
	require.NoError(t, err)
	n := len(tok.Encode(chainPrompt, true))

	var out, errb bytes.Buffer
	code := dispatch([]string{"generate", "--model", dir, "--max-new-tokens", "10", "The", "end"}, strings.NewReader(""), &out, &errb)
	require.Equal(t, 0, code, errb.String())
	assert.Equal(t, chainText+"\n", out.String())
	assert.Contains(t, errb.String(), fmt.Sprintf("feather generate: %d prompt tokens, 3 new tokens, stop eos, first token ", n))

	out.Reset()
	errb.Reset()
	code = dispatch([]string{"generate", "--model", dir, "--max-new-tokens", "1", "--json", "-"}, strings.NewReader(chainPrompt), &out, &errb)
	require.Equal(t, 0, code, errb.String())
	var res map[string]any
	require.NoError(t, json.Unmarshal(out.Bytes(), &res))
	assert.Equal(t, chainPrompt, res["prompt_sent"])
	assert.Equal(t, "length", res["stop_reason"])
	assert.Equal(t, float64(n), res["input_tokens"])
	assert.Equal(t, 1.0, res["output_tokens"])
	assert.Equal(t, map[string]any{"strategy": "greedy", "do_sample": false, "max_new_tokens": 1.0}, res["sampling_sent"])
}

func TestGenerateCommandErrors(t *testing.T) {
	dir, _ := designedModel(t)
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"no model", []string{"hello"}, 2, "feather generate: --model DIR|FILE.gguf is required\n"},
		{"no prompt", []string{"--model", dir}, 2, "feather generate: PROMPT is missing; give it as arguments, or - to read it from standard input\n"},
		{"negative cap", []string{"--model", dir, "--max-new-tokens", "-2", "hi"}, 2, "feather generate: --max-new-tokens is -2; use 0 (up to the context) or more\n"},
		{"chat without template", []string{"--model", dir, "--chat", "hi"}, 1,
			fmt.Sprintf("feather generate: model folder %s: chat is \"yes\" but %s: no chat_template (the model has no chat template; use raw prompts); set chat to \"no\" or \"auto\", or use a chat model's folder\n",
				dir, filepath.Join(dir, "tokenizer_config.json"))},
		{"missing folder", []string{"--model", dir + "-gone", "hi"}, 1,
			"feather generate: model folder " + dir + "-gone does not exist; download a Hugging Face ONNX export there (see the README's \"Running your own models\")\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := dispatch(append([]string{"generate"}, tt.args...), strings.NewReader(""), &out, &errb)
			assert.Equal(t, tt.code, code)
			assert.Equal(t, tt.stderr, errb.String())
			assert.Empty(t, out.String())
		})
	}
}
