package featherweight_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/feather-eval/feather/harness/backends/onnx/chat"
	"github.com/feather-eval/feather/harness/suites/featherweight"
	"github.com/feather-eval/feather/internal/testenv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestChatPromptGolden renders both styles of item geo01 the way a chat
// model's backend does — the suite's user message through the model's chat
// template with the generation prompt — and compares the result byte for
// byte with golden files made by Python's jinja2 under transformers'
// settings (trim_blocks, lstrip_blocks). The user message is the same text
// a base model gets: "only the surrounding tokens differ".
func TestChatPromptGolden(t *testing.T) {
	var file struct {
		Templates     map[string]string `json:"templates"`
		SpecialTokens map[string]struct {
			BOS *string `json:"bos_token"`
			EOS *string `json:"eos_token"`
		} `json:"special_tokens"`
	}
	b, err := os.ReadFile(testenv.ChatTemplates())
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &file))

	ds, err := featherweight.Load(filepath.Join(testenv.RepoRoot(), "testdata", "featherweight", "featherweight.jsonl"))
	require.NoError(t, err)
	geo01 := ds.Items[0]
	require.Equal(t, "geo01", geo01.ID)

	for _, name := range []string{"smollm2", "tinyllama"} {
		special := file.SpecialTokens[name]
		tpl, err := chat.New(file.Templates[name], deref(special.BOS), deref(special.EOS))
		require.NoError(t, err, name)
		for _, st := range featherweight.Styles {
			t.Run(name+"/"+string(st), func(t *testing.T) {
				req := featherweight.Request(st, geo01, true)
				require.Empty(t, req.Prompt)
				got, err := tpl.Render(req.Messages, chat.Options{AddGenerationPrompt: true})
				require.NoError(t, err)
				want, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "testdata", "featherweight", "golden", "geo01-"+string(st)+"-"+name+".txt"))
				require.NoError(t, err)
				assert.Equal(t, string(want), got)
			})
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
