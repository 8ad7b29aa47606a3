package testmodel_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/onnx/testmodel"
	"github.com/feather-eval/feather/harness/backends/onnx/tokenizer"
)

func readJSON(t *testing.T, dir, name string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	require.NoError(t, err)
	var v map[string]any
	require.NoError(t, json.Unmarshal(data, &v), name)
	return v
}

func TestConfigFilesUseHuggingFaceFields(t *testing.T) {
	llama := build(t, testmodel.Config{Arch: testmodel.Llama, Vocab: 600, Hidden: 96, Layers: 3, Heads: 6, KVHeads: 2, Intermediate: 200,
		MaxPositions: 512, RopeTheta: 500000, NormEps: 1e-6, ChatTemplate: testmodel.ChatML, EOSIDs: []int{testmodel.IMEndID, testmodel.EOSID}, Name: "tiny-chat"})
	cfg := readJSON(t, llama.Dir, "config.json")
	for k, want := range map[string]any{
		"model_type": "llama", "architectures": []any{"LlamaForCausalLM"},
		"num_hidden_layers": 3.0, "num_attention_heads": 6.0, "num_key_value_heads": 2.0, "hidden_size": 96.0, "head_dim": 16.0,
		"intermediate_size": 200.0, "max_position_embeddings": 512.0, "vocab_size": 600.0, "rope_theta": 500000.0, "rms_norm_eps": 1e-6,
		"bos_token_id": 1.0, "eos_token_id": 3.0, "pad_token_id": 0.0, "tie_word_embeddings": false, "torch_dtype": "float32",
		"use_cache": true, "hidden_act": "silu", "_name_or_path": "tiny-chat",
	} {
		assert.Equalf(t, want, cfg[k], "config.json %s", k)
	}
	gen := readJSON(t, llama.Dir, "generation_config.json")
	assert.Equal(t, []any{3.0, 0.0}, gen["eos_token_id"], "a list when there are several")
	assert.Equal(t, 1.0, gen["bos_token_id"])
	tc := readJSON(t, llama.Dir, "tokenizer_config.json")
	assert.Equal(t, testmodel.ChatML, tc["chat_template"])
	assert.Equal(t, "<|begin_of_text|>", tc["bos_token"])
	assert.Equal(t, "<|endoftext|>", tc["eos_token"])
	assert.Equal(t, 512.0, tc["model_max_length"])
	assert.Equal(t, map[string]any{"content": "<|im_end|>", "lstrip": false, "normalized": false, "rstrip": false, "single_word": false, "special": true},
		tc["added_tokens_decoder"].(map[string]any)["3"])
	raw, err := os.ReadFile(filepath.Join(llama.Dir, "tokenizer_config.json"))
	require.NoError(t, err)
	assert.Contains(t, string(raw), `"<|im_start|>"`, "no HTML escaping of special tokens")

	gpt2 := build(t, testmodel.Config{Arch: testmodel.GPT2, TiedEmbeddings: true, FP16: true, ExternalData: true})
	cfg = readJSON(t, gpt2.Dir, "config.json")
	for k, want := range map[string]any{
		"model_type": "gpt2", "architectures": []any{"GPT2LMHeadModel"}, "n_layer": 2.0, "n_head": 4.0, "n_embd": 64.0, "n_inner": 256.0,
		"n_positions": 1024.0, "vocab_size": 512.0, "activation_function": "gelu", "layer_norm_epsilon": 1e-5, "tie_word_embeddings": true,
		"eos_token_id": 0.0, "torch_dtype": "float16",
		"transformers.js_config": map[string]any{"use_external_data_format": true, "kv_cache_dtype": map[string]any{"fp32": "float16"}},
	} {
		assert.Equalf(t, want, cfg[k], "config.json %s", k)
	}
	assert.Equal(t, 0.0, readJSON(t, gpt2.Dir, "generation_config.json")["eos_token_id"], "a single id stays a number")
	_, hasTemplate := readJSON(t, gpt2.Dir, "tokenizer_config.json")["chat_template"]
	assert.False(t, hasTemplate)
}

func TestTokenizerJSON(t *testing.T) {
	m := build(t, testmodel.Config{Vocab: 1000})
	tj := readJSON(t, m.Dir, "tokenizer.json")
	model := tj["model"].(map[string]any)
	assert.Equal(t, "BPE", model["type"])
	assert.Equal(t, map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true}, tj["pre_tokenizer"])
	assert.Equal(t, "TemplateProcessing", tj["post_processor"].(map[string]any)["type"])
	vocab := model["vocab"].(map[string]any)
	require.Len(t, vocab, 1000)
	seen := make([]bool, 1000)
	for tok, id := range vocab {
		i := int(id.(float64))
		require.Falsef(t, seen[i], "id %d used twice (%q)", i, tok)
		seen[i] = true
	}
	merges := model["merges"].([]any)
	require.Len(t, merges, 1000-testmodel.MinVocab)
	for _, mg := range merges {
		parts := strings.Split(mg.(string), " ")
		require.Len(t, parts, 2)
		for _, p := range append(parts, parts[0]+parts[1]) {
			_, ok := vocab[p]
			require.Truef(t, ok, "merge %q uses %q, which is not in the vocabulary", mg, p)
		}
	}
	var added []string
	for _, a := range tj["added_tokens"].([]any) {
		added = append(added, a.(map[string]any)["content"].(string))
	}
	assert.Equal(t, []string{"<|endoftext|>", "<|begin_of_text|>", "<|im_start|>", "<|im_end|>"}, added)
}

// The tokenizer loads in our Hugging Face-compatible tokenizer package.
func TestTokenizerRoundTrips(t *testing.T) {
	for _, size := range []int{testmodel.MinVocab, 2048, 32000} {
		m := build(t, testmodel.Config{Vocab: size, Hidden: 16, Heads: 2, Layers: 1})
		tok, err := tokenizer.Load(m.Dir)
		require.NoError(t, err)
		tj := readJSON(t, m.Dir, "tokenizer.json")
		vocab := tj["model"].(map[string]any)["vocab"].(map[string]any)
		id := func(s string) int { return int(vocab[s].(float64)) }

		for _, text := range []string{
			"The river runs past the old mill.",
			"Question: What is 2 + 3? Answer: B",
			"Ünïcödé, emoji 🙂 and tabs\tnewlines\n  spaces",
			"<|im_start|>user\nhello<|im_end|>\n",
		} {
			ids := tok.Encode(text, true)
			require.Equal(t, testmodel.BOSID, ids[0], "BOS is added")
			for _, i := range ids {
				require.Less(t, i, size)
			}
			assert.Equal(t, text, tok.Decode(ids[1:], false), "size %d", size)
		}
		// Special tokens in text are single ids.
		assert.Equal(t, []int{testmodel.IMStartID}, tok.Encode("<|im_start|>", false))
		if size >= 2048 {
			// Frequent corpus words are single tokens.
			assert.Equal(t, []int{testmodel.BOSID, id("The"), id("Ġriver"), id("Ġruns")}, tok.Encode("The river runs", true))
			assert.Equal(t, []int{id("Question"), id(":")}, tok.Encode("Question:", false))
		} else {
			// Bytes only: one token per byte, byte b at id 4+b.
			assert.Equal(t, []int{4 + 'H', 4 + 'i'}, tok.Encode("Hi", false))
		}
	}
}

func hashFolder(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		sum := sha256.Sum256(data)
		out[filepath.ToSlash(rel)] = hex.EncodeToString(sum[:])
		return nil
	}))
	return out
}

func TestBuildsAreByteIdentical(t *testing.T) {
	for _, cfg := range []testmodel.Config{
		{Arch: testmodel.GPT2, TiedEmbeddings: true, Variants: []string{"fp16", "quantized"}, ExternalData: true},
		{KVHeads: 2, Layout: testmodel.LayoutMerged, ChatTemplate: testmodel.ChatML},
	} {
		a, b := build(t, cfg), build(t, cfg)
		ha, hb := hashFolder(t, a.Dir), hashFolder(t, b.Dir)
		assert.Equal(t, ha, hb)
		assert.GreaterOrEqual(t, len(ha), 6)
	}
	// The seed changes the weights and nothing else.
	a := build(t, testmodel.Config{Seed: 1})
	b := build(t, testmodel.Config{Seed: 2})
	ha, hb := hashFolder(t, a.Dir), hashFolder(t, b.Dir)
	assert.NotEqual(t, ha["onnx/model.onnx"], hb["onnx/model.onnx"])
	assert.Equal(t, ha["tokenizer.json"], hb["tokenizer.json"])
}

func TestParamCount(t *testing.T) {
	// Llama, vocab 512, d 64, 2 layers, 4 heads / 2 KV heads of 16, MLP 176.
	untied := build(t, testmodel.Config{KVHeads: 2})
	perLayer := int64(64 + 64*64 + 2*64*32 + 64*64 + 64 + 3*64*176)
	assert.Equal(t, 512*64+2*perLayer+64+64*512, untied.ParamCount())
	tied := build(t, testmodel.Config{KVHeads: 2, TiedEmbeddings: true})
	assert.Equal(t, untied.ParamCount()-64*512, tied.ParamCount())
	gpt2 := build(t, testmodel.Config{Arch: testmodel.GPT2, TiedEmbeddings: true})
	gLayer := int64(2*64 + 64*192 + 192 + 64*64 + 64 + 2*64 + 64*256 + 256 + 256*64 + 64)
	assert.Equal(t, 512*64+1024*64+2*gLayer+2*64, gpt2.ParamCount())
}

func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		cfg  testmodel.Config
		want string
	}{
		{testmodel.Config{Arch: "mamba"}, `testmodel: Arch "mamba" is not a known architecture; use "gpt2" or "llama"`},
		{testmodel.Config{Vocab: 100}, "testmodel: Vocab 100 is below 260, the special tokens plus the 256 byte tokens"},
		{testmodel.Config{Heads: 4, KVHeads: 3}, "testmodel: Heads 4 is not a multiple of KVHeads 3; grouped-query attention shares each KV head among Heads/KVHeads query heads"},
		{testmodel.Config{Arch: testmodel.GPT2, KVHeads: 2}, "testmodel: GPT-2 has no grouped-query attention; leave KVHeads 0 or set it to Heads (4)"},
		{testmodel.Config{HeadDim: 15}, "testmodel: HeadDim 15 must be even for RoPE"},
		{testmodel.Config{Layout: "../model.onnx"}, `testmodel: Layout "../model.onnx" must be a relative path to a .onnx file such as "onnx/model.onnx", "model.onnx" or "decoder_model_merged.onnx"`},
		{testmodel.Config{Layout: testmodel.LayoutMerged, NoPast: true}, `testmodel: Layout "decoder_model_merged.onnx" is the merged decoder, which has a cache by definition; drop NoPast`},
		{testmodel.Config{Variants: []string{"q2"}}, `testmodel: unknown variant "q2"; known variants are fp16, int8, uint8, quantized, q4, q4f16, bnb4`},
		{testmodel.Config{LogitsToKeep: "keep"}, `testmodel: LogitsToKeep "keep" is not an input exports have; use "num_logits_to_keep" or "logits_to_keep"`},
		{testmodel.Config{EOSIDs: []int{512}}, "testmodel: EOSIDs entry 512 is outside the vocabulary [0, 512)"},
		{testmodel.Config{Arch: testmodel.GPT2, GroupQueryAttention: true}, `testmodel: GroupQueryAttention needs Arch "llama" with a cache in an unmerged file (as the exports that use it are)`},
		{testmodel.Config{GroupQueryAttention: true, NoPast: true}, `testmodel: GroupQueryAttention needs Arch "llama" with a cache in an unmerged file (as the exports that use it are)`},
		{testmodel.Config{Family: "mistral"}, `testmodel: Family "mistral" is not a Llama-shaped family this package writes; use one of qwen3, gemma3_text, phi3`},
	} {
		_, err := testmodel.Build(filepath.Join(t.TempDir(), "m"), tc.cfg)
		assert.EqualError(t, err, tc.want)
	}
}

func TestBuildNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644))
	_, err := testmodel.Build(dir, testmodel.Config{})
	assert.EqualError(t, err, "testmodel: "+dir+" is not empty; build into a new folder so no existing file is overwritten")
	data, err := os.ReadFile(filepath.Join(dir, "notes.txt"))
	require.NoError(t, err)
	assert.Equal(t, "mine", string(data))
}
