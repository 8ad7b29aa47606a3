package tokenizer

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/internal/testenv"
)

// BenchmarkEncodeColdCache is BenchmarkEncode/gpt2 with the word cache
// emptied before every pass, so each word goes through BPE merging: the
// cost of text the tokenizer has not seen.
func BenchmarkEncodeColdCache(b *testing.B) {
	var corpus []string
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "testdata", "tokenizer", "corpus.json"))
	require.NoError(b, err)
	require.NoError(b, json.Unmarshal(data, &corpus))
	tok, err := Load(testenv.Tokenizer("gpt2"))
	require.NoError(b, err)
	n := 0
	for _, s := range corpus {
		n += len(s)
	}
	b.SetBytes(int64(n))
	for b.Loop() {
		tok.model.cache.clear()
		tok.model.rawCache.clear()
		for _, s := range corpus {
			tok.Encode(s, true)
		}
	}
}
