package gguf_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/llamacpp/gguf"
	"github.com/feather-eval/feather/internal/testenv"
)

// GPT-2's byte-level BPE becomes a gpt2 vocabulary: its tokens by id, the
// one added token as control, the merges in order, <|endoftext|> as BOS,
// EOS and unknown, and the pre-tokenizer the converter names for it.
func TestGPT2Vocab(t *testing.T) {
	v, err := gguf.LoadVocab(testenv.Tokenizer("gpt2"), "")
	require.NoError(t, err)
	assert.Equal(t, "gpt2", v.Model)
	assert.Equal(t, "gpt-2", v.Pre)
	require.Len(t, v.Tokens, 50257)
	require.Len(t, v.Types, 50257)
	assert.Equal(t, []string{"!", "\"", "#"}, v.Tokens[:3])
	assert.Equal(t, "Ġthe", v.Tokens[262])
	assert.Equal(t, "<|endoftext|>", v.Tokens[50256])
	assert.Equal(t, gguf.TokenControl, v.Types[50256])
	for id := 0; id < 50256; id++ {
		require.Equal(t, gguf.TokenNormal, v.Types[id], "token %d", id)
	}
	require.Len(t, v.Merges, 50000)
	assert.Equal(t, []string{"Ġ t", "Ġ a", "h e", "i n", "r e"}, v.Merges[:5])
	assert.Equal(t, "Ġg azed", v.Merges[49999])
	assert.Nil(t, v.Scores)
	assert.Equal(t, map[string]int{"bos": 50256, "eos": 50256, "unk": 50256}, v.Special)
	assert.False(t, v.AddBOS)
	assert.False(t, v.AddEOS)
	assert.Empty(t, v.ChatTemplate)
}

// Llama 2's tokenizer (BPE with byte fallback, converted from
// SentencePiece) becomes a llama vocabulary: unknown, control and byte
// tokens typed as SentencePiece types them, scores in merge order, BOS
// added.
func TestLlama2Vocab(t *testing.T) {
	v, err := gguf.LoadVocab(testenv.NPMTokenizer(t, "llama2"), "")
	require.NoError(t, err)
	assert.Equal(t, "llama", v.Model)
	assert.Equal(t, "default", v.Pre)
	require.Len(t, v.Tokens, 32000)
	require.Len(t, v.Scores, 32000)
	for _, tt := range []struct {
		id    int
		token string
		typ   gguf.TokenType
		score float32
	}{
		{0, "<unk>", gguf.TokenUnknown, 0},
		{1, "<s>", gguf.TokenControl, 0},
		{2, "</s>", gguf.TokenControl, 0},
		{3, "<0x00>", gguf.TokenByte, 0},
		{13, "<0x0A>", gguf.TokenByte, 0},
		{258, "<0xFF>", gguf.TokenByte, 0},
		{259, "▁▁", gguf.TokenNormal, -58876}, // made by the 58877th merge
		{261, "▁t", gguf.TokenNormal, 0},      // the first merge
		{262, "in", gguf.TokenNormal, -1},
		{28705, "▁", gguf.TokenNormal, -(58980 + 28705)}, // no merge makes it: below them all
		{31999, "梦", gguf.TokenNormal, -(58980 + 31999)},
	} {
		assert.Equal(t, tt.token, v.Tokens[tt.id], "token %d", tt.id)
		assert.Equal(t, tt.typ, v.Types[tt.id], "type of %d", tt.id)
		assert.Equal(t, tt.score, v.Scores[tt.id], "score of %d", tt.id)
	}
	assert.Nil(t, v.Merges)
	assert.Equal(t, map[string]int{"bos": 1, "eos": 2, "unk": 0}, v.Special)
	assert.True(t, v.AddBOS)
	assert.False(t, v.AddEOS)
	assert.False(t, v.NoSpacePrefix, "Llama 2's normalizer prepends ▁, llama.cpp's default")
}

// TestGemma3NoSpacePrefix: Gemma's normalizer only turns spaces into ▁,
// prepending none, so the file says add_space_prefix false, without
// which llama.cpp would put ▁ before every text.
func TestGemma3NoSpacePrefix(t *testing.T) {
	v, err := gguf.LoadVocab(testenv.NPMTokenizer(t, "gemma3"), "")
	require.NoError(t, err)
	assert.Equal(t, "llama", v.Model)
	assert.True(t, v.NoSpacePrefix)
}

// The pre-tokenizer is picked as the converter picks it, by hashing the
// ids of its check text: each tokenizer the harness carries gets the name
// llama.cpp knows it by.
func TestPreTokenizerDetection(t *testing.T) {
	for _, tt := range []struct {
		name, dir, pre string
	}{
		{"gpt2", testenv.Tokenizer("gpt2"), "gpt-2"},
		{"smollm-135m", testenv.Tokenizer("smollm-135m"), "smollm"},
		{"qwen3", testenv.NPMTokenizer(t, "qwen3"), "qwen2"},
		{"llama3", testenv.NPMTokenizer(t, "llama3"), "llama-bpe"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v, err := gguf.LoadVocab(tt.dir, "")
			require.NoError(t, err)
			assert.Equal(t, "gpt2", v.Model)
			assert.Equal(t, tt.pre, v.Pre)
		})
	}
}

// Qwen3's added tokens: the special ones and the <|…|> ones are control,
// <think> and <tool_call> user-defined; its chat template comes along.
func TestQwen3Vocab(t *testing.T) {
	v, err := gguf.LoadVocab(testenv.NPMTokenizer(t, "qwen3"), "")
	require.NoError(t, err)
	require.Len(t, v.Tokens, 151669)
	for _, tt := range []struct {
		id    int
		token string
		typ   gguf.TokenType
	}{
		{151643, "<|endoftext|>", gguf.TokenControl},
		{151645, "<|im_end|>", gguf.TokenControl},
		{151659, "<|fim_prefix|>", gguf.TokenControl}, // not marked special, but looks it
		{151657, "<tool_call>", gguf.TokenUserDefined},
		{151667, "<think>", gguf.TokenUserDefined},
		{0, "!", gguf.TokenNormal},
	} {
		assert.Equal(t, tt.token, v.Tokens[tt.id], "token %d", tt.id)
		assert.Equal(t, tt.typ, v.Types[tt.id], "type of %d", tt.id)
	}
	assert.Equal(t, map[string]int{"eos": 151645, "pad": 151643}, v.Special)
	assert.False(t, v.AddBOS)
	assert.Contains(t, v.ChatTemplate, "<|im_start|>")
}

// An explicit pre-tokenizer name wins over detection.
func TestExplicitPreTokenizer(t *testing.T) {
	v, err := gguf.LoadVocab(testenv.Tokenizer("gpt2"), "llama-bpe")
	require.NoError(t, err)
	assert.Equal(t, "llama-bpe", v.Pre)
}
