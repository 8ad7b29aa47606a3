package gguf_test

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/checkpoint"
	"github.com/feather-eval/feather/harness/backends/llamacpp/gguf"
	"github.com/feather-eval/feather/harness/backends/onnx/decoder"
)

// gemma3Config is a small Gemma 3 with GPT-2's vocabulary (6 layers, the
// last of them global, 4 heads of 16, 2 key/value heads), changed by
// edit.
func gemma3Config(edit func(map[string]any)) map[string]any {
	cfg := map[string]any{
		"model_type": "gemma3_text", "vocab_size": 50257, "hidden_size": 64, "num_hidden_layers": 6,
		"num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "intermediate_size": 128,
		"max_position_embeddings": 4096, "rms_norm_eps": 1e-6, "query_pre_attn_scalar": 16, "sliding_window": 8,
		"rope_theta": 1e6, "rope_local_base_freq": 10000.0, "tie_word_embeddings": true,
	}
	if edit != nil {
		edit(cfg)
	}
	return cfg
}

func gemma3Checkpoint(t *testing.T, cfg map[string]any) *checkpoint.Checkpoint {
	t.Helper()
	a, c, err := decoder.FromConfig(cfg)
	require.NoError(t, err)
	c.Seed = 5
	return checkpoint.FromWeights(a, cfg, decoder.Weights(a, c))
}

func convertGemma3(t *testing.T, cfg map[string]any, ft gguf.FileType) (*checkpoint.Checkpoint, *gguf.File, []byte) {
	t.Helper()
	c := gemma3Checkpoint(t, cfg)
	f, data := convertCheckpoint(t, c, ft)
	return c, f, data
}

// Gemma 3's tensors under llama.cpp's names: its four norms a block
// (post_attention_norm, ffn_norm before the MLP, post_ffw_norm after it)
// and the query and key head norms; a tied model has no output tensor.
func TestConvertedGemma3Tensors(t *testing.T) {
	_, f, _ := convertGemma3(t, gemma3Config(nil), gguf.MostlyQ8_0)
	want := []info{{"token_embd.weight", []int64{64, 50257}, gguf.Q8_0}}
	for i := 0; i < 6; i++ {
		for _, b := range []info{
			{"blk.%d.attn_k.weight", []int64{64, 32}, gguf.Q8_0},
			{"blk.%d.attn_k_norm.weight", []int64{16}, gguf.F32},
			{"blk.%d.attn_norm.weight", []int64{64}, gguf.F32},
			{"blk.%d.attn_output.weight", []int64{64, 64}, gguf.Q8_0},
			{"blk.%d.attn_q.weight", []int64{64, 64}, gguf.Q8_0},
			{"blk.%d.attn_q_norm.weight", []int64{16}, gguf.F32},
			{"blk.%d.attn_v.weight", []int64{64, 32}, gguf.Q8_0},
			{"blk.%d.ffn_down.weight", []int64{128, 64}, gguf.Q8_0},
			{"blk.%d.ffn_gate.weight", []int64{64, 128}, gguf.Q8_0},
			{"blk.%d.ffn_norm.weight", []int64{64}, gguf.F32},
			{"blk.%d.ffn_up.weight", []int64{64, 128}, gguf.Q8_0},
			{"blk.%d.post_attention_norm.weight", []int64{64}, gguf.F32},
			{"blk.%d.post_ffw_norm.weight", []int64{64}, gguf.F32},
		} {
			want = append(want, info{fmt.Sprintf(b.name, i), b.dims, b.typ})
		}
	}
	want = append(want, info{"output_norm.weight", []int64{64}, gguf.F32})
	byName := func(x, y info) int { return strings.Compare(x.name, y.name) }
	got := infos(f)
	slices.SortFunc(want, byName)
	slices.SortFunc(got, byName)
	assert.Equal(t, want, got, "in any order within a block")

	_, untied, _ := convertGemma3(t, gemma3Config(func(c map[string]any) { c["tie_word_embeddings"] = false }), gguf.MostlyQ8_0)
	assert.Equal(t, info{"output.weight", []int64{64, 50257}, gguf.Q8_0}, infos(untied)[len(want)], "an untied head comes last")
}

// Every Gemma RMSNorm weight w (which scales by 1 + w) is written as the
// scale 1 + w; projections are written as they are, unpermuted.
func TestConvertedGemma3Norms(t *testing.T) {
	c, f, data := convertGemma3(t, gemma3Config(nil), gguf.AllF32)
	tensor := func(name string) []float32 {
		v, err := f.ReadTensor(bytes.NewReader(data), name)
		require.NoError(t, err)
		return v
	}
	for hf, g := range map[string]string{
		"model.layers.2.input_layernorm.weight":            "blk.2.attn_norm.weight",
		"model.layers.2.post_attention_layernorm.weight":   "blk.2.post_attention_norm.weight",
		"model.layers.2.pre_feedforward_layernorm.weight":  "blk.2.ffn_norm.weight",
		"model.layers.2.post_feedforward_layernorm.weight": "blk.2.post_ffw_norm.weight",
		"model.layers.2.self_attn.q_norm.weight":           "blk.2.attn_q_norm.weight",
		"model.layers.2.self_attn.k_norm.weight":           "blk.2.attn_k_norm.weight",
		"model.norm.weight":                                "output_norm.weight",
	} {
		w := c.Tensors[hf].Data
		want := make([]float32, len(w))
		for i, v := range w {
			want[i] = v + 1
		}
		assert.Equal(t, want, tensor(g), hf)
		assert.NotEqual(t, w, tensor(g), "%s is drawn away from 0", hf)
	}
	assert.Equal(t, c.Tensors["model.layers.2.self_attn.q_proj.weight"].Data, tensor("blk.2.attn_q.weight"))
}

// The keys llama.cpp's gemma3 loader reads: head sizes always; the window
// and the sliding layers' RoPE base when a layer slides; linear RoPE
// scaling when the checkpoint has it.
func TestConvertedGemma3Metadata(t *testing.T) {
	base := []gguf.KV{
		{"gemma3.block_count", uint32(6)}, {"gemma3.context_length", uint32(4096)}, {"gemma3.embedding_length", uint32(64)},
		{"gemma3.feed_forward_length", uint32(128)}, {"gemma3.attention.head_count", uint32(4)}, {"gemma3.attention.head_count_kv", uint32(2)},
		{"gemma3.rope.freq_base", float32(1e6)}, {"gemma3.attention.layer_norm_rms_epsilon", float32(1e-6)},
		{"gemma3.attention.key_length", uint32(16)}, {"gemma3.attention.value_length", uint32(16)},
	}
	sliding := []gguf.KV{{"gemma3.attention.sliding_window", uint32(8)}, {"gemma3.rope.freq_base_swa", float32(10000)}}
	linear := []gguf.KV{{"gemma3.rope.scaling.type", "linear"}, {"gemma3.rope.scaling.factor", float32(8)}}
	allFull := func(c map[string]any) {
		c["layer_types"] = []any{"full_attention", "full_attention", "full_attention", "full_attention", "full_attention", "full_attention"}
	}
	tests := []struct {
		name string
		edit func(map[string]any)
		want []gguf.KV
	}{
		{"sliding", nil, append(append([]gguf.KV{}, base...), sliding...)},
		{"no layer slides", allFull, base},
		{"linear rope", func(c map[string]any) { c["rope_scaling"] = map[string]any{"rope_type": "linear", "factor": 8.0} },
			append(append(append([]gguf.KV{}, base...), sliding...), linear...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, f, _ := convertGemma3(t, gemma3Config(tt.edit), gguf.MostlyQ8_0)
			arch, err := f.Architecture()
			require.NoError(t, err)
			assert.Equal(t, "gemma3", arch)
			assert.Equal(t, tt.want, f.KV[3:3+len(tt.want)])
			assert.Equal(t, "general.file_type", f.KV[3+len(tt.want)].Key, "and nothing else of the model's")
		})
	}
}

// What llama.cpp would run otherwise than transformers is refused, with
// the config.json field and the value that converts.
func TestConvertGemma3Refusals(t *testing.T) {
	v, err := gpt2Vocab()
	require.NoError(t, err)
	tests := []struct {
		name string
		edit func(map[string]any)
		want string
	}{
		{"attention scale", func(c map[string]any) { c["query_pre_attn_scalar"] = 256 },
			"checkpoint (gemma3_text): query_pre_attn_scalar is 256, but llama.cpp scales a 6-layer Gemma 3's queries by 16^-½ whatever it says; only query_pre_attn_scalar 16 converts"},
		{"layer pattern", func(c map[string]any) { c["sliding_window_pattern"] = 2 },
			"checkpoint (gemma3_text): layer_types: layer 1 is full_attention, but llama.cpp slides every layer but each 6th (layers 5, 11, … attend globally); only that pattern converts"},
		{"local rope base", func(c map[string]any) { c["rope_local_base_freq"] = 20000.0 },
			"checkpoint (gemma3_text): rope_local_base_freq is 20000, but llama.cpp gives sliding layers a RoPE base of 10000; only that converts"},
		{"attention biases", func(c map[string]any) { c["attention_bias"] = true },
			"checkpoint (gemma3_text): attention_bias: true is not converted (llama.cpp's gemma3 has no attention biases)"},
		{"scaled rope other than linear", func(c map[string]any) {
			c["rope_scaling"] = map[string]any{"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}
		}, "config.json: rope_parameters: llama3 RoPE scaling is not converted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := gguf.FromCheckpoint(gemma3Checkpoint(t, gemma3Config(tt.edit)), v, gguf.AllF32)
			assert.EqualError(t, err, tt.want)
		})
	}
}
