package tokenizer

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestScannersMatchRegex checks each hand-written pre-tokenizer scanner
// against regexp2 running the pattern itself, on the corpus and on random
// strings over an alphabet chosen to hit every branch: contractions in
// both cases, letters and numbers of several scripts, runs of mixed
// whitespace with and without newlines, punctuation, marks and emoji.
func TestScannersMatchRegex(t *testing.T) {
	var corpus []string
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "testdata", "tokenizer", "corpus.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &corpus))

	alphabet := []string{"'", "s", "S", "t", "re", "RE", "ve", "m", "ll", "LL", "d", "D", "x", "é", "中", "ß",
		"1", "23", "٣", "½", " ", "  ", "\t", "\n", "\r\n", "\r", "\u00a0", "\u3000", "\u2028", "\u0085",
		",", ".", "!?", "-", "\u0301", "😀", "\u200d", "_", "$", "\u000b"}
	rng := rand.New(rand.NewPCG(1, 2))
	inputs := append([]string{}, corpus...)
	for range 3000 {
		var b strings.Builder
		for range 1 + rng.IntN(12) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		inputs = append(inputs, b.String())
	}

	for _, pattern := range []string{gpt2Pattern, llama3Pattern, qwen2Pattern} {
		fast := fastScanner(pattern)
		require.NotNil(t, fast)
		slow, err := compileRegexp2(pattern)
		require.NoError(t, err)
		bad := 0
		for _, s := range inputs {
			want, got := slow.find(nil, s), fast.find(nil, s)
			if !assert.Equal(t, want, got, "pattern %q on %q", pattern, s) {
				if bad++; bad > 5 {
					t.FailNow()
				}
			}
		}
	}
}

func TestByteLevelAlphabet(t *testing.T) {
	assert.Equal(t, "Ġ", string(byteToRune[' ']))
	assert.Equal(t, "Ċ", string(byteToRune['\n']))
	assert.Equal(t, "ĉ", string(byteToRune['\t']))
	assert.Equal(t, "A", string(byteToRune['A']))
	assert.Equal(t, "Ã©", byteLevelEncode("é"))
	seen := map[rune]bool{}
	for b := range 256 {
		r := byteToRune[b]
		assert.False(t, seen[r], "byte %d maps to a taken rune", b)
		seen[r] = true
		assert.Equal(t, byte(b), runeToByte[r])
	}
}
