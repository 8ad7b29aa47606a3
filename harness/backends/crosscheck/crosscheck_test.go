package crosscheck_test

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/checkpoint"
	"github.com/feather-eval/feather/harness/backends/llamacpp/gguf"
	"github.com/feather-eval/feather/harness/backends/llamacpp/llamalib"
	"github.com/feather-eval/feather/harness/backends/llamacpp/llamalib/llamatest"
	"github.com/feather-eval/feather/harness/backends/onnx/decoder"
	"github.com/feather-eval/feather/harness/backends/onnx/onnxpb"
	"github.com/feather-eval/feather/harness/backends/onnx/ortlib/orttest"
	"github.com/feather-eval/feather/harness/backends/onnx/seeded"
	"github.com/feather-eval/feather/harness/backends/onnx/testmodel"
	"github.com/feather-eval/feather/internal/testenv"
)

// gpt2Vocab is GPT-2's vocabulary, the test tokenizer's: every model here
// has that many embeddings.
const gpt2Vocab = 50257

// text is tokenized by llama.cpp; its first prompt tokens go in one call,
// the rest one token per call.
const (
	text   = "The quick brown fox jumps over the lazy dog, and then it ran into the forest to find its friends."
	prompt = 8
)

// weights lays a checkpoint's tensors out as the decoder reads them, as a
// checkpoint loader does: a torch Linear weight (Arch.TorchLinear)
// transposed from [out, in] to [in, out], every other tensor as it is.
// Every parameter the family declares must be there with its shape, and
// nothing else.
func weights(t *testing.T, a decoder.Arch, c decoder.Config, ck *checkpoint.Checkpoint) map[string]*seeded.Tensor {
	t.Helper()
	want := map[string][]int{}
	declare := func(name string, _ seeded.Init, shape ...int) { want[name] = shape }
	a.Params(c, declare)
	if !c.TiedEmbeddings {
		declare(a.HeadName(), seeded.Linear, c.Hidden, c.Vocab)
	}
	w := map[string]*seeded.Tensor{}
	for name, tn := range ck.Tensors {
		shape, ok := want[name]
		require.True(t, ok, "%s is no %s parameter", name, a.ModelType())
		data := tn.Data
		stored := slices.Clone(shape)
		if a.TorchLinear(name) {
			slices.Reverse(stored)
			data = transpose(tn.Data, stored[0], stored[1])
		}
		require.Equal(t, stored, tn.Shape, name)
		w[name] = &seeded.Tensor{Shape: shape, Data: data}
	}
	require.Len(t, w, len(want), "every parameter is in the checkpoint")
	return w
}

// transpose turns a row-major [rows, cols] matrix into [cols, rows].
func transpose(data []float32, rows, cols int) []float32 {
	out := make([]float32, len(data))
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			out[c*rows+r] = data[r*cols+c]
		}
	}
	return out
}

// llamaLogits runs the GGUF file in llama.cpp with a float32 KV cache and
// without flash attention (which casts keys and values to float16):
// the prompt in one batch, then one token per batch, every position's
// logits kept.
func llamaLogits(t *testing.T, path string) ([]int, [][]float32) {
	t.Helper()
	m, err := llamalib.OpenModel(path)
	require.NoError(t, err)
	defer m.Close()
	cx, err := m.NewContext(llamalib.ContextOptions{Size: 256, Batch: 64, Threads: 1, F32Cache: true, NoFlashAttention: true})
	require.NoError(t, err)
	defer cx.Close()
	toks, err := m.Tokenize(text, false)
	require.NoError(t, err)
	require.Greater(t, len(toks), prompt+4)
	var rows [][]float32
	var b llamalib.Batch
	decode := func(from, to int) {
		b.Reset()
		for i := from; i < to; i++ {
			b.Add(toks[i], i, true, 0)
		}
		require.NoError(t, cx.Decode(&b))
		for r := 0; r < to-from; r++ {
			row, err := cx.Logits(r, nil)
			require.NoError(t, err)
			rows = append(rows, row)
		}
	}
	decode(0, prompt)
	for i := prompt; i < len(toks); i++ {
		decode(i, i+1)
	}
	ids := make([]int, len(toks))
	for i, tok := range toks {
		ids[i] = int(tok)
	}
	return ids, rows
}

// diffs is the largest |Δ log-probability| over the vocabulary at each
// position.
func diffs(a [][]float32, b [][]float64) []float64 {
	out := make([]float64, len(a))
	for p := range a {
		x := testmodel.LogSoftmax(a[p])
		y := testmodel.LogSoftmax(b[p])
		for i := range x {
			out[p] = math.Max(out[p], math.Abs(x[i]-y[i]))
		}
	}
	return out
}

// meanDiff is the mean |Δ log-probability| over every position and token.
func meanDiff(a [][]float32, b [][]float64) float64 {
	var sum float64
	var n int
	for p := range a {
		x := testmodel.LogSoftmax(a[p])
		y := testmodel.LogSoftmax(b[p])
		for i := range x {
			sum += math.Abs(x[i] - y[i])
			n++
		}
	}
	return sum / float64(n)
}

// maxOf and median summarize per-position differences.
func maxOf(d []float64) float64 { return slices.Max(d) }

func median(d []float64) float64 {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func widen(rows [][]float32) [][]float64 {
	out := make([][]float64, len(rows))
	for i, r := range rows {
		out[i] = make([]float64, len(r))
		for j, v := range r {
			out[i][j] = float64(v)
		}
	}
	return out
}

// gemma3Config is a six-layer Gemma 3 with GPT-2's vocabulary, heads of
// headDim, kvHeads key/value heads, and the rope_scaling given (nil for
// none), in what llama.cpp converts: query_pre_attn_scalar = head_dim and
// the default layer pattern and local RoPE base.
func gemma3Config(headDim, kvHeads int, tied bool, ropeScaling map[string]any) map[string]any {
	cfg := map[string]any{
		"model_type": "gemma3_text", "architectures": []any{"Gemma3ForCausalLM"},
		"vocab_size": gpt2Vocab, "hidden_size": 64, "num_hidden_layers": 6, "num_attention_heads": 4,
		"num_key_value_heads": kvHeads, "head_dim": headDim, "intermediate_size": 128, "max_position_embeddings": 2048,
		"rms_norm_eps": 1e-6, "hidden_activation": "gelu_pytorch_tanh", "tie_word_embeddings": tied,
		"query_pre_attn_scalar": headDim, "sliding_window": 8, "rope_theta": 1e6, "rope_local_base_freq": 10000.0,
		"rope_scaling": nil, "final_logit_softcapping": nil, "attn_logit_softcapping": nil, "torch_dtype": "float32",
	}
	if ropeScaling != nil {
		cfg["rope_scaling"] = ropeScaling
	}
	return cfg
}

// ggmlGELU is GELU as llama.cpp computes it on the CPU: the tanh
// approximation, looked up in a table indexed by the input rounded to
// float16, whose entries are float16 (ggml_vec_gelu_f32 with
// GGML_GELU_FP16); inputs beyond ±10 are clamped to 0 or passed through.
func ggmlGELU(x float64) float64 {
	switch {
	case x <= -10:
		return 0
	case x >= 10:
		return x
	}
	h := float64(onnxpb.Float16Value(onnxpb.Float16Bits(float32(x))))
	y := 0.5 * h * (1 + math.Tanh(math.Sqrt(2/math.Pi)*h*(1+0.044715*h*h)))
	return float64(onnxpb.Float16Value(onnxpb.Float16Bits(float32(y))))
}

// The decoder's graph of a checkpoint agrees with llama.cpp running the
// same weights as GGUF, and with the plain-Go reference forward pass.
// For the Llama family the two engines agree to float32 rounding. GPT-2,
// GPT-NeoX and Gemma 3 differ by more, and nearly all of it is llama.cpp's
// GELU: with
// GELU computed llama.cpp's way (ggmlGELU) the reference agrees with
// llama.cpp to float32 rounding again at most positions; where it does
// not, a pre-activation a rounding error away from a float16 boundary
// picked the neighbouring table entry, one float16 step (2^-11
// relative) apart. The graph computes GELU exactly as transformers does
// (erf for gelu, the tanh formula in float32 for gelu_new and
// gelu_pytorch_tanh), so there the graph is exact and llama.cpp
// approximates. Gemma 3's cases check what llama.cpp reads of it: scaled
// embeddings, (1+w) norms around attention and the MLP and over query and
// key heads, the sliding window (shorter than the text) with its own RoPE
// base, and linear RoPE scaling on the global layers.
func TestONNXDecoderAgreesWithLlamaCpp(t *testing.T) {
	orttest.Require(t)
	llamatest.Require(t)
	vocab, err := gguf.LoadVocab(testenv.Tokenizer("gpt2"), "")
	require.NoError(t, err)
	const (
		exact = 3e-5 // float32 rounding, two engines
		gelu  = 5e-3 // llama.cpp's float16 GELU table
		// the same table in six layers of gated GELU, whose table-boundary
		// flips attention carries to every later position
		geluDeep = 1e-2
	)
	tests := []struct {
		name  string
		arch  string
		shape checkpoint.Shape
		// config, when set, is config.json for a family Random does not
		// draw (Gemma 3), whose weights the decoder draws.
		config map[string]any
		// rope, when set, is the Random checkpoint's rope_scaling.
		rope map[string]any
		// want bounds |graph − llama.cpp|.
		want float64
	}{
		{"llama/untied/gqa", checkpoint.Llama, checkpoint.Shape{KVHeads: 2}, nil, nil, exact},
		{"llama/tied/head_dim", checkpoint.Llama, checkpoint.Shape{TiedEmbeddings: true, HeadDim: 32, KVHeads: 1}, nil, nil, exact},
		{"qwen2/tied/gqa", checkpoint.Qwen2, checkpoint.Shape{TiedEmbeddings: true, KVHeads: 2, RopeTheta: 1e6, NormEps: 1e-6}, nil, nil, exact},
		{"qwen2/untied", checkpoint.Qwen2, checkpoint.Shape{}, nil, nil, exact},
		{"qwen3/tied/gqa/head_dim", checkpoint.Qwen3, checkpoint.Shape{TiedEmbeddings: true, KVHeads: 2, HeadDim: 32, RopeTheta: 1e6, NormEps: 1e-6}, nil, nil, exact},
		{"qwen3/untied", checkpoint.Qwen3, checkpoint.Shape{}, nil, nil, exact},
		{"gpt2/tied/gelu_new", checkpoint.GPT2, checkpoint.Shape{TiedEmbeddings: true}, nil, nil, gelu},
		{"gpt2/untied/gelu", checkpoint.GPT2, checkpoint.Shape{HiddenAct: "gelu"}, nil, nil, gelu},
		{"gpt_neox/untied/parallel", checkpoint.GPTNeoX, checkpoint.Shape{}, nil, nil, gelu},
		{"gpt_neox/tied/sequential/rotary_pct", checkpoint.GPTNeoX, checkpoint.Shape{TiedEmbeddings: true, SequentialResidual: true, RotaryPct: 0.5}, nil, nil, gelu},
		// Six layers: five slide over an 8-token window, shorter than the
		// text, and the sixth attends globally.
		{"gemma3_text/tied/gqa/sliding", checkpoint.Gemma3, checkpoint.Shape{}, gemma3Config(16, 2, true, nil), nil, geluDeep},
		{"gemma3_text/untied/head_dim/linear_rope", checkpoint.Gemma3, checkpoint.Shape{}, gemma3Config(32, 1, false, map[string]any{"rope_type": "linear", "factor": 8.0}), nil, geluDeep},
		// llama3 scaling over an original context of 64 positions, so that
		// of the head's 8 frequency pairs 1 keeps its frequency, 2 are
		// blended and 5 are divided by the factor; linear scaling.
		{"llama/llama3_rope", checkpoint.Llama, checkpoint.Shape{KVHeads: 2}, nil, map[string]any{"rope_type": "llama3", "factor": 8.0,
			"low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 64}, exact},
		{"llama/linear_rope", checkpoint.Llama, checkpoint.Shape{KVHeads: 2}, nil, map[string]any{"rope_type": "linear", "factor": 4.0}, exact},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ck *checkpoint.Checkpoint
			if tt.config != nil {
				a, c, err := decoder.FromConfig(tt.config)
				require.NoError(t, err)
				c.Seed = uint64(100 + i)
				ck = checkpoint.FromWeights(a, tt.config, decoder.Weights(a, c))
			} else {
				s := tt.shape
				s.Vocab = gpt2Vocab
				var err error
				ck, err = checkpoint.Random(tt.arch, s, uint64(100+i))
				require.NoError(t, err)
				if tt.rope != nil {
					ck.Config["rope_scaling"] = tt.rope
				}
			}

			b, err := gguf.FromCheckpoint(ck, vocab, gguf.AllF32)
			require.NoError(t, err)
			path := filepath.Join(t.TempDir(), "model.gguf")
			require.NoError(t, b.WriteFile(path))
			ids, llama := llamaLogits(t, path)

			a, c, err := decoder.FromConfig(ck.Config)
			require.NoError(t, err)
			require.Equal(t, tt.arch, a.ModelType())
			w := weights(t, a, c, ck)
			model, err := decoder.Graph(a, c, w, decoder.Export{Past: true}).Marshal()
			require.NoError(t, err)
			calls := []int{prompt}
			for range len(ids) - prompt {
				calls = append(calls, 1)
			}
			onnx, err := testmodel.RunGraph(model, c, ids, calls...)
			require.NoError(t, err)

			exactRef := (&testmodel.Reference{Arch: a, Config: c, Weights: w}).Logits(ids)
			vsLlama, vsRef := maxOf(diffs(onnx, widen(llama))), maxOf(diffs(onnx, exactRef))
			msg := fmt.Sprintf("%s, %d positions: max |Δ log p| graph−llama.cpp %.2g, graph−reference %.2g, reference−llama.cpp %.2g",
				tt.name, len(ids), vsLlama, vsRef, maxOf(diffs(llama, exactRef)))
			assert.LessOrEqual(t, vsLlama, tt.want, "graph against llama.cpp")
			// float32 against float64 over a 50257-token vocabulary
			assert.LessOrEqual(t, vsRef, exact, "graph against the reference")
			if tt.want != exact {
				emulated := (&testmodel.Reference{Arch: a, Config: c, Weights: w, GELU: ggmlGELU}).Logits(ids)
				d := diffs(llama, emulated)
				mean, meanEmulated := meanDiff(onnx, widen(llama)), meanDiff(llama, emulated)
				msg += fmt.Sprintf("; with llama.cpp's GELU, reference−llama.cpp max %.2g (median position %.2g), mean %.2g against the graph's %.2g",
					maxOf(d), median(d), meanEmulated, mean)
				assert.LessOrEqual(t, meanEmulated, mean/10, "llama.cpp's GELU accounts for at least 90%% of the mean difference")
				assert.LessOrEqual(t, maxOf(d), 1e-3, "and float16 table-boundary flips for the rest")
			}
			t.Log(msg)
		})
	}
}

// A random checkpoint, laid out as the decoder reads it, is the decoder's
// own draw of the same family, shape and seed, bit for bit: the two
// packages name, shape and draw every parameter alike.
func TestRandomCheckpointsAreTheDecodersWeights(t *testing.T) {
	for _, tt := range []struct {
		arch  string
		shape checkpoint.Shape
	}{
		{checkpoint.Llama, checkpoint.Shape{KVHeads: 2}},
		{checkpoint.Llama, checkpoint.Shape{TiedEmbeddings: true, HeadDim: 32}},
		{checkpoint.Qwen2, checkpoint.Shape{KVHeads: 1}},
		{checkpoint.Qwen3, checkpoint.Shape{TiedEmbeddings: true, HeadDim: 32, KVHeads: 2}},
		{checkpoint.GPT2, checkpoint.Shape{}},
		{checkpoint.GPT2, checkpoint.Shape{TiedEmbeddings: true}},
		{checkpoint.GPTNeoX, checkpoint.Shape{}},
		{checkpoint.GPTNeoX, checkpoint.Shape{TiedEmbeddings: true, SequentialResidual: true, RotaryPct: 0.5}},
	} {
		t.Run(fmt.Sprintf("%s/%+v", tt.arch, tt.shape), func(t *testing.T) {
			ck, err := checkpoint.Random(tt.arch, tt.shape, 77)
			require.NoError(t, err)
			a, c, err := decoder.FromConfig(ck.Config)
			require.NoError(t, err)
			c.Seed = 77
			assert.Equal(t, decoder.Weights(a, c), weights(t, a, c, ck))
		})
	}
}
