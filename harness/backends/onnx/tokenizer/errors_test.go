package tokenizer_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/onnx/tokenizer"
)

// tiny is a valid byte-level tokenizer.json with the parts each error
// case swaps out.
const tinyModel = `{"type":"BPE","vocab":{"a":0,"b":1,"ab":2},"merges":["a b"]}`

func tiny(normalizer, preTokenizer, postProcessor, decoder, model string) string {
	return `{"version":"1.0","added_tokens":[],` +
		`"normalizer":` + normalizer + `,"pre_tokenizer":` + preTokenizer +
		`,"post_processor":` + postProcessor + `,"decoder":` + decoder + `,"model":` + model + `}`
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  string // substring of the error
	}{
		{"empty folder", map[string]string{}, "no tokenizer.json, and no vocab.json + merges.txt pair"},
		{"vocab without merges", map[string]string{"vocab.json": `{"a":0}`}, "no tokenizer.json, and no vocab.json + merges.txt pair"},
		{"bad JSON with line and column", map[string]string{"tokenizer.json": "{\n  \"model\": {,\n}"},
			"tokenizer.json:2:13: invalid JSON"},
		{"wrong JSON type", map[string]string{"tokenizer.json": "{\n\"added_tokens\": {\"a\": 1}}"},
			"tokenizer.json:2:17: added_tokens: want []tokenizer.addedTokenJSON, got JSON object"},
		{"no model", map[string]string{"tokenizer.json": `{"added_tokens":[]}`}, "tokenizer.json: model: missing"},
		{"unknown model type", map[string]string{"tokenizer.json": tiny("null", "null", "null", "null",
			`{"type":"WordPiece","vocab":{"a":0}}`)}, `tokenizer.json: model: unsupported type "WordPiece" (supported: BPE)`},
		{"unknown normalizer", map[string]string{"tokenizer.json": tiny(`{"type":"Sequence","normalizers":[{"type":"NFC"},{"type":"BertNormalizer"}]}`,
			"null", "null", "null", tinyModel)}, `tokenizer.json: normalizer.normalizers[1]: unsupported type "BertNormalizer"`},
		{"unknown pre-tokenizer", map[string]string{"tokenizer.json": tiny("null",
			`{"type":"Sequence","pretokenizers":[{"type":"Digits"},{"type":"UnicodeScripts"}]}`, "null", "null", tinyModel)},
			`tokenizer.json: pre_tokenizer.pretokenizers[1]: unsupported type "UnicodeScripts"`},
		{"unknown post-processor", map[string]string{"tokenizer.json": tiny("null", "null", `{"type":"Fancy"}`, "null", tinyModel)},
			`tokenizer.json: post_processor: unsupported type "Fancy"`},
		{"unknown decoder", map[string]string{"tokenizer.json": tiny("null", "null", "null", `{"type":"Sequence","decoders":[{"type":"CTC"}]}`, tinyModel)},
			`tokenizer.json: decoder.decoders[0]: unsupported type "CTC"`},
		{"missing type", map[string]string{"tokenizer.json": tiny(`{"lowercase":true}`, "null", "null", "null", tinyModel)},
			`tokenizer.json: normalizer: missing "type"`},
		{"unknown split behavior", map[string]string{"tokenizer.json": tiny("null",
			`{"type":"Split","pattern":{"String":" "},"behavior":"Sideways","invert":false}`, "null", "null", tinyModel)},
			`tokenizer.json: pre_tokenizer.behavior: unknown behavior "Sideways"`},
		{"regex that does not compile", map[string]string{"tokenizer.json": tiny("null",
			`{"type":"Split","pattern":{"Regex":"(unclosed"},"behavior":"Isolated","invert":false}`, "null", "null", tinyModel)},
			`tokenizer.json: pre_tokenizer.pattern.Regex: cannot compile "(unclosed"`},
		{"pattern of neither kind", map[string]string{"tokenizer.json": tiny(`{"type":"Replace","pattern":{},"content":""}`, "null", "null", "null", tinyModel)},
			`tokenizer.json: normalizer.pattern: want {"String": ...} or {"Regex": ...}`},
		{"template naming a missing special token", map[string]string{"tokenizer.json": tiny("null", "null",
			`{"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"<s>","type_id":0}},{"Sequence":{"id":"A","type_id":0}}],"special_tokens":{}}`, "null", tinyModel)},
			`tokenizer.json: post_processor.single[0]: special token "<s>" is missing from post_processor.special_tokens`},
		{"merge of an unknown token", map[string]string{"tokenizer.json": tiny("null", "null", "null", "null",
			`{"type":"BPE","vocab":{"a":0,"b":1,"ab":2},"merges":["a b","a z"]}`)},
			`tokenizer.json: model.merges[1]: merge "a" "z": token "z" is not in the vocabulary`},
		{"merge into an unknown token", map[string]string{"tokenizer.json": tiny("null", "null", "null", "null",
			`{"type":"BPE","vocab":{"a":0,"b":1},"merges":[["a","b"]]}`)},
			`tokenizer.json: model.merges[0]: merge "a" "b": the merged token "ab" is not in the vocabulary`},
		{"malformed merge", map[string]string{"tokenizer.json": tiny("null", "null", "null", "null",
			`{"type":"BPE","vocab":{"a":0,"b":1,"ab":2},"merges":["a b c"]}`)},
			`tokenizer.json: model.merges[0]: "a b c": want two tokens separated by one space`},
		{"merge pair of three", map[string]string{"tokenizer.json": tiny("null", "null", "null", "null",
			`{"type":"BPE","vocab":{"a":0,"b":1,"ab":2},"merges":[["a","b"],["a","b","c"]]}`)},
			`tokenizer.json: model.merges[1]: want a pair of tokens, got 3`},
		{"merges of mixed forms", map[string]string{"tokenizer.json": tiny("null", "null", "null", "null",
			`{"type":"BPE","vocab":{"a":0,"b":1,"ab":2},"merges":["a b",["a","b"]]}`)},
			`tokenizer.json: model.merges: mixes "a b" strings and ["a", "b"] pairs`},
		{"merge of another JSON type", map[string]string{"tokenizer.json": tiny("null", "null", "null", "null",
			`{"type":"BPE","vocab":{"a":0,"b":1,"ab":2},"merges":["a b",7]}`)},
			`tokenizer.json: model.merges[1]: want "a b" or ["a", "b"], got 7`},
		{"unk token outside the vocabulary", map[string]string{"tokenizer.json": tiny("null", "null", "null", "null",
			`{"type":"BPE","unk_token":"<unk>","vocab":{"a":0},"merges":[]}`)},
			`tokenizer.json: model.unk_token "<unk>" is not in the vocabulary`},
		{"added token without content", map[string]string{"tokenizer.json": `{"added_tokens":[{"id":3}],"model":` + tinyModel + `}`},
			`tokenizer.json: added_tokens[0]: want an "id" (>= 0) and a "content"`},
		{"bad tokenizer_config.json", map[string]string{"tokenizer.json": tiny("null", "null", "null", "null", tinyModel),
			"tokenizer_config.json": `{"bos_token": [1]}`}, `tokenizer_config.json: bos_token: want a string, null or {"content": ...}`},
		{"tokenizer_config.json syntax", map[string]string{"tokenizer.json": tiny("null", "null", "null", "null", tinyModel),
			"tokenizer_config.json": "{\n\"eos_token\": \"b\",,\n}"}, "tokenizer_config.json:2:18: invalid JSON"},
		{"config.json id of the wrong type", map[string]string{"tokenizer.json": tiny("null", "null", "null", "null", tinyModel),
			"config.json": `{"bos_token_id": "zero"}`}, `config.json: bos_token_id: want a token id or a list of ids, got "zero"`},
		{"config.json id outside the vocabulary", map[string]string{"tokenizer.json": tiny("null", "null", "null", "null", tinyModel),
			"config.json": `{"eos_token_id": 99}`}, "config.json: eos_token_id 99 is not a token id of this tokenizer"},
		{"merges.txt with a bad line", map[string]string{"vocab.json": `{"a":0,"b":1,"ab":2}`, "merges.txt": "#version: 0.2\na b\na b c\n"},
			`merges.txt:3: "a b c": want two tokens separated by a space`},
		{"merges.txt naming an unknown token", map[string]string{"vocab.json": `{"a":0,"b":1,"ab":2}`, "merges.txt": "#version: 0.2\na b\nb q\n"},
			`merges.txt:3: merge "b" "q": token "q" is not in the vocabulary`},
		{"vocab.json syntax", map[string]string{"vocab.json": "{\"a\": 0\n\"b\": 1}", "merges.txt": ""}, "vocab.json:2:1: invalid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := folder(t, tt.files)
			_, err := tokenizer.Load(dir)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.Contains(t, err.Error(), dir, "the error names the folder")
		})
	}
}

func TestLoadMissingFolder(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	_, err := tokenizer.Load(missing)
	require.Error(t, err)
	assert.Contains(t, err.Error(), missing)

	file := filepath.Join(folder(t, map[string]string{"x": ""}), "x")
	_, err = tokenizer.Load(file)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is not a directory")
}
