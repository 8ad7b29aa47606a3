package tokenizer_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/onnx/tokenizer"
)

// Small hand-made tokenizers for the corners the real ones do not reach.
// Every expectation is what the Rust tokenizers library (0.23.2) returns
// for the same tokenizer.json.

// spm is SentencePiece-style: Prepend + Replace normalizer, byte fallback,
// fused unk, BOS template, Llama 2's decoder.
const spm = `{"version":"1.0","truncation":null,"padding":null,"added_tokens":[{"id":0,"content":"<unk>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true},{"id":1,"content":"<s>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true},{"id":2,"content":"</s>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true}],"normalizer":{"type":"Sequence","normalizers":[{"type":"Prepend","prepend":"▁"},{"type":"Replace","pattern":{"String":" "},"content":"▁"}]},"pre_tokenizer":null,"post_processor":{"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"<s>","type_id":0}},{"Sequence":{"id":"A","type_id":0}}],"pair":[],"special_tokens":{"<s>":{"id":"<s>","ids":[1],"tokens":["<s>"]}}},"decoder":{"type":"Sequence","decoders":[{"type":"Replace","pattern":{"String":"▁"},"content":" "},{"type":"ByteFallback"},{"type":"Fuse"},{"type":"Strip","content":" ","start":1,"stop":0}]},"model":{"type":"BPE","dropout":null,"unk_token":"<unk>","continuing_subword_prefix":null,"end_of_word_suffix":null,"fuse_unk":FUSE,"byte_fallback":true,"vocab":{"<unk>":0,"<s>":1,"</s>":2,"<0x0A>":3,"<0xC3>":4,"<0xA9>":5,"▁":6,"a":7,"b":8,"c":9,"▁a":10,"ab":11,"▁ab":12,"bc":13},"merges":["▁ a","a b","▁a b","b c"]}}`

// affixes uses continuing_subword_prefix and end_of_word_suffix, merges
// in the [a, b] form, and no unk token (unknown characters vanish).
const affixes = `{"version":"1.0","added_tokens":[],"normalizer":null,"pre_tokenizer":{"type":"WhitespaceSplit"},"post_processor":null,"decoder":null,"model":{"type":"BPE","dropout":null,"unk_token":null,"continuing_subword_prefix":"##","end_of_word_suffix":"</w>","fuse_unk":false,"byte_fallback":false,"vocab":{"a":0,"##b":1,"##c</w>":2,"ab":3,"abc</w>":4,"c</w>":5,"b":6,"##a":7},"merges":[["a","##b"],["ab","##c</w>"]]}}`

// ignoreMerges looks whole words up before merging (Llama 3).
const ignoreMerges = `{"version":"1.0","added_tokens":[],"normalizer":null,"pre_tokenizer":{"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,"use_regex":true},"post_processor":null,"decoder":{"type":"ByteLevel","add_prefix_space":true,"trim_offsets":true,"use_regex":true},"model":{"type":"BPE","dropout":null,"unk_token":null,"continuing_subword_prefix":null,"end_of_word_suffix":null,"fuse_unk":false,"byte_fallback":false,"ignore_merges":IGNORE,"vocab":{"h":0,"e":1,"l":2,"o":3,"Ġ":4,"he":5,"ll":6,"hello":7,"Ġhello":8},"merges":["h e","l l"]}}`

// addedOptions has added tokens with every option, a Lowercase normalizer,
// and ids in the file that Rust reassigns (it only checks them): the five
// added tokens become 6..10 after the 6-token vocabulary.
const addedOptions = `{"version":"1.0","normalizer":{"type":"Lowercase"},"pre_tokenizer":{"type":"WhitespaceSplit"},"post_processor":null,"decoder":null,"added_tokens":[{"id":10,"content":"[CLS]","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true},{"id":11,"content":"My","single_word":false,"lstrip":true,"rstrip":true,"normalized":true,"special":false},{"id":12,"content":"<mask>","single_word":true,"lstrip":false,"rstrip":false,"normalized":false,"special":false},{"id":13,"content":"<ms>","single_word":false,"lstrip":true,"rstrip":false,"normalized":false,"special":true},{"id":14,"content":"<mask>x","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":false}],"model":{"type":"BPE","dropout":null,"unk_token":"?","continuing_subword_prefix":null,"end_of_word_suffix":null,"fuse_unk":true,"byte_fallback":false,"vocab":{"?":0,"a":1,"b":2,"m":3,"y":4,"ab":5},"merges":["a b"]}}`

func folder(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
	}
	return dir
}

func loadJSON(t *testing.T, tokenizerJSON string) *tokenizer.Tokenizer {
	t.Helper()
	tok, err := tokenizer.Load(folder(t, map[string]string{"tokenizer.json": tokenizerJSON}))
	require.NoError(t, err)
	return tok
}

type encodeCase struct {
	input      string
	special    []int // Encode(input, true)
	plain      []int // Encode(input, false)
	decode     string
	decodeSkip string
}

func checkCases(t *testing.T, tok *tokenizer.Tokenizer, cases []encodeCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.input, func(t *testing.T) {
			assert.Equal(t, c.special, tok.Encode(c.input, true))
			assert.Equal(t, c.plain, tok.Encode(c.input, false))
			assert.Equal(t, c.decode, tok.Decode(c.special, false))
			assert.Equal(t, c.decodeSkip, tok.Decode(c.special, true))
		})
	}
}

func TestByteFallbackAndFusedUnk(t *testing.T) {
	checkCases(t, loadJSON(t, strings.ReplaceAll(spm, "FUSE", "true")), []encodeCase{
		{"ab", []int{1, 12}, []int{12}, "<s> ab", "ab"},
		{"abc", []int{1, 12, 9}, []int{12, 9}, "<s> abc", "abc"},
		{"a\nb", []int{1, 10, 3, 8}, []int{10, 3, 8}, "<s> a\nb", "a\nb"},
		{"é", []int{1, 6, 4, 5}, []int{6, 4, 5}, "<s> é", "é"},
		{"xyz", []int{1, 6, 0}, []int{6, 0}, "<s> <unk>", ""},
		{"axyb", []int{1, 10, 0, 8}, []int{10, 0, 8}, "<s> a<unk>b", "ab"},
		{"日", []int{1, 6, 0}, []int{6, 0}, "<s> <unk>", ""},
		{" a", []int{1, 6, 10}, []int{6, 10}, "<s>  a", " a"},
		{"", []int{1}, []int{}, "<s>", ""},
		{"a</s>b", []int{1, 10, 2, 6, 8}, []int{10, 2, 6, 8}, "<s> a</s> b", "a b"},
		// A pending unk waits behind byte-fallback tokens, then fuses.
		{"x\ny", []int{1, 6, 3, 0}, []int{6, 3, 0}, "<s> \n<unk>", "\n"},
	})
}

func TestUnfusedUnk(t *testing.T) {
	checkCases(t, loadJSON(t, strings.ReplaceAll(spm, "FUSE", "false")), []encodeCase{
		{"xyz", []int{1, 6, 0, 0, 0}, []int{6, 0, 0, 0}, "<s> <unk><unk><unk>", ""},
		{"axyb", []int{1, 10, 0, 0, 8}, []int{10, 0, 0, 8}, "<s> a<unk><unk>b", "ab"},
		{"x\ny", []int{1, 6, 3, 0, 0}, []int{6, 3, 0, 0}, "<s> \n<unk><unk>", "\n"},
	})
}

func TestSubwordPrefixAndSuffix(t *testing.T) {
	checkCases(t, loadJSON(t, affixes), []encodeCase{
		{"abc", []int{4}, []int{4}, "abc</w>", "abc</w>"},
		{"c", []int{5}, []int{5}, "c</w>", "c</w>"},
		{"ba", []int{6}, []int{6}, "b", "b"},
		{"ab", []int{0}, []int{0}, "a", "a"},
		{"a abc", []int{4}, []int{4}, "abc</w>", "abc</w>"},
	})
}

func TestIgnoreMerges(t *testing.T) {
	checkCases(t, loadJSON(t, strings.ReplaceAll(ignoreMerges, "IGNORE", "true")), []encodeCase{
		{"hello", []int{7}, []int{7}, "hello", "hello"},
		{" hello", []int{8}, []int{8}, " hello", " hello"},
		{"hellohello", []int{5, 6, 3, 5, 6, 3}, []int{5, 6, 3, 5, 6, 3}, "hellohello", "hellohello"},
	})
	checkCases(t, loadJSON(t, strings.ReplaceAll(ignoreMerges, "IGNORE", "false")), []encodeCase{
		{"hello", []int{5, 6, 3}, []int{5, 6, 3}, "hello", "hello"},
		{" hello", []int{4, 5, 6, 3}, []int{4, 5, 6, 3}, " hello", " hello"},
	})
}

func TestAddedTokenOptions(t *testing.T) {
	tok := loadJSON(t, addedOptions)
	checkCases(t, tok, []encodeCase{
		// "My" is normalized: it matches the lowercased text, and lstrip +
		// rstrip take the spaces around it.
		{"[CLS] My name", []int{6, 7, 0, 1, 3, 0}, []int{6, 7, 0, 1, 3, 0}, "[CLS] my ? a m ?", "my ? a m ?"},
		// single_word: <mask> glued to "a" is text, the free one a token.
		{"a<mask> <mask> b", []int{1, 0, 3, 1, 0, 8, 2}, []int{1, 0, 3, 1, 0, 8, 2}, "a ? m a ? <mask> b", "a ? m a ? <mask> b"},
		{"b<mask>", []int{2, 0, 3, 1, 0}, []int{2, 0, 3, 1, 0}, "b ? m a ?", "b ? m a ?"},
		// lstrip only: the spaces before <ms> are part of it.
		{"ab  <ms>ab", []int{5, 9, 5}, []int{5, 9, 5}, "ab <ms> ab", "ab ab"},
		// Longest match first: <mask>x beats <mask>.
		{"MY<mask>x my", []int{7, 10, 7}, []int{7, 10, 7}, "my <mask>x my", "my <mask>x my"},
		{"<mask>xab", []int{10, 5}, []int{10, 5}, "<mask>x ab", "<mask>x ab"},
	})
	assert.Equal(t, 11, tok.VocabSize())
	assert.True(t, tok.IsSpecial(6))
	assert.False(t, tok.IsSpecial(7))
	assert.False(t, tok.IsSpecial(0), "an ordinary vocabulary token")
	id, ok := tok.TokenToID("<ms>")
	assert.True(t, ok)
	assert.Equal(t, 9, id)
	s, ok := tok.IDToToken(10)
	assert.True(t, ok)
	assert.Equal(t, "<mask>x", s)
	_, ok = tok.IDToToken(11)
	assert.False(t, ok)
	_, ok = tok.IDToToken(-1)
	assert.False(t, ok)
}

func TestInvalidInput(t *testing.T) {
	tok := loadJSON(t, strings.ReplaceAll(ignoreMerges, "IGNORE", "false"))
	// Invalid UTF-8 reads as U+FFFD, whose bytes are not in this
	// vocabulary: no unk token, so they vanish, as in Rust.
	assert.Equal(t, tok.Encode("he\uFFFDll", false), tok.Encode("he\xffll", false))
	assert.Equal(t, []int{5, 6}, tok.Encode("he\xffll", false))
	// Unknown and negative ids decode to nothing.
	assert.Equal(t, "hello", tok.Decode([]int{5, 99, -1, 6, 3}, false))
	assert.Equal(t, "", tok.Decode(nil, false))
}
