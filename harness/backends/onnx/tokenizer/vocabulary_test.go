package tokenizer_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/onnx/tokenizer"
	"github.com/feather-eval/feather/internal/testenv"
)

// Vocabulary gives back what the files define: tokens by id, merges in
// rank order, added tokens, the named special tokens and the model's kind.
func TestVocabulary(t *testing.T) {
	tok, err := tokenizer.Load(testenv.Tokenizer("gpt2"))
	require.NoError(t, err)
	v := tok.Vocabulary()
	require.Len(t, v.Tokens, 50257)
	assert.Equal(t, "Ġthe", v.Tokens[262])
	assert.Equal(t, "<|endoftext|>", v.Tokens[50256])
	require.Len(t, v.Merges, 50000)
	assert.Equal(t, [][2]string{{"Ġ", "t"}, {"Ġ", "a"}, {"h", "e"}}, v.Merges[:3])
	assert.Equal(t, []tokenizer.AddedToken{{ID: 50256, Content: "<|endoftext|>", Special: true, Normalized: true}}, v.Added)
	eot := tokenizer.Special{Token: "<|endoftext|>", ID: 50256}
	assert.Equal(t, map[string]tokenizer.Special{"bos_token": eot, "eos_token": eot, "unk_token": eot}, v.Special)
	assert.Equal(t, -1, v.Unk)
	assert.True(t, v.ByteLevel)
	assert.False(t, v.ByteFallback)
	assert.False(t, v.IgnoreMerges)

	tok, err = tokenizer.Load(testenv.NPMTokenizer(t, "llama2"))
	require.NoError(t, err)
	v = tok.Vocabulary()
	assert.Len(t, v.Tokens, 32000)
	assert.Equal(t, [2]string{"▁", "t"}, v.Merges[0])
	assert.Equal(t, 0, v.Unk)
	assert.True(t, v.ByteFallback)
	assert.False(t, v.ByteLevel)
	assert.Equal(t, tokenizer.Special{Token: "<s>", ID: 1}, v.Special["bos_token"])
	assert.Len(t, v.Added, 3)

	tok, err = tokenizer.Load(testenv.NPMTokenizer(t, "llama3"))
	require.NoError(t, err)
	assert.True(t, tok.Vocabulary().IgnoreMerges)
}
