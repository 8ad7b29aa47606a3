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

// chatModel is a folder with an alternation-checking ChatML-style template.
func chatModel(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	const cfg = `{"eos_token": {"__type": "AddedToken", "content": "<|im_end|>"}, "chat_template": ` +
		`"{% for m in messages %}{% if m.role == 'user' and not loop.first and messages[loop.index0 - 1].role == 'user' %}` +
		`{{ raise_exception('roles must alternate') }}{% endif %}<|im_start|>{{ m.role }}\n{{ m.content }}{{ eos_token }}\n` +
		`{% if m.tool_calls %}{{ m.tool_calls|tojson }}\n{% endif %}{% endfor %}` +
		`{% if tools %}{{ tools|tojson }}\n{% endif %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"}`
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tokenizer_config.json"), []byte(cfg), 0o644))
	return dir
}

func TestChatCommand(t *testing.T) {
	model := chatModel(t)
	tools := filepath.Join(t.TempDir(), "tools.json")
	require.NoError(t, os.WriteFile(tools, []byte(`[{"type": "function", "function": {"name": "f", "parameters": {"z": 1, "a": "é"}}}]`), 0o644))
	noTemplate := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(noTemplate, "tokenizer_config.json"), []byte(`{"bos_token": "<s>"}`), 0o644))

	tests := []struct {
		name    string
		args    []string
		stdin   string
		code    int
		stdout  string
		stderrs []string
	}{
		{"render", []string{"--model", model}, `[{"role": "user", "content": "Hi"}]`, 0,
			"<|im_start|>user\nHi<|im_end|>\n", nil},
		{"generation prompt", []string{"--model", model, "--generation-prompt"}, `[{"role": "user", "content": "Hi"}]`, 0,
			"<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n", nil},
		{"nested key order survives", []string{"--model", model},
			`[{"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "f", "arguments": {"z": 1, "a": [true, null]}}}]}]`, 0,
			"<|im_start|>assistant\n<|im_end|>\n" + `[{"function": {"name": "f", "arguments": {"z": 1, "a": [true, null]}}}]` + "\n", nil},
		{"tools file", []string{"--model", model, "--tools", tools}, `[{"role": "user", "content": "Hi"}]`, 0,
			"<|im_start|>user\nHi<|im_end|>\n" + `[{"type": "function", "function": {"name": "f", "parameters": {"z": 1, "a": "é"}}}]` + "\n", nil},
		{"missing model", nil, `[]`, 2, "", []string{"feather chat: --model DIR is required"}},
		{"stray argument", []string{"--model", model, "messages.json"}, `[]`, 2, "", []string{`unexpected argument "messages.json"; messages are read from stdin`}},
		{"bad JSON", []string{"--model", model}, "[\n{\"role\": \"user\",}\n]", 2, "",
			[]string{"feather chat: stdin:2:17: invalid JSON: invalid character '}' looking for beginning of object key string\n", "stdin must be a JSON list of messages"}},
		{"not a list", []string{"--model", model}, `{"role": "user"}`, 2, "", []string{"feather chat: stdin: want a list, got an object\n"}},
		{"item not an object", []string{"--model", model}, `[{"role": "user"}, "hi"]`, 2, "", []string{"feather chat: stdin: item 1 is a string, not an object\n"}},
		{"message without role", []string{"--model", model}, `[{"content": "x"}]`, 2, "", []string{`feather chat: stdin: message 0 has no "role" string`}},
		{"model without template", []string{"--model", noTemplate}, `[{"role": "user", "content": "x"}]`, 2, "",
			[]string{"feather chat: " + filepath.Join(noTemplate, "tokenizer_config.json") + ": no chat_template"}},
		{"template refuses the conversation", []string{"--model", model}, `[{"role": "user", "content": "a"}, {"role": "user", "content": "b"}]`, 2, "",
			[]string{"the template raised an exception: roles must alternate"}},
		{"bad tools file", []string{"--model", model, "--tools", filepath.Join(t.TempDir(), "absent.json")}, `[]`, 2, "", []string{"absent.json: no such file"}},
		{"unknown flag", []string{"--modle", model}, `[]`, 2, "", []string{"flag provided but not defined: -modle"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := dispatch(append([]string{"chat"}, tt.args...), strings.NewReader(tt.stdin), &out, &errb)
			assert.Equal(t, tt.code, code, "stderr: %s", errb.String())
			assert.Equal(t, tt.stdout, out.String())
			for _, s := range tt.stderrs {
				assert.Contains(t, errb.String(), s)
			}
			if tt.code == 0 {
				assert.Empty(t, errb.String())
			}
		})
	}
}

// The command on a real tokenizer folder prints what transformers renders.
func TestChatCommandQwen3(t *testing.T) {
	dir := testenv.NPMTokenizer(t, "qwen3")
	var out, errb bytes.Buffer
	code := dispatch([]string{"chat", "--model", dir, "--generation-prompt"},
		strings.NewReader(`[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]`), &out, &errb)
	require.Equal(t, 0, code, errb.String())
	assert.Equal(t, "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n", out.String())
}
