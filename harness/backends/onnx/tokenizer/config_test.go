package tokenizer_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/onnx/tokenizer"
)

func TestRealTokenizerSpecials(t *testing.T) {
	none := tokenizer.Special{}
	tests := []struct {
		name          string
		bos, eos, pad tokenizer.Special
		addsBOS       bool
		vocabSize     int
	}{
		{"gpt2", tokenizer.Special{Token: "<|endoftext|>", ID: 50256}, tokenizer.Special{Token: "<|endoftext|>", ID: 50256}, none, false, 50257},
		{"smollm-135m", tokenizer.Special{Token: "<|endoftext|>", ID: 0}, tokenizer.Special{Token: "<|endoftext|>", ID: 0}, tokenizer.Special{Token: "[PAD]", ID: 49152}, false, 49153},
		{"llama2", tokenizer.Special{Token: "<s>", ID: 1}, tokenizer.Special{Token: "</s>", ID: 2}, none, true, 32000},
		{"qwen3", none, tokenizer.Special{Token: "<|im_end|>", ID: 151645}, tokenizer.Special{Token: "<|endoftext|>", ID: 151643}, false, 151669},
		{"llama3", tokenizer.Special{Token: "<|begin_of_text|>", ID: 128000}, tokenizer.Special{Token: "<|end_of_text|>", ID: 128001}, none, false, 128256},
		{"gemma3", tokenizer.Special{Token: "<bos>", ID: 2}, tokenizer.Special{Token: "<end_of_turn>", ID: 106}, tokenizer.Special{Token: "<pad>", ID: 0}, true, 262145},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var dir string
			for _, g := range goldenTokenizers {
				if g.name == tt.name {
					dir = g.dir(t)
				}
			}
			tok := load(t, tt.name, dir)
			check := func(what string, want tokenizer.Special, got tokenizer.Special, ok bool) {
				assert.Equal(t, want != none, ok, what)
				assert.Equal(t, want, got, what)
			}
			bos, ok := tok.BOS()
			check("BOS", tt.bos, bos, ok)
			eos, ok := tok.EOS()
			check("EOS", tt.eos, eos, ok)
			pad, ok := tok.PAD()
			check("PAD", tt.pad, pad, ok)
			assert.Equal(t, tt.addsBOS, tok.AddsBOS())
			assert.Equal(t, tt.vocabSize, tok.VocabSize())
			if tt.eos != none {
				assert.True(t, tok.IsSpecial(tt.eos.ID))
			}
			assert.False(t, tok.IsSpecial(tok.Encode("a", false)[0]))
		})
	}
}

// byteLevelJSON is a byte-level tokenizer whose vocabulary holds the
// letters a-c, a space-prefixed "Ġa", and a few special-looking tokens that
// are plain vocabulary entries until a config file names them.
const byteLevelJSON = `{"version":"1.0","added_tokens":[],"normalizer":null,
"pre_tokenizer":{"type":"ByteLevel","add_prefix_space":false,"trim_offsets":true,"use_regex":true},
"post_processor":POST,
"decoder":{"type":"ByteLevel","add_prefix_space":true,"trim_offsets":true,"use_regex":true},
"model":{"type":"BPE","vocab":{"a":0,"b":1,"c":2,"Ġ":3,"Ġa":4,"<go>":5,"<stop>":6,"<":7,">":8,"g":9,"o":10},"merges":["Ġ a"]}}`

func TestSpecialTokensFromConfig(t *testing.T) {
	bosTemplate := `{"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"<go>","type_id":0}},{"Sequence":{"id":"A","type_id":0}}],
		"special_tokens":{"<go>":{"id":"<go>","ids":[5],"tokens":["<go>"]}}}`
	withPost := func(post string) string { return strings.ReplaceAll(byteLevelJSON, "POST", post) }
	tests := []struct {
		name          string
		files         map[string]string
		bos, eos, pad *tokenizer.Special
		addsBOS       bool
		encode        string
		special       []int // Encode(encode, true)
		decodeSkip    string
	}{
		{
			name:   "no config: nothing named, nothing special",
			files:  map[string]string{"tokenizer.json": withPost("null")},
			encode: "<go>a", special: []int{7, 9, 10, 8, 0}, decodeSkip: "<go>a",
		},
		{
			name: "named tokens become special added tokens",
			files: map[string]string{"tokenizer.json": withPost("null"),
				"tokenizer_config.json": `{"bos_token": "<go>", "eos_token": {"content": "<stop>", "__type": "AddedToken"}}`},
			bos: &tokenizer.Special{Token: "<go>", ID: 5}, eos: &tokenizer.Special{Token: "<stop>", ID: 6},
			encode: "<go>a <stop>", special: []int{5, 0, 3, 6}, decodeSkip: "a ",
		},
		{
			name: "special_tokens_map.json overrides tokenizer_config.json",
			files: map[string]string{"tokenizer.json": withPost("null"),
				"tokenizer_config.json":   `{"bos_token": "<stop>", "pad_token": "c"}`,
				"special_tokens_map.json": `{"bos_token": {"content": "<go>", "lstrip": false, "normalized": false, "rstrip": false, "single_word": false}}`},
			bos: &tokenizer.Special{Token: "<go>", ID: 5}, pad: &tokenizer.Special{Token: "c", ID: 2},
			encode: "ca", special: []int{2, 0}, decodeSkip: "a",
		},
		{
			name: "config.json ids are the last resort",
			files: map[string]string{"tokenizer.json": withPost("null"),
				"config.json": `{"bos_token_id": 5, "eos_token_id": [6, 5], "pad_token_id": null}`},
			bos: &tokenizer.Special{Token: "<go>", ID: 5}, eos: &tokenizer.Special{Token: "<stop>", ID: 6},
			encode: "a", special: []int{0}, decodeSkip: "a",
		},
		{
			name: "an explicit null beats config.json",
			files: map[string]string{"tokenizer.json": withPost("null"),
				"tokenizer_config.json": `{"bos_token": null}`, "config.json": `{"bos_token_id": 5}`},
			encode: "a", special: []int{0}, decodeSkip: "a",
		},
		{
			name:  "a template in tokenizer.json adds BOS",
			files: map[string]string{"tokenizer.json": withPost(bosTemplate), "tokenizer_config.json": `{"bos_token": "<go>"}`},
			bos:   &tokenizer.Special{Token: "<go>", ID: 5}, addsBOS: true,
			encode: " a", special: []int{5, 4}, decodeSkip: " a",
		},
		{
			name: "add_bos_token: false removes it",
			files: map[string]string{"tokenizer.json": withPost(bosTemplate),
				"tokenizer_config.json": `{"bos_token": "<go>", "add_bos_token": false}`},
			bos:    &tokenizer.Special{Token: "<go>", ID: 5},
			encode: " a", special: []int{4}, decodeSkip: " a",
		},
		{
			name: "add_bos_token and add_eos_token build the template",
			files: map[string]string{"tokenizer.json": withPost(`{"type":"ByteLevel","add_prefix_space":false,"trim_offsets":false,"use_regex":true}`),
				"tokenizer_config.json": `{"bos_token": "<go>", "eos_token": "<stop>", "add_bos_token": true, "add_eos_token": true}`},
			bos: &tokenizer.Special{Token: "<go>", ID: 5}, eos: &tokenizer.Special{Token: "<stop>", ID: 6}, addsBOS: true,
			encode: "b", special: []int{5, 1, 6}, decodeSkip: "b",
		},
		{
			name: "added_tokens_decoder adds tokens the tokenizer lacks",
			files: map[string]string{"tokenizer.json": withPost("null"),
				"tokenizer_config.json": `{"added_tokens_decoder": {"11": {"content": "<new>", "lstrip": false, "normalized": false, "rstrip": false, "single_word": false, "special": true}}}`},
			encode: "a<new>b", special: []int{0, 11, 1}, decodeSkip: "ab",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok, err := tokenizer.Load(folder(t, tt.files))
			require.NoError(t, err)
			for _, c := range []struct {
				what string
				want *tokenizer.Special
				get  func() (tokenizer.Special, bool)
			}{{"BOS", tt.bos, tok.BOS}, {"EOS", tt.eos, tok.EOS}, {"PAD", tt.pad, tok.PAD}} {
				got, ok := c.get()
				if c.want == nil {
					assert.False(t, ok, c.what)
				} else {
					assert.True(t, ok, c.what)
					assert.Equal(t, *c.want, got, c.what)
				}
			}
			assert.Equal(t, tt.addsBOS, tok.AddsBOS())
			ids := tok.Encode(tt.encode, true)
			assert.Equal(t, tt.special, ids)
			assert.Equal(t, tt.decodeSkip, tok.Decode(ids, true))
		})
	}
}
