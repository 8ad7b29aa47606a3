package tokenizer_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/onnx/tokenizer"
	"github.com/feather-eval/feather/internal/testenv"
)

// The six tokenizers of the golden files (scripts/goldens/tokenizer.mjs).
var goldenTokenizers = []struct {
	name string
	dir  func(testing.TB) string
}{
	{"gpt2", func(t testing.TB) string { return testenv.Tokenizer("gpt2") }},
	{"smollm-135m", func(t testing.TB) string { return testenv.Tokenizer("smollm-135m") }},
	{"llama2", func(t testing.TB) string { return testenv.NPMTokenizer(t, "llama2") }},
	{"qwen3", func(t testing.TB) string { return testenv.NPMTokenizer(t, "qwen3") }},
	{"llama3", func(t testing.TB) string { return testenv.NPMTokenizer(t, "llama3") }},
	{"gemma3", func(t testing.TB) string { return testenv.NPMTokenizer(t, "gemma3") }},
}

type goldenCase struct {
	Special    []int  `json:"special"`
	Plain      []int  `json:"plain"`
	Decode     string `json:"decode"`
	DecodeSkip string `json:"decode_skip"`
}

type goldenFile struct {
	Tokenizer string       `json:"tokenizer"`
	Cases     []goldenCase `json:"cases"`
}

func readCorpus(t testing.TB) []string {
	t.Helper()
	var corpus []string
	data, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "testdata", "tokenizer", "corpus.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &corpus))
	return corpus
}

func readGolden(t testing.TB, name string) goldenFile {
	t.Helper()
	var g goldenFile
	data, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "testdata", "tokenizer", "golden", name+".json"))
	require.NoError(t, err, "regenerate with `make goldens`")
	require.NoError(t, json.Unmarshal(data, &g))
	return g
}

// loaded caches tokenizers across tests: the big ones take a while to read.
var loaded sync.Map

func load(t testing.TB, name, dir string) *tokenizer.Tokenizer {
	t.Helper()
	key := name + "\x00" + dir
	if tok, ok := loaded.Load(key); ok {
		return tok.(*tokenizer.Tokenizer)
	}
	tok, err := tokenizer.Load(dir)
	require.NoError(t, err)
	loaded.Store(key, tok)
	return tok
}

// TestGoldenParity encodes and decodes the whole corpus with each
// tokenizer and compares with Hugging Face's output: ids with and without
// special tokens, and decode(encode(s)) with and without skipping special
// tokens.
func TestGoldenParity(t *testing.T) {
	corpus := readCorpus(t)
	require.GreaterOrEqual(t, len(corpus), 300)
	for _, g := range goldenTokenizers {
		t.Run(g.name, func(t *testing.T) {
			tok := load(t, g.name, g.dir(t))
			gold := readGolden(t, g.name)
			require.Len(t, gold.Cases, len(corpus), "golden file is stale: run `make goldens`")

			var mismatches []string
			for i, s := range corpus {
				want := gold.Cases[i]
				special := tok.Encode(s, true)
				plain := tok.Encode(s, false)
				if !slices.Equal(special, want.Special) {
					mismatches = append(mismatches, describe(tok, i, s, "Encode(s, true)", want.Special, special))
				}
				if !slices.Equal(plain, want.Plain) {
					mismatches = append(mismatches, describe(tok, i, s, "Encode(s, false)", want.Plain, plain))
				}
				// Decode the reference ids, so a decode bug shows even where
				// encoding differs.
				if got := tok.Decode(want.Special, false); got != want.Decode {
					mismatches = append(mismatches, fmt.Sprintf("#%d %q: Decode(ids, false) = %q, want %q", i, s, got, want.Decode))
				}
				if got := tok.Decode(want.Special, true); got != want.DecodeSkip {
					mismatches = append(mismatches, fmt.Sprintf("#%d %q: Decode(ids, true) = %q, want %q", i, s, got, want.DecodeSkip))
				}
			}
			t.Logf("%s: %d strings, %d mismatches", g.name, len(corpus), len(mismatches))
			if len(mismatches) > 0 {
				n := min(len(mismatches), 10)
				t.Errorf("%d mismatches; the first %d:\n%s", len(mismatches), n, strings.Join(mismatches[:n], "\n"))
			}
		})
	}
}

// TestRoundTrip checks decode(encode(s)) gives s back wherever the
// reference does, so a lossy tokenizer shows up as the reference's loss,
// never as ours.
func TestRoundTrip(t *testing.T) {
	corpus := readCorpus(t)
	for _, g := range goldenTokenizers {
		t.Run(g.name, func(t *testing.T) {
			tok := load(t, g.name, g.dir(t))
			gold := readGolden(t, g.name)
			require.Len(t, gold.Cases, len(corpus))
			exact := 0
			for i, s := range corpus {
				if gold.Cases[i].DecodeSkip != s {
					continue
				}
				exact++
				assert.Equal(t, s, tok.Decode(tok.Encode(s, true), true), "#%d", i)
			}
			t.Logf("%s: %d of %d strings round-trip exactly in the reference and here", g.name, exact, len(corpus))
			assert.Greater(t, exact, len(corpus)/2)
		})
	}
}

// describe shows where two id lists part, with the tokens around it.
func describe(tok *tokenizer.Tokenizer, i int, s, what string, want, got []int) string {
	k := 0
	for k < len(want) && k < len(got) && want[k] == got[k] {
		k++
	}
	names := func(ids []int) string {
		lo := max(0, k-2)
		hi := min(len(ids), k+4)
		parts := make([]string, 0, hi-lo)
		for _, id := range ids[lo:hi] {
			tokStr, _ := tok.IDToToken(id)
			parts = append(parts, fmt.Sprintf("%d:%q", id, tokStr))
		}
		return strings.Join(parts, " ")
	}
	return fmt.Sprintf("#%d %q: %s parts at index %d\n  want %v\n  got  %v\n  want tokens …%s…\n  got tokens  …%s…",
		i, s, what, k, want, got, names(want), names(got))
}

// TestCraftedParity runs the hand-made tokenizers of
// testdata/tokenizer/crafted against the Rust library's answers.
func TestCraftedParity(t *testing.T) {
	base := filepath.Join(testenv.RepoRoot(), "testdata", "tokenizer", "crafted")
	var inputs map[string][]string
	data, err := os.ReadFile(filepath.Join(base, "inputs.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &inputs))
	var gold map[string][]goldenCase
	data, err = os.ReadFile(filepath.Join(testenv.RepoRoot(), "testdata", "tokenizer", "golden", "crafted.json"))
	require.NoError(t, err, "regenerate with `make goldens`")
	require.NoError(t, json.Unmarshal(data, &gold))
	require.Len(t, gold, len(inputs))
	for name, strs := range inputs {
		t.Run(name, func(t *testing.T) {
			tok, err := tokenizer.Load(filepath.Join(base, name))
			require.NoError(t, err)
			require.Len(t, gold[name], len(strs), "golden file is stale: run `make goldens`")
			for i, s := range strs {
				want := gold[name][i]
				assert.Equal(t, nonNil(want.Special), tok.Encode(s, true), "Encode(%q, true)", s)
				assert.Equal(t, nonNil(want.Plain), tok.Encode(s, false), "Encode(%q, false)", s)
				assert.Equal(t, want.Decode, tok.Decode(want.Special, false), "Decode of %q", s)
				assert.Equal(t, want.DecodeSkip, tok.Decode(want.Special, true), "Decode of %q, skipping special tokens", s)
			}
		})
	}
}

func nonNil(ids []int) []int {
	if ids == nil {
		return []int{}
	}
	return ids
}
