package llamacpp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/text/unicode/norm"

	"github.com/feather-eval/feather/harness/backends/llamacpp"
	"github.com/feather-eval/feather/harness/backends/llamacpp/gguf"
	"github.com/feather-eval/feather/harness/backends/onnx/tokenizer"
	"github.com/feather-eval/feather/internal/testenv"
)

// TestTokenizationAgrees tokenizes the tokenizer golden corpus with
// llama.cpp, through the backend, and with feather's own tokenizer
// (which matches Hugging Face's on it: the tokenizer package's golden
// tests), on the same vocabulary written to GGUF, with and without
// special tokens. Where they differ, llama.cpp departs from Hugging Face
// in one of two ways, which the test confirms for each string:
//
//   - nfc: Qwen3's tokenizer normalizes text to NFC first; llama.cpp
//     applies no normalizer. On the string in NFC, llama.cpp agrees.
//   - eos text: llama.cpp makes any vocabulary entry spelled "</s>" a
//     control token (it takes it for an end-of-generation token by its
//     text), so text containing "</s>" gets that one token where Qwen3's
//     BPE, in which "</s>" is an ordinary entry no merge reaches, spells
//     it in three.
//   - literal ▁: the converter stores a SentencePiece vocabulary's
//     user-defined tokens with "▁" turned into spaces (Gemma's "▁▁" is
//     "  "), as llama.cpp matches them against the text before its own
//     space escaping; text that spells "▁" itself then misses them,
//     where Hugging Face matches the added token on the raw text. Spelt
//     with spaces, llama.cpp agrees.
func TestTokenizationAgrees(t *testing.T) {
	var corpus []string
	data, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "testdata", "tokenizer", "corpus.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &corpus))
	require.GreaterOrEqual(t, len(corpus), 400)
	for _, tc := range []struct {
		name string
		// differ counts the strings whose ids differ (with special
		// tokens or without) for each reason.
		differ map[string]int
	}{
		{"gpt2", nil},
		{"smollm-135m", nil},
		{"llama2", nil},
		{"llama3", nil},
		{"qwen3", map[string]int{"nfc": 7, "eos text": 5}},
		{"gemma3", map[string]int{"literal ▁": 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := testenv.Tokenizer(tc.name)
			if _, ok := testenv.NPMTokenizers[tc.name]; ok {
				dir = testenv.NPMTokenizer(t, tc.name)
			}
			path := fixture(t, "vocab-"+tc.name, tc.name, gguf.MostlyQ8_0, nil)
			m := open(t, path, llamacpp.Options{})
			ours, err := tokenizer.Load(dir)
			require.NoError(t, err)
			encode := func(s string, special bool) []int {
				got, err := m.Tokenize(s, special)
				require.NoError(t, err)
				return got
			}
			differ := map[string]int{}
			for i, s := range corpus {
				plain, special := encode(s, false), encode(s, true)
				wantPlain, wantSpecial := ours.Encode(s, false), ours.Encode(s, true)
				if slices.Equal(plain, wantPlain) && slices.Equal(special, wantSpecial) {
					continue
				}
				why := explain(t, m, path, s, plain, wantPlain)
				if why == "" {
					t.Errorf("#%d %q: unexplained difference\n  llama.cpp %v\n  ours      %v", i, s, plain, wantPlain)
					continue
				}
				differ[why]++
			}
			if len(tc.differ) == 0 {
				assert.Empty(t, differ)
			} else {
				assert.Equal(t, tc.differ, differ)
			}
			t.Logf("%s: %d strings, %v differing", tc.name, len(corpus), differ)
		})
	}
}

// explain names the known departure that makes llama.cpp's ids (got)
// differ from ours (want) for s, or "" when neither accounts for them.
// path is the GGUF file, opened directly to tokenize without reading
// special tokens.
func explain(t *testing.T, m *llamacpp.Model, path, s string, got, want []int) string {
	t.Helper()
	if nfc := norm.NFC.String(s); nfc != s {
		again, err := m.Tokenize(nfc, false)
		require.NoError(t, err)
		if slices.Equal(again, want) {
			return "nfc"
		}
	}
	if spaced := strings.ReplaceAll(s, "▁", " "); spaced != s {
		again, err := m.Tokenize(spaced, false)
		require.NoError(t, err)
		if slices.Equal(again, want) {
			return "literal ▁"
		}
	}
	eos, err := m.Tokenize("</s>", false)
	require.NoError(t, err)
	if len(eos) == 1 && slices.Contains(got, eos[0]) {
		// Read as plain text, "</s>" is no token: the rest agrees.
		plain, err := ref(t, path).m.Tokenize(s, false)
		require.NoError(t, err)
		if slices.Equal(ints(plain), want) {
			return "eos text"
		}
	}
	return ""
}

func ints(ids []int32) []int {
	out := make([]int, len(ids))
	for i, id := range ids {
		out[i] = int(id)
	}
	return out
}
