package gguf_test

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/checkpoint"
	"github.com/feather-eval/feather/harness/backends/llamacpp/gguf"
	"github.com/feather-eval/feather/internal/testenv"
)

// gpt2Vocab is the GPT-2 test tokenizer's vocabulary, loaded once.
var gpt2Vocab = sync.OnceValues(func() (*gguf.Vocab, error) { return gguf.LoadVocab(testenv.Tokenizer("gpt2"), "") })

// shapeFor is the small test shape: GPT-2's vocabulary, hidden 64, 2
// layers, 4 heads, 2 key/value heads where the family has GQA.
func shapeFor(arch string) checkpoint.Shape {
	s := checkpoint.Shape{Vocab: 50257, Hidden: 64, Layers: 2, Heads: 4, KVHeads: 2}
	if arch == checkpoint.Qwen2 || arch == checkpoint.GPT2 || arch == checkpoint.GPTNeoX {
		s.KVHeads = 4
	}
	return s
}

// convert draws arch's small model and converts it.
func convert(t *testing.T, arch string, s checkpoint.Shape, ft gguf.FileType) (*checkpoint.Checkpoint, *gguf.File, []byte) {
	t.Helper()
	c, err := checkpoint.Random(arch, s, 11)
	require.NoError(t, err)
	f, data := convertCheckpoint(t, c, ft)
	return c, f, data
}

// convertCheckpoint converts c with GPT-2's vocabulary and reads the file.
func convertCheckpoint(t *testing.T, c *checkpoint.Checkpoint, ft gguf.FileType) (*gguf.File, []byte) {
	t.Helper()
	v, err := gpt2Vocab()
	require.NoError(t, err)
	b, err := gguf.FromCheckpoint(c, v, ft)
	require.NoError(t, err)
	return read(t, b)
}

type info struct {
	name string
	dims []int64 // ggml order
	typ  gguf.Type
}

// Each family's GGUF tensors: llama.cpp's names, ggml dimensions (the
// row length first), and the type the converter stores them in for
// Q8_0: 1-D tensors, norms, biases and position embeddings F32, a matrix
// whose rows are not whole blocks (ffn_down's 176) F16.
func TestConvertedTensors(t *testing.T) {
	const V = 50257
	llama := func(extra ...info) []info {
		return append([]info{
			{"blk.%d.attn_norm.weight", []int64{64}, gguf.F32},
			{"blk.%d.ffn_down.weight", []int64{176, 64}, gguf.F16},
			{"blk.%d.ffn_gate.weight", []int64{64, 176}, gguf.Q8_0},
			{"blk.%d.ffn_up.weight", []int64{64, 176}, gguf.Q8_0},
			{"blk.%d.ffn_norm.weight", []int64{64}, gguf.F32},
		}, extra...)
	}
	tests := []struct {
		arch       string
		top, block []info
		tail       []info
	}{
		{checkpoint.Llama, []info{{"token_embd.weight", []int64{64, V}, gguf.Q8_0}}, llama(
			info{"blk.%d.attn_k.weight", []int64{64, 32}, gguf.Q8_0},
			info{"blk.%d.attn_output.weight", []int64{64, 64}, gguf.Q8_0},
			info{"blk.%d.attn_q.weight", []int64{64, 64}, gguf.Q8_0},
			info{"blk.%d.attn_v.weight", []int64{64, 32}, gguf.Q8_0},
		), []info{{"output_norm.weight", []int64{64}, gguf.F32}, {"output.weight", []int64{64, V}, gguf.Q8_0}}},
		{checkpoint.Qwen2, []info{{"token_embd.weight", []int64{64, V}, gguf.Q8_0}}, llama(
			info{"blk.%d.attn_k.bias", []int64{64}, gguf.F32},
			info{"blk.%d.attn_k.weight", []int64{64, 64}, gguf.Q8_0},
			info{"blk.%d.attn_output.weight", []int64{64, 64}, gguf.Q8_0},
			info{"blk.%d.attn_q.bias", []int64{64}, gguf.F32},
			info{"blk.%d.attn_q.weight", []int64{64, 64}, gguf.Q8_0},
			info{"blk.%d.attn_v.bias", []int64{64}, gguf.F32},
			info{"blk.%d.attn_v.weight", []int64{64, 64}, gguf.Q8_0},
		), []info{{"output_norm.weight", []int64{64}, gguf.F32}, {"output.weight", []int64{64, V}, gguf.Q8_0}}},
		{checkpoint.Qwen3, []info{{"token_embd.weight", []int64{64, V}, gguf.Q8_0}}, llama(
			info{"blk.%d.attn_k_norm.weight", []int64{16}, gguf.F32},
			info{"blk.%d.attn_k.weight", []int64{64, 32}, gguf.Q8_0},
			info{"blk.%d.attn_output.weight", []int64{64, 64}, gguf.Q8_0},
			info{"blk.%d.attn_q_norm.weight", []int64{16}, gguf.F32},
			info{"blk.%d.attn_q.weight", []int64{64, 64}, gguf.Q8_0},
			info{"blk.%d.attn_v.weight", []int64{64, 32}, gguf.Q8_0},
		), []info{{"output_norm.weight", []int64{64}, gguf.F32}, {"output.weight", []int64{64, V}, gguf.Q8_0}}},
		{checkpoint.GPT2, []info{{"token_embd.weight", []int64{64, V}, gguf.Q8_0}, {"position_embd.weight", []int64{64, 1024}, gguf.F32}}, []info{
			{"blk.%d.attn_qkv.bias", []int64{192}, gguf.F32},
			{"blk.%d.attn_qkv.weight", []int64{64, 192}, gguf.Q8_0},
			{"blk.%d.attn_output.bias", []int64{64}, gguf.F32},
			{"blk.%d.attn_output.weight", []int64{64, 64}, gguf.Q8_0},
			{"blk.%d.attn_norm.bias", []int64{64}, gguf.F32},
			{"blk.%d.attn_norm.weight", []int64{64}, gguf.F32},
			{"blk.%d.ffn_norm.bias", []int64{64}, gguf.F32},
			{"blk.%d.ffn_norm.weight", []int64{64}, gguf.F32},
			{"blk.%d.ffn_up.bias", []int64{256}, gguf.F32},
			{"blk.%d.ffn_up.weight", []int64{64, 256}, gguf.Q8_0},
			{"blk.%d.ffn_down.bias", []int64{64}, gguf.F32},
			{"blk.%d.ffn_down.weight", []int64{256, 64}, gguf.Q8_0},
		}, []info{{"output_norm.bias", []int64{64}, gguf.F32}, {"output_norm.weight", []int64{64}, gguf.F32}, {"output.weight", []int64{64, V}, gguf.Q8_0}}},
		{checkpoint.GPTNeoX, []info{{"token_embd.weight", []int64{64, V}, gguf.Q8_0}}, []info{
			{"blk.%d.attn_output.bias", []int64{64}, gguf.F32},
			{"blk.%d.attn_output.weight", []int64{64, 64}, gguf.Q8_0},
			{"blk.%d.attn_qkv.bias", []int64{192}, gguf.F32},
			{"blk.%d.attn_qkv.weight", []int64{64, 192}, gguf.Q8_0},
			{"blk.%d.attn_norm.bias", []int64{64}, gguf.F32},
			{"blk.%d.attn_norm.weight", []int64{64}, gguf.F32},
			{"blk.%d.ffn_down.bias", []int64{64}, gguf.F32},
			{"blk.%d.ffn_down.weight", []int64{256, 64}, gguf.Q8_0},
			{"blk.%d.ffn_up.bias", []int64{256}, gguf.F32},
			{"blk.%d.ffn_up.weight", []int64{64, 256}, gguf.Q8_0},
			{"blk.%d.ffn_norm.bias", []int64{64}, gguf.F32},
			{"blk.%d.ffn_norm.weight", []int64{64}, gguf.F32},
		}, []info{{"output_norm.bias", []int64{64}, gguf.F32}, {"output_norm.weight", []int64{64}, gguf.F32}, {"output.weight", []int64{64, V}, gguf.Q8_0}}},
	}
	for _, tt := range tests {
		t.Run(tt.arch, func(t *testing.T) {
			want := append([]info{}, tt.top...)
			for i := 0; i < 2; i++ {
				for _, b := range tt.block {
					want = append(want, info{fmt.Sprintf(b.name, i), b.dims, b.typ})
				}
			}
			want = append(want, tt.tail...)
			_, f, _ := convert(t, tt.arch, shapeFor(tt.arch), gguf.MostlyQ8_0)
			assert.Equal(t, want, infos(f))

			_, f16, _ := convert(t, tt.arch, shapeFor(tt.arch), gguf.MostlyF16)
			for i, ti := range infos(f16) {
				typ := gguf.F16
				if want[i].typ == gguf.F32 {
					typ = gguf.F32
				}
				assert.Equal(t, info{want[i].name, want[i].dims, typ}, ti, "F16 keeps the F32 tensors F32 and stores the rest F16")
			}
		})
	}
}

func infos(f *gguf.File) []info {
	var out []info
	for _, ti := range f.Tensors {
		out = append(out, info{ti.Name, ti.Dims, ti.Type})
	}
	return out
}

// The hyperparameters each family's loader in llama.cpp reads, with the
// types it insists on.
func TestConvertedMetadata(t *testing.T) {
	// general.name is the model type when config.json has no _name_or_path.
	general := func(arch, name string) []gguf.KV {
		return []gguf.KV{{"general.architecture", arch}, {"general.type", "model"}, {"general.name", name}}
	}
	tail := []gguf.KV{{"general.file_type", uint32(7)}, {"general.quantization_version", uint32(2)}}
	attention := func(arch string, kv uint32, headDim bool) []gguf.KV {
		out := []gguf.KV{
			{arch + ".block_count", uint32(2)}, {arch + ".context_length", uint32(2048)}, {arch + ".embedding_length", uint32(64)},
			{arch + ".feed_forward_length", uint32(176)}, {arch + ".attention.head_count", uint32(4)}, {arch + ".attention.head_count_kv", kv},
			{arch + ".rope.freq_base", float32(10000)}, {arch + ".attention.layer_norm_rms_epsilon", float32(1e-5)},
		}
		if headDim {
			out = append(out, gguf.KV{Key: arch + ".attention.key_length", Value: uint32(16)}, gguf.KV{Key: arch + ".attention.value_length", Value: uint32(16)})
		}
		return out
	}
	tests := []struct {
		arch string
		want []gguf.KV
	}{
		{checkpoint.Llama, append(append(attention("llama", 2, true), gguf.KV{Key: "llama.vocab_size", Value: uint32(50257)}),
			gguf.KV{Key: "llama.rope.dimension_count", Value: uint32(16)})},
		{checkpoint.Qwen2, attention("qwen2", 4, false)},
		{checkpoint.Qwen3, attention("qwen3", 2, true)},
		{checkpoint.GPT2, []gguf.KV{
			{"gpt2.block_count", uint32(2)}, {"gpt2.context_length", uint32(1024)}, {"gpt2.embedding_length", uint32(64)},
			{"gpt2.feed_forward_length", uint32(256)}, {"gpt2.attention.head_count", uint32(4)}, {"gpt2.attention.layer_norm_epsilon", float32(1e-5)},
		}},
		{checkpoint.GPTNeoX, []gguf.KV{
			{"gptneox.context_length", uint32(2048)}, {"gptneox.embedding_length", uint32(64)}, {"gptneox.block_count", uint32(2)},
			{"gptneox.feed_forward_length", uint32(256)}, {"gptneox.rope.dimension_count", uint32(4)}, {"gptneox.attention.head_count", uint32(4)},
			{"gptneox.use_parallel_residual", true}, {"gptneox.attention.layer_norm_epsilon", float32(1e-5)}, {"gptneox.rope.freq_base", float32(10000)},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.arch, func(t *testing.T) {
			_, f, _ := convert(t, tt.arch, shapeFor(tt.arch), gguf.MostlyQ8_0)
			ggufArch, err := f.Architecture()
			require.NoError(t, err)
			want := append(append(general(ggufArch, tt.arch), tt.want...), tail...)
			assert.Equal(t, want, f.KV[:len(want)])
			keys := map[string]bool{}
			for _, kv := range f.KV[len(want):] {
				assert.True(t, strings.HasPrefix(kv.Key, "tokenizer."), "after the model's keys come the tokenizer's: %s", kv.Key)
				keys[kv.Key] = true
			}
			assert.Equal(t, map[string]bool{"tokenizer.ggml.model": true, "tokenizer.ggml.pre": true, "tokenizer.ggml.tokens": true,
				"tokenizer.ggml.token_type": true, "tokenizer.ggml.merges": true, "tokenizer.ggml.bos_token_id": true,
				"tokenizer.ggml.eos_token_id": true, "tokenizer.ggml.unknown_token_id": true,
				"tokenizer.ggml.add_bos_token": true, "tokenizer.ggml.add_eos_token": true}, keys)
		})
	}
}

// llama.cpp's llama turns adjacent pairs where Hugging Face turns halves:
// each head's rows j and half+j become rows 2j and 2j+1.
func TestPermuteHeads(t *testing.T) {
	rows := func(n, cols int) []float32 {
		out := make([]float32, n*cols)
		for i := range out {
			out[i] = float32(i/cols) + float32(i%cols)/10
		}
		return out
	}
	assert.Equal(t, []float32{0, 2, 1, 3}, gguf.PermuteHeads(rows(4, 1), 4, 1))
	assert.Equal(t, []float32{0, 2, 1, 3, 4, 6, 5, 7}, gguf.PermuteHeads(rows(8, 1), 8, 2))
	assert.Equal(t, []float32{0, 3, 1, 4, 2, 5}, gguf.PermuteHeads(rows(6, 1), 6, 1))
	assert.Equal(t, []float32{0, 0.1, 2, 2.1, 1, 1.1, 3, 3.1}, gguf.PermuteHeads(rows(4, 2), 4, 1), "whole rows move")
}

// In the file, a llama's attn_q and attn_k are the checkpoint's q_proj and
// k_proj permuted by their own head counts; attn_v is untouched; qwen is
// never permuted.
func TestConvertedLlamaAttention(t *testing.T) {
	c, f, data := convert(t, checkpoint.Llama, shapeFor(checkpoint.Llama), gguf.AllF32)
	tensor := func(name string) []float32 {
		v, err := f.ReadTensor(bytes.NewReader(data), name)
		require.NoError(t, err)
		return v
	}
	q := c.Tensors["model.layers.1.self_attn.q_proj.weight"]
	k := c.Tensors["model.layers.1.self_attn.k_proj.weight"]
	assert.Equal(t, gguf.PermuteHeads(q.Data, 64, 4), tensor("blk.1.attn_q.weight"))
	assert.Equal(t, gguf.PermuteHeads(k.Data, 32, 2), tensor("blk.1.attn_k.weight"))
	assert.Equal(t, c.Tensors["model.layers.1.self_attn.v_proj.weight"].Data, tensor("blk.1.attn_v.weight"))
	// Head 1's query row 8 (its second half's first row) lands at row 17.
	assert.Equal(t, q.Data[(16+8)*64:(16+9)*64], tensor("blk.1.attn_q.weight")[(16+1)*64:(16+2)*64])

	cq, fq, dq := convert(t, checkpoint.Qwen3, shapeFor(checkpoint.Qwen3), gguf.AllF32)
	got, err := fq.ReadTensor(bytes.NewReader(dq), "blk.0.attn_q.weight")
	require.NoError(t, err)
	assert.Equal(t, cq.Tensors["model.layers.0.self_attn.q_proj.weight"].Data, got)
}

// GPT-2's Conv1D [in, out] weights are written as [out, in] rows.
func TestConvertedGPT2Conv1D(t *testing.T) {
	c, f, data := convert(t, checkpoint.GPT2, shapeFor(checkpoint.GPT2), gguf.AllF32)
	attn := c.Tensors["transformer.h.0.attn.c_attn.weight"]
	require.Equal(t, []int{64, 192}, attn.Shape)
	got, err := f.ReadTensor(bytes.NewReader(data), "blk.0.attn_qkv.weight")
	require.NoError(t, err)
	for _, io := range [][2]int{{0, 0}, {5, 7}, {63, 191}, {1, 128}} {
		in, out := io[0], io[1]
		assert.Equal(t, attn.Data[in*192+out], got[out*64+in], "in %d out %d", in, out)
	}
	pos, err := f.ReadTensor(bytes.NewReader(data), "position_embd.weight")
	require.NoError(t, err)
	assert.Equal(t, c.Tensors["transformer.wpe.weight"].Data, pos)
}

// GPT-NeoX's fused projection goes from per-head [q k v] to all queries,
// all keys, all values, in weights and biases alike; a tied model gets an
// output tensor, which llama.cpp's gptneox requires.
func TestConvertedNeoXQKV(t *testing.T) {
	s := shapeFor(checkpoint.GPTNeoX)
	s.TiedEmbeddings = true
	c, f, data := convert(t, checkpoint.GPTNeoX, s, gguf.AllF32)
	read := func(name string) []float32 {
		v, err := f.ReadTensor(bytes.NewReader(data), name)
		require.NoError(t, err)
		return v
	}
	w := c.Tensors["gpt_neox.layers.0.attention.query_key_value.weight"].Data
	b := c.Tensors["gpt_neox.layers.0.attention.query_key_value.bias"].Data
	gw, gb := read("blk.0.attn_qkv.weight"), read("blk.0.attn_qkv.bias")
	for head := 0; head < 4; head++ {
		for part := 0; part < 3; part++ {
			for d := 0; d < 16; d++ {
				hf := head*48 + part*16 + d
				gg := part*64 + head*16 + d
				require.Equal(t, b[hf], gb[gg], "bias head %d part %d dim %d", head, part, d)
				require.Equal(t, w[hf*64:(hf+1)*64], gw[gg*64:(gg+1)*64], "row head %d part %d dim %d", head, part, d)
			}
		}
	}
	assert.Equal(t, read("token_embd.weight"), read("output.weight"))
}

// A model with more embeddings than tokens gets [PADn] unused tokens, as
// the converter pads.
func TestVocabularyPadding(t *testing.T) {
	s := shapeFor(checkpoint.Llama)
	s.Vocab = 50260
	_, f, _ := convert(t, checkpoint.Llama, s, gguf.AllF32)
	tokens, _ := f.Get("tokenizer.ggml.tokens")
	types, _ := f.Get("tokenizer.ggml.token_type")
	require.Len(t, tokens, 50260)
	assert.Equal(t, []string{"<|endoftext|>", "[PAD50257]", "[PAD50258]", "[PAD50259]"}, tokens.([]string)[50256:])
	assert.Equal(t, []int32{3, 5, 5, 5}, types.([]int32)[50256:])
}

func TestConvertErrors(t *testing.T) {
	v, err := gpt2Vocab()
	require.NoError(t, err)
	random := func(arch string, s checkpoint.Shape) *checkpoint.Checkpoint {
		c, err := checkpoint.Random(arch, s, 1)
		require.NoError(t, err)
		return c
	}
	small := checkpoint.Shape{Vocab: 50257, Layers: 1}
	tests := []struct {
		name string
		c    func() *checkpoint.Checkpoint
		ft   gguf.FileType
		want string
	}{
		{"missing and misshapen tensors", func() *checkpoint.Checkpoint {
			c := random(checkpoint.Llama, small)
			delete(c.Tensors, "model.norm.weight")
			c.Tensors["model.layers.0.mlp.up_proj.weight"].Shape = []int{64, 176}
			c.Add(&checkpoint.Tensor{Name: "model.layers.0.mlp.extra.weight", Shape: []int{1}, Data: []float32{1}})
			return c
		}, gguf.MostlyF16, "checkpoint (llama): model.layers.0.mlp.extra.weight is not a llama tensor this converter knows; " +
			"model.layers.0.mlp.up_proj.weight has shape [64 176] (11264 values), want [176 64]; model.norm.weight is missing"},
		{"more tokens than embeddings", func() *checkpoint.Checkpoint {
			return random(checkpoint.Llama, checkpoint.Shape{Vocab: 1000, Layers: 1})
		}, gguf.AllF32, "the tokenizer has 50257 tokens, more than the model's 1000 embeddings"},
		{"file type", func() *checkpoint.Checkpoint { return random(checkpoint.Llama, small) }, gguf.FileType(2), "file type 2: write F32 (0), F16 (1) or Q8_0 (7)"},
		{"qwen2 head size", func() *checkpoint.Checkpoint {
			c := random(checkpoint.Qwen2, small)
			c.Config["head_dim"] = 32
			return c
		}, gguf.AllF32, "checkpoint (qwen2): llama.cpp needs heads × head size = hidden size for qwen2 (4 × 32 ≠ 64)"},
		{"neox without biases", func() *checkpoint.Checkpoint {
			c := random(checkpoint.GPTNeoX, small)
			c.Config["attention_bias"] = false
			return c
		}, gguf.AllF32, "checkpoint (gpt_neox): llama.cpp's gptneox needs the attention biases; config.json sets attention_bias false"},
		{"config", func() *checkpoint.Checkpoint {
			c := random(checkpoint.GPT2, small)
			c.Config["n_layer"] = "two"
			return c
		}, gguf.AllF32, "config.json: n_layer: want an integer, got two"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := gguf.FromCheckpoint(tt.c(), v, tt.ft)
			assert.EqualError(t, err, tt.want)
		})
	}
}

// Buffers a checkpoint may carry (GPT-2's attention masks) are dropped;
// a tied model's head, when a checkpoint writes it out anyway, is the
// output tensor.
func TestConvertSkipsBuffers(t *testing.T) {
	c, err := checkpoint.Random(checkpoint.GPT2, checkpoint.Shape{Vocab: 50257, Layers: 1, TiedEmbeddings: true}, 2)
	require.NoError(t, err)
	c.Add(&checkpoint.Tensor{Name: "transformer.h.0.attn.bias", Shape: []int{1, 1, 4, 4}, Data: make([]float32, 16)})
	head := c.Tensors["transformer.wte.weight"]
	c.Add(&checkpoint.Tensor{Name: "lm_head.weight", Shape: head.Shape, Data: head.Data})
	v, err := gpt2Vocab()
	require.NoError(t, err)
	b, err := gguf.FromCheckpoint(c, v, gguf.AllF32)
	require.NoError(t, err)
	f, _ := read(t, b)
	var names []string
	for _, ti := range f.Tensors {
		names = append(names, ti.Name)
	}
	assert.True(t, slices.Contains(names, "output.weight"))
	assert.False(t, slices.ContainsFunc(names, func(n string) bool { return strings.Contains(n, "attn.bias") }))
}

// llama3-scaled RoPE becomes a rope_freqs tensor of per-pair divisors
// (values from Hugging Face's definition, worked out beside the test for
// head size 16, base 10000, an original context of 64, factors 1 and 4 and
// scale 8: the first pair kept, the next two blended, the rest divided by
// 8); linear scaling becomes rope.scaling keys. Neither adds the other.
func TestConvertedLlamaRopeScaling(t *testing.T) {
	v, err := gpt2Vocab()
	require.NoError(t, err)
	convertScaled := func(rope map[string]any) (*gguf.File, []byte) {
		c, err := checkpoint.Random(checkpoint.Llama, shapeFor(checkpoint.Llama), 3)
		require.NoError(t, err)
		c.Config["rope_scaling"] = rope
		b, err := gguf.FromCheckpoint(c, v, gguf.AllF32)
		require.NoError(t, err)
		return read(t, b)
	}
	hasKey := func(f *gguf.File, key string) bool {
		_, ok := f.Get(key)
		return ok
	}

	f, data := convertScaled(map[string]any{"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 64})
	divisors, err := f.ReadTensor(bytes.NewReader(data), "rope_freqs.weight")
	require.NoError(t, err)
	assert.InDeltaSlice(t, []float32{1, 1.2939758, 7.667385, 8, 8, 8, 8, 8}, divisors, 1e-5)
	assert.Equal(t, info{"rope_freqs.weight", []int64{8}, gguf.F32}, infos(f)[len(infos(f))-1])
	assert.False(t, hasKey(f, "llama.rope.scaling.type"))

	f, _ = convertScaled(map[string]any{"rope_type": "linear", "factor": 4.0})
	typ, _ := f.Get("llama.rope.scaling.type")
	factor, _ := f.Get("llama.rope.scaling.factor")
	assert.Equal(t, "linear", typ)
	assert.Equal(t, float32(4), factor)
	assert.NotContains(t, infos(f), info{"rope_freqs.weight", []int64{8}, gguf.F32})
}
