package onnx

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/onnx/ortlib/orttest"
	"github.com/feather-eval/feather/harness/backends/onnx/testmodel"
	"github.com/feather-eval/feather/harness/backends/onnx/tokenizer"
)

// Fixture folders are built once per test binary into fixtureRoot and
// shared by every test that asks for them.
var (
	fixtureRoot string
	fixtureMu   sync.Mutex
	fixtures    = map[string]*fixtureOnce{}
)

type fixtureOnce struct {
	once sync.Once
	m    *testmodel.Model
	bg   *testmodel.Bigram
	err  error
}

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "feather-onnx-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fixtureRoot = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// modelConfigs are the decoder fixtures, by name.
var modelConfigs = map[string]testmodel.Config{
	"gpt2":        {Arch: testmodel.GPT2, PositionIDs: true, Seed: 11},
	"llama-gqa":   {Arch: testmodel.Llama, Heads: 4, KVHeads: 2, PositionIDs: true, Seed: 12, Variants: []string{"quantized"}, QDQ: true},
	"llama-nopos": {Arch: testmodel.Llama, Heads: 4, KVHeads: 2, Seed: 13},
	"nopast":      {Arch: testmodel.Llama, NoPast: true, PositionIDs: true, Seed: 14},
	"merged":      {Arch: testmodel.Llama, KVHeads: 2, Layout: testmodel.LayoutMerged, PositionIDs: true, Seed: 15},
	"fp16":        {Arch: testmodel.Llama, KVHeads: 2, FP16: true, PositionIDs: true, Seed: 16},
	"external":    {Arch: testmodel.GPT2, ExternalData: true, PositionIDs: true, Seed: 17},
	"tied":        {Arch: testmodel.GPT2, TiedEmbeddings: true, PositionIDs: true, Seed: 18},
	"llama-tied":  {Arch: testmodel.Llama, KVHeads: 2, TiedEmbeddings: true, PositionIDs: true, Seed: 24},
	"keep":        {Arch: testmodel.Llama, KVHeads: 2, PositionIDs: true, LogitsToKeep: "num_logits_to_keep", Seed: 22},
	"keep-merged": {Arch: testmodel.GPT2, Layout: testmodel.LayoutMerged, LogitsToKeep: "logits_to_keep", Seed: 23},
	// The layouts of real exports beyond optimum's plain graph: onnxruntime's
	// fused GroupQueryAttention as the genai builder writes it for the CPU
	// (no position_ids: the operator rotates; the file named by
	// genai_config.json) with Phi-3's config, and as
	// onnx-community writes it with position_ids, with Qwen 3's config
	// (head_dim ≠ hidden/heads) and a 4-bit variant; Gemma 3's config
	// (one KV head, wide heads) on the plain graph.
	"genai-gqa": {Arch: testmodel.Llama, Heads: 4, KVHeads: 2, GroupQueryAttention: true, Family: "phi3", Seed: 26,
		Layout: "phi3-mini-instruct-cpu-fp32.onnx", GenAIConfig: true},
	"community-gqa": {Arch: testmodel.Llama, Heads: 4, KVHeads: 2, HeadDim: 32, GroupQueryAttention: true, PositionIDs: true, Family: "qwen3", TiedEmbeddings: true, Seed: 27, Variants: []string{"q4"}},
	"gemma3":        {Arch: testmodel.Llama, Heads: 4, KVHeads: 1, HeadDim: 32, PositionIDs: true, Family: "gemma3_text", TiedEmbeddings: true, Seed: 28},
	// A 16k vocabulary: a call's logits budget (logitsBudget) then cuts
	// below maxBatchTokens, split or run whole.
	"wide-vocab":        {Arch: testmodel.Llama, Vocab: 16384, Hidden: 32, Layers: 1, Heads: 2, PositionIDs: true, Seed: 29},
	"wide-vocab-merged": {Arch: testmodel.Llama, Vocab: 16384, Hidden: 32, Layers: 1, Heads: 2, PositionIDs: true, Layout: testmodel.LayoutMerged, Seed: 29},
	// quant has every variant that runs: 4-bit MatMulNBits (float32 and
	// float16), NF4 MatMulBnb4, dynamic 8-bit and float16, with an untied
	// head (quantized too).
	"quant": {Arch: testmodel.Llama, KVHeads: 2, PositionIDs: true, Seed: 25, Variants: []string{"q4", "int8", "uint8", "fp16", "q4f16", "bnb4"}},
	"chat": {Arch: testmodel.Llama, PositionIDs: true, Seed: 19,
		ChatTemplate: "{% for m in messages %}<|begin_of_text|>{{ m.role }}: {{ m.content }}\n{% endfor %}{% if add_generation_prompt %}assistant:{% endif %}"},
}

func fixtureEntry(name string) *fixtureOnce {
	fixtureMu.Lock()
	defer fixtureMu.Unlock()
	f, ok := fixtures[name]
	if !ok {
		f = &fixtureOnce{}
		fixtures[name] = f
	}
	return f
}

// fixture returns the built decoder fixture name.
func fixture(t testing.TB, name string) *testmodel.Model {
	t.Helper()
	cfg, ok := modelConfigs[name]
	require.True(t, ok, "unknown fixture %q", name)
	f := fixtureEntry(name)
	f.once.Do(func() { f.m, f.err = testmodel.Build(filepath.Join(fixtureRoot, name), cfg) })
	require.NoError(t, f.err)
	return f.m
}

// chainPrompt ends in the token that starts the bigram model's designed
// chain: greedy decoding after it yields chainTokens, then EOS.
const chainPrompt = "The end"

// chainStart is the last token of chainPrompt; chainTokens follow it.
var chainTokens = []int{300, 301}

// bigram returns the designed model whose log-probabilities are a table.
// Its tokenizer is the one every 512-token fixture has.
func bigram(t testing.TB) *testmodel.Bigram {
	t.Helper()
	f := fixtureEntry("bigram")
	f.once.Do(func() {
		var tok *tokenizer.Tokenizer
		if tok, f.err = tokenizer.Load(fixture(t, "llama-gqa").Dir); f.err != nil {
			return
		}
		p := tok.Encode(chainPrompt, false)
		start := p[len(p)-1]
		next := map[int]int{start: chainTokens[0], chainTokens[0]: chainTokens[1], chainTokens[1]: testmodel.EOSID}
		f.bg, f.err = testmodel.BuildBigram(filepath.Join(fixtureRoot, "bigram"), testmodel.BigramConfig{
			Config: testmodel.Config{PositionIDs: true, Seed: 21, MaxPositions: 64},
			Next:   next,
		})
	})
	require.NoError(t, f.err)
	return f.bg
}

// open loads dir with ORT, closing it when the test ends.
func open(t testing.TB, dir string, opt Options) *Model {
	t.Helper()
	orttest.Require(t)
	m, err := Open(context.Background(), dir, opt)
	require.NoError(t, err)
	t.Cleanup(func() { m.Close() })
	m.Settle() // tests and benchmarks measure the steady model
	return m
}

// maxDiff is the largest absolute difference of two logit rows.
func maxDiff(a, b []float32) float64 {
	var d float64
	for i := range a {
		d = max(d, abs(float64(a[i])-float64(b[i])))
	}
	return d
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// ids returns n deterministic token ids of the ordinary vocabulary (the
// test tokenizer's specials are ids 0-3).
func ids(n, vocab, seed int) []int {
	out := make([]int, n)
	x := uint32(seed*2654435761 + 1)
	for i := range out {
		x = x*1664525 + 1013904223
		out[i] = 4 + int(x>>8)%(vocab-4)
	}
	return out
}
