package hub

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func listing(paths ...string) []File {
	out := make([]File, len(paths))
	for i, p := range paths {
		out[i] = File{Path: p, Size: int64(i + 1), ETag: "e" + p}
	}
	return out
}

// base is what every case's repository has at its root besides ONNX files.
var base = []string{".gitattributes", "README.md", "config.json", "generation_config.json", "model.safetensors",
	"special_tokens_map.json", "tokenizer.json", "tokenizer_config.json"}

const baseWant = "config.json generation_config.json special_tokens_map.json tokenizer.json tokenizer_config.json"

func TestSelectVariant(t *testing.T) {
	jsLayout := []string{
		"onnx/model.onnx", "onnx/model.onnx_data",
		"onnx/model_fp16.onnx", "onnx/model_fp16.onnx_data",
		"onnx/model_q4.onnx", "onnx/model_q4f16.onnx",
		"onnx/model_quantized.onnx", "onnx/model_int8.onnx", "onnx/model_uint8.onnx", "onnx/model_bnb4.onnx",
	}
	tests := []struct {
		name    string
		onnx    []string
		variant string
		want    string // selected ONNX and external data files, space-separated
	}{
		{"default is the unsuffixed file and its data", jsLayout, "", "onnx/model.onnx onnx/model.onnx_data"},
		{"fp32 names the unsuffixed file", jsLayout, "fp32", "onnx/model.onnx onnx/model.onnx_data"},
		{"fp16 with its own data", jsLayout, "fp16", "onnx/model_fp16.onnx onnx/model_fp16.onnx_data"},
		{"q4, no data", jsLayout, "q4", "onnx/model_q4.onnx"},
		{"q4f16 is not q4's data", jsLayout, "q4f16", "onnx/model_q4f16.onnx"},
		{"quantized", jsLayout, "quantized", "onnx/model_quantized.onnx"},
		{"int8", jsLayout, "int8", "onnx/model_int8.onnx"},
		{"root model.onnx comes before onnx/model.onnx", []string{"model.onnx", "onnx/model.onnx"}, "", "model.onnx"},
		{"optimum's merged decoder, .onnx_data", []string{"decoder_model.onnx", "decoder_with_past_model.onnx", "decoder_model_merged.onnx", "decoder_model_merged.onnx_data"}, "",
			"decoder_model_merged.onnx decoder_model_merged.onnx_data"},
		{"model.onnx before the merged decoder", []string{"decoder_model_merged.onnx", "model.onnx"}, "", "model.onnx"},
		{"merged decoder under onnx/, quantized", []string{"onnx/decoder_model_merged.onnx", "onnx/decoder_model_merged_quantized.onnx"}, "quantized", "onnx/decoder_model_merged_quantized.onnx"},
		{"torch's .onnx.data", []string{"model.onnx", "model.onnx.data"}, "", "model.onnx model.onnx.data"},
		{"numbered shards", []string{"onnx/model.onnx", "onnx/model.onnx_data", "onnx/model.onnx_data_1", "onnx/model.onnx_data_2", "onnx/model.onnx_data_x"}, "",
			"onnx/model.onnx onnx/model.onnx_data onnx/model.onnx_data_1 onnx/model.onnx_data_2"},
		{"data in another folder is not this file's", []string{"onnx/model.onnx", "model.onnx_data"}, "", "onnx/model.onnx"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := selectFiles(listing(append(append([]string{}, base...), tt.onnx...)...), tt.variant)
			require.NoError(t, err)
			var names []string
			for _, f := range got {
				names = append(names, f.Path)
			}
			assert.Equal(t, sortedCopy(strings.Fields(baseWant+" "+tt.want)), sortedCopy(names))
		})
	}
}

func TestSelectOtherFiles(t *testing.T) {
	tests := []struct {
		name  string
		files []string
		want  []string
	}{
		{"slow tokenizer files only without tokenizer.json",
			[]string{"config.json", "vocab.json", "merges.txt", "added_tokens.json", "model.onnx"},
			[]string{"config.json", "vocab.json", "merges.txt", "added_tokens.json", "model.onnx"}},
		{"tokenizer.json makes the slow files unneeded",
			[]string{"config.json", "tokenizer.json", "vocab.json", "merges.txt", "model.onnx"},
			[]string{"config.json", "tokenizer.json", "model.onnx"}},
		{"chat templates",
			[]string{"additional_chat_templates/tool_use.jinja", "additional_chat_templates/notes.txt", "chat_template.jinja", "chat_template.json", "config.json", "tokenizer.json", "onnx/model.onnx", "onnx/tokenizer.json"},
			[]string{"additional_chat_templates/tool_use.jinja", "chat_template.jinja", "chat_template.json", "config.json", "tokenizer.json", "onnx/model.onnx"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := selectFiles(listing(tt.files...), "")
			require.NoError(t, err)
			var names []string
			for _, f := range got {
				names = append(names, f.Path)
			}
			assert.Equal(t, tt.want, names, "listing order kept")
		})
	}
}

func TestSelectErrors(t *testing.T) {
	tests := []struct {
		name    string
		files   []string
		variant string
		want    string
	}{
		{"no config", []string{"tokenizer.json", "model.onnx"}, "", "no config.json at the repository's root; it is not a model export the onnx backend can open"},
		{"no tokenizer", []string{"config.json", "vocab.json", "model.onnx"}, "", "no tokenizer.json (nor vocab.json with merges.txt) at the repository's root; the onnx backend needs the tokenizer"},
		{"no ONNX, no checkpoint", []string{"config.json", "tokenizer.json", "onnx/encoder_model.onnx", "model.gguf", "tf_model.h5"}, "",
			"no ONNX decoder file (looked for model.onnx, onnx/model.onnx, decoder_model_merged.onnx, onnx/decoder_model_merged.onnx) and no safetensors checkpoint (model.safetensors or model.safetensors.index.json); pick a repository that has either, such as one from onnx-community or the model's own"},
		{"pickles only", []string{"config.json", "tokenizer.json", "pytorch_model-00001-of-00002.bin", "pytorch_model-00002-of-00002.bin", "pytorch_model.bin.index.json", "training_args.bin"}, "",
			"the repository has its weights only as PyTorch pickles (pytorch_model-00001-of-00002.bin, pytorch_model-00002-of-00002.bin), and feather never loads pickles: unpickling an untrusted file can run any code. " +
				"Pull a revision that has model.safetensors (the Hub's safetensors conversion bot opens one as a pull request: ORG/NAME@refs/pr/N), or one with an onnx/ folder"},
		{"a variant of a checkpoint", []string{"config.json", "tokenizer.json", "model.safetensors"}, "q4",
			`no ONNX files, so no q4 variant: the repository is a safetensors checkpoint, which runs without a variant (in float32, or float16 with a catalog entry's "dtype")`},
		{"only variants", []string{"config.json", "tokenizer.json", "onnx/model_q4.onnx", "onnx/model_fp16.onnx"}, "",
			"no fp32 variant (looked for model.onnx, onnx/model.onnx, decoder_model_merged.onnx, onnx/decoder_model_merged.onnx); it has onnx/model_fp16.onnx (fp16), onnx/model_q4.onnx (q4). Choose one (--variant, or a catalog entry's \"variant\") of: fp16, q4"},
		{"bad variant", []string{"config.json"}, "q4-f16", `variant "q4-f16" is not a file-name suffix such as quantized, fp16, int8, q4 or q4f16 (or fp32 for the unsuffixed file)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := selectFiles(listing(tt.files...), tt.variant)
			assert.EqualError(t, err, tt.want)
		})
	}
}

// A repository without an ONNX decoder of the variant is pulled as a
// Hugging Face checkpoint: its safetensors weights (one file, or the
// index and its shards), never another copy of the weights (pickles,
// GGUF, TensorFlow, Flax, other ONNX files).
func TestSelectCheckpoint(t *testing.T) {
	common := []string{".gitattributes", "README.md", "config.json", "generation_config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"}
	const commonWant = "config.json generation_config.json special_tokens_map.json tokenizer.json tokenizer_config.json"
	tests := []struct {
		name    string
		files   []string
		variant string
		want    string
	}{
		{"one file, duplicates skipped",
			[]string{"model.safetensors", "pytorch_model.bin", "model.gguf", "SmolLM2-135M.Q8_0.gguf", "consolidated.pth", "tf_model.h5", "flax_model.msgpack", "onnx/encoder_model.onnx"}, "",
			"model.safetensors"},
		{"sharded",
			[]string{"model.safetensors.index.json", "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors", "pytorch_model.bin.index.json", "pytorch_model-00001-of-00002.bin", "pytorch_model-00002-of-00002.bin"}, "",
			"model.safetensors.index.json model-00001-of-00002.safetensors model-00002-of-00002.safetensors"},
		{"the single file wins over an index", []string{"model.safetensors", "model.safetensors.index.json", "model-00001-of-00002.safetensors"}, "", "model.safetensors"},
		{"fp32 is the checkpoint when only quantized ONNX files are there", []string{"model.safetensors", "onnx/model_q4.onnx"}, "fp32", "model.safetensors"},
		{"an ONNX decoder wins over the checkpoint", []string{"model.safetensors", "onnx/model.onnx"}, "", "onnx/model.onnx"},
		{"a variant is an ONNX file", []string{"model.safetensors", "onnx/model.onnx", "onnx/model_q4.onnx"}, "q4", "onnx/model_q4.onnx"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := selectFiles(listing(append(append([]string{}, common...), tt.files...)...), tt.variant)
			require.NoError(t, err)
			var names []string
			for _, f := range got {
				names = append(names, f.Path)
			}
			assert.Equal(t, sortedCopy(strings.Fields(commonWant+" "+tt.want)), sortedCopy(names))
		})
	}
}
