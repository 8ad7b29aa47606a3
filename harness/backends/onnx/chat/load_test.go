package chat_test

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/onnx/chat"
	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/internal/testenv"
)

// folder writes files (relative path -> content) into a fresh directory.
func folder(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	return dir
}

var hello = []lm.Message{{Role: "user", Content: "hi"}}

func TestLoadSpecialTokens(t *testing.T) {
	tests := []struct {
		name, config, want string
	}{
		{"strings", `{"chat_template": "{{ bos_token }}{{ messages[0].content }}{{ eos_token }}", "bos_token": "<s>", "eos_token": "</s>"}`, "<s>hi</s>"},
		{"AddedToken objects", `{"chat_template": "{{ bos_token }}{{ messages[0].content }}{{ eos_token }}",
			"bos_token": {"__type": "AddedToken", "content": "<s>", "lstrip": false, "normalized": true, "rstrip": false, "single_word": false},
			"eos_token": {"content": "</s>", "special": true}}`, "<s>hi</s>"},
		{"null tokens are undefined", `{"chat_template": "{{ bos_token is defined }}{{ pad_token }}", "bos_token": null, "pad_token": "<pad>"}`, "False<pad>"},
		{"every special token", `{"chat_template": "{{ unk_token }}{{ sep_token }}{{ pad_token }}{{ cls_token }}{{ mask_token }}",
			"unk_token": "U", "sep_token": "S", "pad_token": "P", "cls_token": "C", "mask_token": "M"}`, "USPCM"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tpl, err := chat.Load(folder(t, map[string]string{"tokenizer_config.json": tt.config}))
			require.NoError(t, err)
			out, err := tpl.Render(hello, chat.Options{})
			require.NoError(t, err)
			assert.Equal(t, tt.want, out)
		})
	}
}

func TestLoadNamedTemplates(t *testing.T) {
	dir := folder(t, map[string]string{"tokenizer_config.json": `{"chat_template": [
		{"name": "default", "template": "D"},
		{"name": "tool_use", "template": "T{{ tools|length }}"},
		{"name": "rag", "template": "R"}]}`})
	tpl, err := chat.Load(dir)
	require.NoError(t, err)
	assert.Equal(t, []string{"default", "rag", "tool_use"}, tpl.Names())
	assert.Equal(t, "D", tpl.Source())

	tests := []struct {
		name string
		opt  chat.Options
		want string
	}{
		{"default without tools", chat.Options{}, "D"},
		{"tool_use with tools", chat.Options{Tools: []map[string]any{{"type": "function"}}}, "T1"},
		{"tool_use with an empty, non-nil tool list (tools is not None)", chat.Options{Tools: []map[string]any{}}, "T0"},
		{"by name", chat.Options{Name: "rag"}, "R"},
		{"a name wins over tools", chat.Options{Name: "default", Tools: []map[string]any{{}}}, "D"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := tpl.Render(hello, tt.opt)
			require.NoError(t, err)
			assert.Equal(t, tt.want, out)
		})
	}

	_, err = tpl.Render(hello, chat.Options{Name: "chatml"})
	require.Error(t, err)
	assert.Equal(t, dir+`: no chat template named "chatml"; the model has default, rag, tool_use`, err.Error())
}

func TestLoadNamedTemplatesWithoutDefault(t *testing.T) {
	dir := folder(t, map[string]string{"tokenizer_config.json": `{"chat_template": [{"name": "tool_use", "template": "T"}]}`})
	tpl, err := chat.Load(dir)
	require.NoError(t, err)
	assert.Equal(t, "", tpl.Source())

	_, err = tpl.Render(hello, chat.Options{})
	require.Error(t, err)
	assert.Equal(t, dir+`: the model has several chat templates and none is named "default"; set Options.Name to one of tool_use`, err.Error())

	out, err := tpl.Render(hello, chat.Options{Tools: []map[string]any{}})
	require.NoError(t, err)
	assert.Equal(t, "T", out)
}

func TestLoadTemplateFiles(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		opt   chat.Options
		want  string
	}{
		{"chat_template.jinja clobbers the config", map[string]string{
			"tokenizer_config.json": `{"chat_template": "config", "eos_token": "</s>"}`,
			"chat_template.jinja":   "jinja{{ eos_token }}\n",
		}, chat.Options{}, "jinja</s>"},
		{"chat_template.jinja without a config", map[string]string{
			"chat_template.jinja": "only {{ messages[0].content }}",
		}, chat.Options{}, "only hi"},
		{"chat_template.json", map[string]string{
			"tokenizer_config.json": `{"eos_token": "</s>"}`,
			"chat_template.json":    `{"chat_template": "json{{ eos_token }}"}`,
		}, chat.Options{}, "json</s>"},
		{"additional_chat_templates become named", map[string]string{
			"tokenizer_config.json":                    `{"chat_template": "main"}`,
			"additional_chat_templates/tool_use.jinja": "tools",
		}, chat.Options{Tools: []map[string]any{}}, "tools"},
		{"the main template is then the default", map[string]string{
			"tokenizer_config.json":                    `{"chat_template": "main"}`,
			"additional_chat_templates/tool_use.jinja": "tools",
		}, chat.Options{}, "main"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tpl, err := chat.Load(folder(t, tt.files))
			require.NoError(t, err)
			out, err := tpl.Render(hello, tt.opt)
			require.NoError(t, err)
			assert.Equal(t, tt.want, out)
		})
	}
}

func TestLoadWithoutTemplate(t *testing.T) {
	tests := []struct{ name, config string }{
		{"no field", `{"bos_token": "<s>"}`},
		{"null", `{"chat_template": null}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := folder(t, map[string]string{"tokenizer_config.json": tt.config})
			_, err := chat.Load(dir)
			require.ErrorIs(t, err, chat.ErrNoTemplate)
			assert.Contains(t, err.Error(), filepath.Join(dir, "tokenizer_config.json")+": no chat_template")
		})
	}

	_, err := chat.Load(t.TempDir())
	require.ErrorIs(t, err, fs.ErrNotExist)
	assert.NotErrorIs(t, err, chat.ErrNoTemplate)
}

func TestLoadBadInput(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  string // after the folder path
	}{
		{"malformed config", map[string]string{"tokenizer_config.json": "{\n  \"chat_template\": \"x\",\n  oops\n}"},
			"/tokenizer_config.json:3:3: invalid JSON: invalid character 'o' looking for beginning of object key string"},
		{"token of the wrong type", map[string]string{"tokenizer_config.json": `{"chat_template": "x", "bos_token": 1}`},
			`/tokenizer_config.json: bos_token: must be a string or an object with a "content" string`},
		{"template of the wrong type", map[string]string{"tokenizer_config.json": `{"chat_template": 7}`},
			`/tokenizer_config.json: chat_template: must be a string or a list of {"name": ..., "template": ...}`},
		{"named template without a name", map[string]string{"tokenizer_config.json": `{"chat_template": [{"template": "x"}]}`},
			`/tokenizer_config.json: chat_template: item 0 needs both "name" and "template" strings`},
		{"duplicate names", map[string]string{"tokenizer_config.json": `{"chat_template": [{"name": "a", "template": "x"}, {"name": "a", "template": "y"}]}`},
			`/tokenizer_config.json: chat_template: item 1: the name "a" is used twice`},
		{"chat_template.json without the field", map[string]string{"tokenizer_config.json": `{}`, "chat_template.json": `{"template": "x"}`},
			`/chat_template.json: no "chat_template" field; the file should be {"chat_template": "..."}`},
		{"syntax error in the config's template", map[string]string{"tokenizer_config.json": `{"chat_template": "ok\n{{ foo( }}"}`},
			"/tokenizer_config.json: template syntax error: expected either a number, string, keyword or identifier. (Line: 2 Col: 9"},
		{"syntax error in a named template", map[string]string{"tokenizer_config.json": `{"chat_template": [{"name": "default", "template": "{% for %}"}]}`},
			`/tokenizer_config.json (template "default"): template syntax error: Unable to parse controlStructure "for"`},
		{"syntax error in chat_template.jinja", map[string]string{"chat_template.jinja": "a\nb\n{{ foo( }}"},
			"/chat_template.jinja: template syntax error: expected either a number, string, keyword or identifier. (Line: 3 Col: 9"},
		{"syntax error in an additional template", map[string]string{"tokenizer_config.json": `{"chat_template": "x"}`, "additional_chat_templates/rag.jinja": "{{ ( }}"},
			"/additional_chat_templates/rag.jinja: template syntax error:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := folder(t, tt.files)
			_, err := chat.Load(dir)
			require.Error(t, err)
			assert.Contains(t, err.Error(), dir+tt.want)
		})
	}
}

func TestLoadRealFolders(t *testing.T) {
	t.Run("SmolLM-135M base has no template", func(t *testing.T) {
		_, err := chat.Load(testenv.Tokenizer("smollm-135m"))
		assert.ErrorIs(t, err, chat.ErrNoTemplate)
	})
	t.Run("llama2 package has a null template", func(t *testing.T) {
		_, err := chat.Load(testenv.NPMTokenizer(t, "llama2"))
		assert.ErrorIs(t, err, chat.ErrNoTemplate)
	})
	for _, name := range []string{"qwen3", "llama3", "gemma3"} {
		t.Run(name, func(t *testing.T) {
			dir := testenv.NPMTokenizer(t, name)
			tpl, err := chat.Load(dir)
			require.NoError(t, err)
			data, err := os.ReadFile(filepath.Join(dir, "tokenizer_config.json"))
			require.NoError(t, err)
			var cfg struct {
				ChatTemplate string `json:"chat_template"`
			}
			require.NoError(t, json.Unmarshal(data, &cfg))
			assert.Equal(t, cfg.ChatTemplate, tpl.Source())
			assert.Nil(t, tpl.Names())
		})
	}
}

func TestSingleTemplateRejectsName(t *testing.T) {
	tpl, err := chat.New("x", "", "")
	require.NoError(t, err)
	_, err = tpl.Render(hello, chat.Options{Name: "tool_use"})
	require.Error(t, err)
	assert.Equal(t, `chat template: Options.Name "tool_use" asks for a named template, but this model has a single one; leave Name empty`, err.Error())
	assert.False(t, errors.Is(err, chat.ErrNoTemplate))
}
