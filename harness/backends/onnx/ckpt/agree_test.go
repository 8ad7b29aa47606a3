package ckpt_test

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/checkpoint"
	"github.com/feather-eval/feather/harness/backends/onnx"
	"github.com/feather-eval/feather/harness/backends/onnx/ckpt/ckpttest"
	"github.com/feather-eval/feather/harness/backends/onnx/decoder"
	"github.com/feather-eval/feather/harness/backends/onnx/ortlib/orttest"
	"github.com/feather-eval/feather/harness/lm"
)

// requests are scored on both sides: shared contexts, a long context,
// continuations of one token and of several.
var requests = []lm.LLRequest{
	{Context: "The capital of France is", Continuation: " Paris"},
	{Context: "The capital of France is", Continuation: " Rome, which is in Italy"},
	{Context: "Question: What is 2+2?\nAnswer:", Continuation: " 4"},
	{Context: "Once upon a time there was a small kite that flew over the hills and far away", Continuation: " into the sea."},
	{Context: "a", Continuation: "b"},
}

var prompts = []string{"The capital of France is", "Once upon a time", "1, 2, 3,"}

// zoo is every fixture the checkpoint path is held to: each family the
// decoder builds, untied and tied, in float32, bfloat16 and float16, one
// of each sharded.
func zoo() map[string]ckpttest.Fixture {
	out := map[string]ckpttest.Fixture{}
	for i, a := range decoder.Archs {
		arch := a.ModelType()
		kv := 2
		if arch == checkpoint.GPT2 || arch == checkpoint.GPTNeoX {
			kv = 0 // no grouped-query attention
		}
		for j, v := range []struct {
			name  string
			dtype string
			tied  bool
			shard int64
		}{
			{"f32", "F32", false, 0},
			{"bf16-tied", "BF16", true, 0},
			{"f16-sharded", "F16", false, 40 << 10},
		} {
			out[arch+"/"+v.name] = ckpttest.Fixture{
				Arch: arch, Seed: uint64(100*i + j + 1), DType: v.dtype, MaxShardBytes: v.shard,
				Shape: checkpoint.Shape{Vocab: 320, Hidden: 64, Layers: 2, Heads: 4, KVHeads: kv, TiedEmbeddings: v.tied, MaxPositions: 256},
			}
		}
	}
	return out
}

// tolerance is the agreement asked of the two paths on log-probabilities.
const tolerance = 1e-4

// On the same weights, a checkpoint folder and an ONNX export of it give
// the same log-probabilities (within 1e-4) and the same greedy text, for
// every family the decoder builds, tied or not, sharded or not, in each
// dtype a checkpoint is saved in (the export carries the rounded values).
func TestCheckpointAgreesWithExport(t *testing.T) {
	orttest.Require(t)
	for name, f := range zoo() {
		t.Run(name, func(t *testing.T) {
			ckDir, exDir := writePair(t, f, false)
			worst := compare(t, ckDir, onnx.Options{}, exDir, tolerance)
			t.Logf("%s: max |Δ log-prob| %.2g", name, worst)
		})
	}
}

// "dtype": "float16" computes as an fp16 export of the same weights does
// (float16 weights, cache and logits), close to float32. Scores agree to
// float16 rounding of the cache rather than exactly: the checkpoint's
// graph scores a prefix tree in one call, where the export's plan stores
// contexts in its float16 cache and continues them in a second call.
func TestFloat16Setting(t *testing.T) {
	orttest.Require(t)
	f := zoo()["llama/bf16-tied"]
	ckDir, exDir := writePair(t, f, true)
	worst := compare(t, ckDir, onnx.Options{DType: onnx.DTypeFloat16}, exDir, 1e-2)
	t.Logf("float16 against the fp16 export: max |Δ log-prob| %.2g", worst)
	_, fp32 := writePair(t, f, false)
	ctx := context.Background()
	a, b := open(t, ckDir, onnx.Options{DType: onnx.DTypeFloat16}), open(t, fp32, onnx.Options{})
	ra, rb := score(t, a), score(t, b)
	for i := range ra {
		assert.InDelta(t, rb[i].LogProb, ra[i].LogProb, 2e-2, "request %d against float32", i)
	}
	_ = ctx
}

// writePair writes f's checkpoint folder and an ONNX export of its
// weights (float16 with half).
func writePair(t *testing.T, f ckpttest.Fixture, half bool) (ckDir, exDir string) {
	t.Helper()
	root := t.TempDir()
	ckDir, exDir = filepath.Join(root, "checkpoint"), filepath.Join(root, "export")
	ck, err := f.Write(ckDir)
	require.NoError(t, err)
	require.NoError(t, ckpttest.WriteExport(exDir, ck, half))
	return ckDir, exDir
}

func open(t *testing.T, dir string, opt onnx.Options) *onnx.Model {
	t.Helper()
	opt.Threads, opt.Chat = 1, "no"
	m, err := onnx.Open(context.Background(), dir, opt)
	require.NoError(t, err)
	t.Cleanup(func() { m.Close() })
	return m
}

func score(t *testing.T, m *onnx.Model) []lm.LLResult {
	t.Helper()
	res, err := m.LogLikelihood(context.Background(), requests, lm.ScoreOptions{})
	require.NoError(t, err)
	for i, r := range res {
		require.NoError(t, r.Err, "request %d", i)
	}
	return res
}

// compare opens the checkpoint with opt and the export, asserts they
// agree within tol on every request and generate the same text, and
// returns the largest difference.
func compare(t *testing.T, ckDir string, opt onnx.Options, exDir string, tol float64) float64 {
	t.Helper()
	ctx := context.Background()
	a, b := open(t, ckDir, opt), open(t, exDir, onnx.Options{})
	ra, rb := score(t, a), score(t, b)
	var worst float64
	for i := range requests {
		worst = math.Max(worst, math.Abs(ra[i].LogProb-rb[i].LogProb))
		assert.InDelta(t, rb[i].LogProb, ra[i].LogProb, tol, "request %d", i)
		assert.Equal(t, rb[i].IsGreedy, ra[i].IsGreedy, "request %d", i)
	}
	var reqs []lm.GenerateRequest
	for _, p := range prompts {
		reqs = append(reqs, lm.GenerateRequest{Prompt: p, MaxNewTokens: 12, Sampling: lm.Greedy()})
	}
	ga, err := a.Generate(ctx, reqs)
	require.NoError(t, err)
	gb, err := b.Generate(ctx, reqs)
	require.NoError(t, err)
	for i := range reqs {
		require.NoError(t, ga[i].Err)
		assert.Equal(t, gb[i].Text, ga[i].Text, "prompt %q", prompts[i])
	}
	return worst
}

// The settings that do not apply to a folder are refused with the one
// that does.
func TestSettingsThatDoNotApply(t *testing.T) {
	ckDir, exDir := writePair(t, small, false)
	_, err := onnx.Open(context.Background(), ckDir, onnx.Options{Variant: "q4"})
	assert.EqualError(t, err, "model folder "+ckDir+` is a Hugging Face checkpoint, which has no variant "q4" (variants are ONNX files); remove "variant": a checkpoint runs in float32, in float16 with "dtype": "float16", or with 8-bit weights with "dtype": "int8"`)
	_, err = onnx.Open(context.Background(), exDir, onnx.Options{DType: onnx.DTypeFloat16})
	assert.EqualError(t, err, "model folder "+exDir+" has an ONNX file ("+filepath.Join(exDir, "model.onnx")+`), whose weights keep the type it was exported in; "dtype" applies to Hugging Face checkpoints: pick an ONNX file's precision with "variant"`)
}
