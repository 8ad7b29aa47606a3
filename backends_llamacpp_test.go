package feather_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/checkpoint"
	"github.com/feather-eval/feather/harness/backends/llamacpp"
	"github.com/feather-eval/feather/harness/backends/llamacpp/gguf"
	"github.com/feather-eval/feather/harness/backends/llamacpp/llamalib"
	"github.com/feather-eval/feather/harness/backends/llamacpp/llamalib/llamatest"
	"github.com/feather-eval/feather/harness/backends/llamacpp/twin"
	"github.com/feather-eval/feather/harness/backends/onnx"
	"github.com/feather-eval/feather/harness/backends/onnx/ortlib/orttest"
	"github.com/feather-eval/feather/harness/backends/onnx/testmodel"
	"github.com/feather-eval/feather/harness/backends/onnx/tokenizer"
	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/report/runs"
	"github.com/feather-eval/feather/harness/suites/featherweight"
	"github.com/feather-eval/feather/harness/suites/microbench"
	"github.com/feather-eval/feather/internal/testenv"
)

// The same random weights run by two engines: llama.cpp on a GGUF file
// (F32 weights, float32 attention) and ONNX Runtime on the ONNX export
// the GGUF was converted from, each through its backend's lm.Scorer and
// lm.Generator, on the μBench and Featherweight requests the suites send.

// crossArchs are the architectures both engines run, each with a real
// tokenizer's vocabulary, and the largest difference in a continuation's
// log-probability accepted between them. build writes the model for the
// onnx backend into dir.
var crossArchs = []struct {
	name     string
	tokenize string
	build    func(dir, tokDir string) (*twin.Twin, error)
	maxDelta float64
	// q8 also compares Q8_0 weights with F32 ones.
	q8 bool
}{
	// A Llama exported to ONNX by the test models' builder: the same
	// arithmetic, float32 rounding apart.
	{"llama", "smollm-135m", exported(testmodel.Llama), 1e-3, true},
	// The other families from Hugging Face checkpoints, whose graph the
	// onnx backend builds at load time.
	{"qwen2", "smollm-135m", fromCheckpoint(checkpoint.Qwen2), 1e-3, false},
	{"qwen3", "smollm-135m", fromCheckpoint(checkpoint.Qwen3), 1e-3, false},
	// GPT-2's GELU is the tanh approximation in both, but llama.cpp looks
	// it up in a table indexed by the input rounded to float16 (up to
	// 5e-4·|x| off), where the onnx backend computes it as transformers
	// does: llama.cpp is the one off, by about 1e-3 a token (measured).
	{"gpt2", "gpt2", fromCheckpoint(checkpoint.GPT2), 5e-3, true},
	// Pythia's GELU is exact (erf) in transformers and the onnx backend;
	// llama.cpp computes every GELU with the tanh approximation (the two
	// differ by up to 4.7e-4, at x = -2.7) through that table: about
	// 1.2e-3 a token (measured).
	{"gpt_neox", "gpt2", fromCheckpoint(checkpoint.GPTNeoX), 5e-3, false},
	// Gemma 3, six layers: five slide over a 16-token window, shorter than
	// most μBench contexts, so the onnx backend's cached stages and its
	// generation cross the window's edge; llama.cpp's GELU table through
	// six gated layers again (measured: 4e-3).
	{"gemma3_text", "smollm-135m", fromGemma3Config, 1e-2, false},
	// llama3-scaled RoPE over an original context of 64 positions, so
	// that μBench's contexts and documents reach the scaled and blended
	// frequencies; llama.cpp reads the scaling as a rope_freqs tensor.
	{"llama/llama3_rope", "smollm-135m", fromLlama3RopeConfig, 1e-3, false},
}

// fromLlama3RopeConfig writes a random two-layer llama with llama3 RoPE
// scaling.
func fromLlama3RopeConfig(dir, tokDir string) (*twin.Twin, error) {
	return twin.FromConfig(dir, map[string]any{
		"model_type": "llama", "architectures": []any{"LlamaForCausalLM"},
		"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
		"intermediate_size": 176, "max_position_embeddings": 2048, "rms_norm_eps": 1e-5, "rope_theta": 10000.0,
		"tie_word_embeddings": false, "torch_dtype": "float32",
		"rope_scaling": map[string]any{"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
			"original_max_position_embeddings": 64},
	}, 31, tokDir)
}

// fromGemma3Config writes a random six-layer Gemma 3 in what llama.cpp
// converts: query_pre_attn_scalar = head_dim, every sixth layer global,
// a local RoPE base of 10000.
func fromGemma3Config(dir, tokDir string) (*twin.Twin, error) {
	return twin.FromConfig(dir, map[string]any{
		"model_type": "gemma3_text", "architectures": []any{"Gemma3ForCausalLM"},
		"hidden_size": 64, "num_hidden_layers": 6, "num_attention_heads": 4, "num_key_value_heads": 1, "head_dim": 16,
		"intermediate_size": 128, "max_position_embeddings": 2048, "rms_norm_eps": 1e-6, "hidden_activation": "gelu_pytorch_tanh",
		"tie_word_embeddings": true, "query_pre_attn_scalar": 16, "sliding_window": 16, "rope_theta": 1e6,
		"rope_local_base_freq": 10000.0, "torch_dtype": "float32",
	}, 30, tokDir)
}

// exact reports whether the engines compute the same arithmetic for an
// architecture (its bound is float32 rounding's), so that no greedy
// token may differ.
func exact(maxDelta float64) bool { return maxDelta <= 1e-3 }

// exported builds a testmodel ONNX export of arch.
func exported(arch testmodel.Arch) func(dir, tokDir string) (*twin.Twin, error) {
	return func(dir, tokDir string) (*twin.Twin, error) {
		return twin.Build(dir, testmodel.Config{Arch: arch, Seed: 30, PositionIDs: true}, tokDir)
	}
}

// fromCheckpoint writes a random checkpoint of arch.
func fromCheckpoint(arch string) func(dir, tokDir string) (*twin.Twin, error) {
	return func(dir, tokDir string) (*twin.Twin, error) {
		return twin.Checkpoint(dir, arch, checkpoint.Shape{}, 30, tokDir)
	}
}

// q8Delta bounds the difference Q8_0 weights make to a continuation's
// log-probability, per scored token: Q8_0 stores each weight rounded to
// 1/127 of the largest magnitude in its block of 32 (a relative error up
// to 0.4%), and llama.cpp rounds the activations the same way before
// each product. On these random models, whose logits spread wide, that
// moves a token's log-probability by up to 0.07 (measured on llama and
// gpt2).
const q8Delta = 0.15

// crossFixture builds a model with tok's vocabulary for the onnx backend
// and as F32 and Q8_0 GGUF files.
func crossFixture(t *testing.T, build func(dir, tokDir string) (*twin.Twin, error), tok string) (tw *twin.Twin, f32, q8 string) {
	t.Helper()
	dir := t.TempDir()
	tw, err := build(filepath.Join(dir, "onnx"), testenv.Tokenizer(tok))
	require.NoError(t, err)
	f32, err = tw.GGUF(filepath.Join(dir, "model-F32.gguf"), gguf.AllF32)
	require.NoError(t, err)
	q8, err = tw.GGUF(filepath.Join(dir, "model-Q8_0.gguf"), gguf.MostlyQ8_0)
	require.NoError(t, err)
	return tw, f32, q8
}

// delta is the largest difference seen between a scorer and the
// reference, and where.
type delta struct {
	worst, perToken float64
	at              lm.LLRequest
	requests        int
	// mismatch lists requests the two tokenized differently.
	mismatch []string
}

func (d *delta) note(r lm.LLRequest, a, b lm.LLResult) {
	if a.Err != nil || b.Err != nil || a.ContextTokens != b.ContextTokens || a.ContinuationTokens != b.ContinuationTokens || a.Truncated != b.Truncated {
		d.mismatch = append(d.mismatch, fmt.Sprintf("%q+%q: %d+%d tokens (truncated %v, %v) against %d+%d (%v, %v)", r.Context, r.Continuation,
			a.ContextTokens, a.ContinuationTokens, a.Truncated, a.Err, b.ContextTokens, b.ContinuationTokens, b.Truncated, b.Err))
		return
	}
	d.requests++
	x := math.Abs(a.LogProb - b.LogProb)
	if x > d.worst || math.IsNaN(x) {
		d.worst, d.at = x, r
	}
	d.perToken = math.Max(d.perToken, x/float64(a.ContinuationTokens))
}

// comparingScorer scores every request with ref and with each of others,
// notes how far each is from ref, and answers with ref's results.
type comparingScorer struct {
	ref    lm.Scorer
	others []lm.Scorer
	deltas []delta
	// rolling is the largest difference in a document's log-probability
	// per token, for each of others.
	rolling []float64
}

func newComparingScorer(ref lm.Scorer, others ...lm.Scorer) *comparingScorer {
	return &comparingScorer{ref: ref, others: others, deltas: make([]delta, len(others)), rolling: make([]float64, len(others))}
}

func (c *comparingScorer) LogLikelihood(ctx context.Context, reqs []lm.LLRequest, opt lm.ScoreOptions) ([]lm.LLResult, error) {
	want, err := c.ref.LogLikelihood(ctx, reqs, opt)
	if err != nil {
		return nil, err
	}
	for k, s := range c.others {
		got, err := s.LogLikelihood(ctx, reqs, opt)
		if err != nil {
			return nil, err
		}
		for i, r := range reqs {
			c.deltas[k].note(r, want[i], got[i])
		}
	}
	return want, nil
}

func (c *comparingScorer) RollingLogLikelihood(ctx context.Context, texts []string, opt lm.ScoreOptions) ([]lm.RollingResult, error) {
	want, err := c.ref.RollingLogLikelihood(ctx, texts, opt)
	if err != nil {
		return nil, err
	}
	for k, s := range c.others {
		got, err := s.RollingLogLikelihood(ctx, texts, opt)
		if err != nil {
			return nil, err
		}
		for i := range texts {
			a, b := want[i], got[i]
			if a.Err != nil || b.Err != nil || a.Tokens != b.Tokens || a.Windows != b.Windows {
				c.deltas[k].mismatch = append(c.deltas[k].mismatch, fmt.Sprintf("document %d: %d tokens in %d windows (%v) against %d in %d (%v)", i, a.Tokens, a.Windows, a.Err, b.Tokens, b.Windows, b.Err))
				continue
			}
			c.rolling[k] = math.Max(c.rolling[k], math.Abs(a.LogProb-b.LogProb)/float64(a.Tokens))
		}
	}
	return want, nil
}

// referenceLogProb is the continuation's log-probability under the
// float64 reference forward pass of tw's ONNX model, tokenized by the
// ONNX model's tokenizer (r must not need truncation).
func referenceLogProb(t *testing.T, tw *twin.Twin, prefix int, r lm.LLRequest) float64 {
	t.Helper()
	tok, err := tokenizer.Load(tw.ONNX)
	require.NoError(t, err)
	c := tok.Encode(r.Context, false)
	k := tok.Encode(r.Context+r.Continuation, false)[len(c):]
	rows := tw.Model.Logits(append(append([]int{prefix}, c...), k...))
	lp := 0.0
	for j, id := range k {
		lp += testmodel.LogSoftmax(rows[len(c)+j])[id]
	}
	return lp
}

// TestLlamaCppAgreesWithONNX: the two engines give the μBench requests
// the same log-probabilities (within crossArchs' bound) and the
// Featherweight prompts the same greedy text (at least 95% of them), and
// Q8_0 weights stay within q8Delta of F32 ones.
func TestLlamaCppAgreesWithONNX(t *testing.T) {
	llamatest.Require(t)
	orttest.Require(t)
	tasks, err := mbTasks()
	require.NoError(t, err)
	ds, err := featherweight.Load("testdata/featherweight/featherweight.jsonl")
	require.NoError(t, err)
	// Every fifth item of each task: about 800 requests and two
	// bits-per-byte documents.
	nth := map[string]int{}
	sample := func(task, _ string) bool { nth[task]++; return nth[task]%5 == 1 }
	for _, tc := range crossArchs {
		t.Run(tc.name, func(t *testing.T) {
			tw, f32, q8 := crossFixture(t, tc.build, tc.tokenize)
			ctx := context.Background()
			ox, err := onnx.Open(ctx, tw.ONNX, onnx.Options{Chat: "no", Threads: 1})
			require.NoError(t, err)
			defer ox.Close()
			lc, err := llamacpp.Open(ctx, f32, llamacpp.Options{Float32: true, Chat: "no", Threads: 1})
			require.NoError(t, err)
			defer lc.Close()

			clear(nth)
			cmp := newComparingScorer(ox, lc)
			_, err = microbench.Evaluate(ctx, cmp, ox.Info(), tasks, microbench.Options{Selected: sample})
			require.NoError(t, err)
			d := cmp.deltas[0]
			t.Logf("μBench: %d requests, max |Δ log-prob| %.3g (%q + %q), %.3g per token; bits-per-byte documents %.3g per token",
				d.requests, d.worst, d.at.Context, d.at.Continuation, d.perToken, cmp.rolling[0])
			assert.Empty(t, d.mismatch, "the engines tokenize alike")
			assert.Greater(t, d.requests, 700)
			assert.LessOrEqual(t, d.worst, tc.maxDelta)
			assert.LessOrEqual(t, cmp.rolling[0], tc.maxDelta)
			if tw.Model != nil {
				// The ONNX engine computes the model it was given: its
				// float64 reference forward pass agrees.
				ll, err := ox.LogLikelihood(ctx, []lm.LLRequest{d.at}, lm.ScoreOptions{})
				require.NoError(t, err)
				ref := referenceLogProb(t, tw, tw.Vocab.Special["bos"], d.at)
				assert.InDelta(t, ref, ll[0].LogProb, 1e-4, "the ONNX engine against the float64 reference")
			}

			if tc.q8 {
				lq, err := llamacpp.Open(ctx, q8, llamacpp.Options{Float32: true, Chat: "no", Threads: 1})
				require.NoError(t, err)
				defer lq.Close()
				clear(nth)
				q := newComparingScorer(lc, lq)
				_, err = microbench.Evaluate(ctx, q, lc.Info(), tasks, microbench.Options{Selected: sample})
				require.NoError(t, err)
				t.Logf("Q8_0 against F32: max |Δ log-prob| %.3g per token, %.3g per request", q.deltas[0].perToken, q.deltas[0].worst)
				assert.Empty(t, q.deltas[0].mismatch)
				assert.LessOrEqual(t, q.deltas[0].perToken, q8Delta)
			}

			var reqs []lm.GenerateRequest
			for _, st := range featherweight.Styles {
				for _, it := range ds.Items {
					reqs = append(reqs, featherweight.Request(st, it, false))
				}
			}
			ga, err := ox.Generate(ctx, reqs)
			require.NoError(t, err)
			gb, err := lc.Generate(ctx, reqs)
			require.NoError(t, err)
			// A reply differs for one of two reasons. llama.cpp ends
			// generation at more tokens than a model's EOS: by their text
			// it adds end-of-turn and fill-in-the-middle tokens (SmolLM's
			// <reponame> and <file_sep>), where transformers, and the onnx
			// backend, stop at the EOS ids of config.json alone. Or the two
			// top tokens of a step were closer than the engines' difference.
			same, stopped, flipped := 0, 0, 0
			for i := range reqs {
				a, b := ga[i], gb[i]
				require.NoError(t, a.Err)
				require.NoError(t, b.Err)
				assert.Equal(t, a.InputTokens, b.InputTokens, "prompt %d", i)
				why := "a near tie"
				switch {
				case a.Text == b.Text:
					same++
					continue
				case b.StopReason == lm.StopEOS && a.StopReason == lm.StopLength && strings.HasPrefix(a.Text, b.Text):
					stopped++
					why = "llama.cpp's end-of-generation set"
				default:
					flipped++
				}
				t.Logf("differs (%s): %q\n  onnx:     %q (%s)\n  llamacpp: %q (%s)", why, reqs[i].Prompt, a.Text, a.StopReason, b.Text, b.StopReason)
			}
			t.Logf("Featherweight: %d of %d greedy replies identical; %d stopped at an end-of-generation token of llama.cpp's, %d diverged at a near tie",
				same, len(reqs), stopped, flipped)
			assert.GreaterOrEqual(t, float64(same), 0.95*float64(len(reqs)))
			if exact(tc.maxDelta) {
				assert.Zero(t, flipped, "logits that agree to float32 rounding pick the same tokens")
			}
		})
	}
}

// TestGGUFCatalogEntryRunsTheSuites: a catalog entry naming a GGUF file
// runs Featherweight (through the chat template the file carries),
// μBench and Featherbench as a user runs them, in a child test binary;
// a second Featherbench run with -fb.cache is answered by the response
// cache, which keys on the entry's identity.
func TestGGUFCatalogEntryRunsTheSuites(t *testing.T) {
	if os.Getenv("FEATHER_GGUF_SUITES_CHILD") != "" {
		t.Skip("the child runs the suites themselves")
	}
	llamatest.Require(t)
	lib, err := llamalib.Locate(os.Getenv)
	require.NoError(t, err)
	dir := t.TempDir()
	ck, err := checkpoint.Random(checkpoint.Llama, checkpoint.Shape{Vocab: 49153, TiedEmbeddings: true}, 31)
	require.NoError(t, err)
	v, err := gguf.LoadVocab(testenv.Tokenizer("smollm-135m"), "")
	require.NoError(t, err)
	v.ChatTemplate = testmodel.ChatML
	b, err := gguf.FromCheckpoint(ck, v, gguf.MostlyQ8_0)
	require.NoError(t, err)
	require.NoError(t, b.WriteFile(filepath.Join(dir, "tiny.gguf")))
	cat := filepath.Join(dir, "models.json")
	require.NoError(t, os.WriteFile(cat, []byte(`{"tiny-gguf": {"backend": "llamacpp", "path": "tiny.gguf", "threads": 1, "max_tokens": 32, "enabled": true}}`), 0o644))
	results := filepath.Join(dir, "results")
	child := func(run string, args ...string) string {
		cmd := exec.Command(os.Args[0], append([]string{"-test.run=" + run, "-results=" + results,
			"-fw.catalog=" + cat, "-mb.catalog=" + cat, "-fb.catalog=" + cat, "-fb.no-rubric", "-fb.categories=security"}, args...)...)
		cmd.Env = append(os.Environ(), "FEATHER_GGUF_SUITES_CHILD=1", "FEATHER_PROGRESS=0", "FEATHER_MODELS=", "FEATHER_FB_MODELS=", "FEATHER_SHARD=",
			"FEATHER_CACHE="+filepath.Join(dir, "cache"), llamalib.Env+"="+filepath.Dir(lib))
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		return string(out)
	}
	child("^(TestFeatherweight|TestMicrobench|TestFeatherbench)$", "-fb.cache")

	set, err := runs.Load([]string{filepath.Join(results, "latest")}, runs.Options{TasksDir: "tasks"})
	require.NoError(t, err)
	require.Len(t, set.Featherweight.Runs, 1)
	fw := set.Featherweight.Runs[0].Results
	require.Len(t, fw, 1)
	assert.Equal(t, "tiny-gguf", fw[0].Model.Key)
	assert.Equal(t, llamacpp.Name, fw[0].Model.Backend)
	assert.True(t, fw[0].Model.Chat, "the GGUF's chat template is used")
	require.Len(t, fw[0].Records, 200)
	for _, r := range fw[0].Records {
		assert.Empty(t, r.Error, r.ID)
		assert.True(t, strings.HasPrefix(r.PromptSent, "<|im_start|>user\n"), r.PromptSent)
	}
	require.Len(t, set.Microbench.Results, 1)
	mb := set.Microbench.Results[0]
	assert.Equal(t, llamacpp.Name, mb.Model.Backend)
	assert.True(t, mb.Complete, "every μBench item scored")
	require.NotEmpty(t, set.Featherbench.Records)
	for _, r := range set.Featherbench.Records {
		assert.Equal(t, "tiny-gguf", r.Model)
		assert.Nil(t, r.Error, r.Task)
		assert.False(t, r.Cached)
	}

	// The same run again: every Featherbench answer comes from the cache.
	require.NoError(t, os.RemoveAll(results))
	child("^TestFeatherbench$", "-fb.cache")
	set, err = runs.Load([]string{filepath.Join(results, "latest")}, runs.Options{TasksDir: "tasks"})
	require.NoError(t, err)
	require.NotEmpty(t, set.Featherbench.Records)
	for _, r := range set.Featherbench.Records {
		assert.True(t, r.Cached, r.Task)
	}
}
