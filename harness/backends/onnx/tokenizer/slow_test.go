package tokenizer_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/onnx/tokenizer"
	"github.com/feather-eval/feather/internal/testenv"
)

// TestSlowFilesMatchTokenizerJSON loads SmolLM-135M from vocab.json +
// merges.txt alone and compares it with its tokenizer.json on the corpus.
//
// The slow pair carries no pre-tokenizer description, so transformers
// builds plain GPT-2 byte-level BPE from it, without tokenizer.json's
// Digits split. The two agree on every string without a number; with
// numbers they part only where Digits changes the pieces: Unicode digits
// outside ASCII, and digits after two or more spaces.
func TestSlowFilesMatchTokenizerJSON(t *testing.T) {
	src := testenv.Tokenizer("smollm-135m")
	dir := t.TempDir()
	for _, f := range []string{"vocab.json", "merges.txt", "tokenizer_config.json", "special_tokens_map.json", "added_tokens.json", "config.json"} {
		data, err := os.ReadFile(filepath.Join(src, f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), data, 0o644))
	}
	slow, err := tokenizer.Load(dir)
	require.NoError(t, err)
	fast := load(t, "smollm-135m", src)

	assert.Equal(t, fast.VocabSize(), slow.VocabSize())
	for _, get := range []func(*tokenizer.Tokenizer) (tokenizer.Special, bool){
		(*tokenizer.Tokenizer).BOS, (*tokenizer.Tokenizer).EOS, (*tokenizer.Tokenizer).PAD,
	} {
		a, okA := get(fast)
		b, okB := get(slow)
		assert.Equal(t, okA, okB)
		assert.Equal(t, a, b)
	}
	assert.Equal(t, fast.AddsBOS(), slow.AddsBOS())

	var differ []string
	for i, s := range readCorpus(t) {
		for _, special := range []bool{true, false} {
			a, b := fast.Encode(s, special), slow.Encode(s, special)
			if slices.Equal(a, b) {
				assert.Equal(t, fast.Decode(a, false), slow.Decode(b, false), "#%d %q", i, s)
				continue
			}
			if special {
				differ = append(differ, s)
			}
			assert.True(t, strings.IndexFunc(s, unicode.IsNumber) >= 0,
				"#%d %q has no number, yet the slow files give %v and tokenizer.json %v", i, s, b, a)
		}
	}
	t.Logf("slow files and tokenizer.json differ on %d strings (all with numbers): %q", len(differ), differ)
	assert.Contains(t, differ, "العدد ١٢٣")
	assert.Len(t, differ, 2)
}

// TestSlowFilesWithConfig builds from the slow pair what transformers
// builds: added_tokens.json's tokens join (special when named), and
// add_bos_token puts BOS in front.
func TestSlowFilesWithConfig(t *testing.T) {
	tok, err := tokenizer.Load(folder(t, map[string]string{
		"vocab.json":            `{"a": 0, "b": 1, "ab": 2, "Ġ": 3, "Ġa": 4}`,
		"merges.txt":            "#version: 0.2\na b\nĠ a\n",
		"added_tokens.json":     `{"<x>": 5, "<y>": 6}`,
		"tokenizer_config.json": `{"bos_token": "<x>", "add_bos_token": true}`,
	}))
	require.NoError(t, err)
	assert.Equal(t, []int{5, 2, 4}, tok.Encode("ab a", true))
	assert.Equal(t, []int{0, 5, 1, 6}, tok.Encode("a<x>b<y>", false))
	assert.True(t, tok.AddsBOS())
	assert.True(t, tok.IsSpecial(5))
	assert.False(t, tok.IsSpecial(6))
	assert.Equal(t, "ab<y>", tok.Decode([]int{0, 5, 1, 6}, true))
	assert.Equal(t, 7, tok.VocabSize())
}
