package onnx

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	ort "github.com/yalue/onnxruntime_go"

	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/backends/onnx/ortlib"
	"github.com/feather-eval/feather/harness/backends/onnx/ortlib/orttest"
	"github.com/feather-eval/feather/harness/backends/onnx/smoke"
	"github.com/feather-eval/feather/harness/backends/onnx/testmodel"
	"github.com/feather-eval/feather/harness/lm"
)

func tensorInfo(name string, dt ort.TensorElementDataType, dims ...int64) ort.InputOutputInfo {
	return ort.InputOutputInfo{Name: name, OrtValueType: ort.ONNXTypeTensor, DataType: dt, Dimensions: dims}
}

const (
	i64     = ort.TensorElementDataTypeInt64
	f32     = ort.TensorElementDataTypeFloat
	f16     = ort.TensorElementDataTypeFloat16
	boolean = ort.TensorElementDataTypeBool
)

// decoderIO is the signature of a two-layer export with a cache.
func decoderIO() (ins, outs []ort.InputOutputInfo) {
	ins = []ort.InputOutputInfo{tensorInfo("input_ids", i64, -1, -1), tensorInfo("attention_mask", i64, -1, -1), tensorInfo("position_ids", i64, -1, -1)}
	outs = []ort.InputOutputInfo{tensorInfo("logits", f32, -1, -1, 512)}
	for l := 0; l < 2; l++ {
		for _, kv := range []string{"key", "value"} {
			ins = append(ins, tensorInfo(fmt.Sprintf("past_key_values.%d.%s", l, kv), f32, -1, 2, -1, 16))
			outs = append(outs, tensorInfo(fmt.Sprintf("present.%d.%s", l, kv), f32, -1, 2, -1, 16))
		}
	}
	return ins, outs
}

func TestDiscoverIO(t *testing.T) {
	ins, outs := decoderIO()
	ins = append(ins, tensorInfo("use_cache_branch", boolean, 1))
	spec, err := discoverIO("m.onnx", ins, outs, modelConfig{Layers: 2, KVHeads: 2, HeadDim: 16, Vocab: 512})
	require.NoError(t, err)
	assert.Equal(t, &ioSpec{
		inputs: []string{"input_ids", "attention_mask", "position_ids", "past_key_values.0.key", "past_key_values.0.value",
			"past_key_values.1.key", "past_key_values.1.value", "use_cache_branch"},
		outputs:        []string{"logits", "present.0.key", "present.0.value", "present.1.key", "present.1.value"},
		hasMask:        true,
		hasPos:         true,
		hasCacheBranch: true,
		layers:         2, kvHeads: 2, headDim: 16, kvType: f32, logitsType: f32, vocab: 512,
	}, spec)

	// Symbolic sizes come from config.json.
	ins, outs = decoderIO()
	for i := range ins {
		if strings.HasPrefix(ins[i].Name, "past") {
			ins[i].Dimensions = ort.NewShape(-1, -1, -1, -1)
		}
	}
	outs[0].Dimensions = ort.NewShape(-1, -1, -1)
	spec, err = discoverIO("m.onnx", ins, outs, modelConfig{KVHeads: 2, HeadDim: 16, Vocab: 600})
	require.NoError(t, err)
	assert.Equal(t, []int{2, 16, 600}, []int{spec.kvHeads, spec.headDim, spec.vocab})

	// The logits-to-keep input, under either name, is fed last.
	for _, name := range []string{"num_logits_to_keep", "logits_to_keep"} {
		ins, outs = decoderIO()
		ins = append([]ort.InputOutputInfo{tensorInfo(name, i64)}, ins...)
		spec, err = discoverIO("m.onnx", ins, outs, modelConfig{Layers: 2, KVHeads: 2, HeadDim: 16, Vocab: 512})
		require.NoError(t, err)
		assert.Equal(t, name, spec.keepInput)
		assert.Equal(t, name, spec.inputs[len(spec.inputs)-1])
	}
}

func TestDiscoverIOErrors(t *testing.T) {
	cfg := modelConfig{Layers: 2, KVHeads: 2, HeadDim: 16, Vocab: 512}
	drop := func(list []ort.InputOutputInfo, name string) []ort.InputOutputInfo {
		var out []ort.InputOutputInfo
		for _, x := range list {
			if x.Name != name {
				out = append(out, x)
			}
		}
		return out
	}
	tests := []struct {
		name string
		edit func(ins, outs []ort.InputOutputInfo, cfg *modelConfig) ([]ort.InputOutputInfo, []ort.InputOutputInfo)
		want string
	}{
		{"no logits", func(ins, outs []ort.InputOutputInfo, _ *modelConfig) ([]ort.InputOutputInfo, []ort.InputOutputInfo) {
			outs[0].Name = "last_hidden_state"
			return ins, outs
		}, `m.onnx has no "logits" output (outputs: last_hidden_state, present.0.key, present.0.value, present.1.key, present.1.value); feather needs a causal-LM export with logits (optimum-cli export onnx --task text-generation-with-past)`},
		{"no input_ids", func(ins, outs []ort.InputOutputInfo, _ *modelConfig) ([]ort.InputOutputInfo, []ort.InputOutputInfo) {
			return drop(ins, "input_ids"), outs
		}, "m.onnx has no input_ids input (inputs: attention_mask, past_key_values.0.key, past_key_values.0.value, past_key_values.1.key, past_key_values.1.value, position_ids); it is not a Hugging Face causal-LM export"},
		{"unknown input", func(ins, outs []ort.InputOutputInfo, _ *modelConfig) ([]ort.InputOutputInfo, []ort.InputOutputInfo) {
			return append(ins, tensorInfo("pixel_values", f32, -1, 3, 224, 224)), outs
		}, "m.onnx has inputs feather does not know how to feed: pixel_values (it feeds input_ids, attention_mask, position_ids, past_key_values.N.key/value, use_cache_branch and num_logits_to_keep or logits_to_keep); export with `optimum-cli export onnx --task text-generation-with-past`"},
		{"value without key", func(ins, outs []ort.InputOutputInfo, _ *modelConfig) ([]ort.InputOutputInfo, []ort.InputOutputInfo) {
			return drop(ins, "past_key_values.1.key"), outs
		}, "m.onnx: past_key_values.1.key is missing (the model has past_key_values.1.value)"},
		{"no present", func(ins, outs []ort.InputOutputInfo, _ *modelConfig) ([]ort.InputOutputInfo, []ort.InputOutputInfo) {
			return ins, drop(outs, "present.1.value")
		}, "m.onnx takes past_key_values.1.value but has no present.1.value output to carry the cache forward"},
		{"kv heads disagree", func(ins, outs []ort.InputOutputInfo, cfg *modelConfig) ([]ort.InputOutputInfo, []ort.InputOutputInfo) {
			cfg.KVHeads = 4
			return ins, outs
		}, "m.onnx: the number of key/value heads disagrees: past_key_values.0.key dimension 1 is 2 but config.json's num_key_value_heads is 4; the config does not belong to this model"},
		{"vocab disagrees", func(ins, outs []ort.InputOutputInfo, cfg *modelConfig) ([]ort.InputOutputInfo, []ort.InputOutputInfo) {
			cfg.Vocab = 50257
			return ins, outs
		}, "m.onnx: the vocabulary size disagrees: logits dimension 2 is 512 but config.json's vocab_size is 50257; the config does not belong to this model"},
		{"layers disagree", func(ins, outs []ort.InputOutputInfo, cfg *modelConfig) ([]ort.InputOutputInfo, []ort.InputOutputInfo) {
			cfg.Layers = 3
			return ins, outs
		}, "m.onnx has 2 past_key_values layers but config.json says num_hidden_layers is 3; the config does not belong to this model"},
		{"unknown head size", func(ins, outs []ort.InputOutputInfo, cfg *modelConfig) ([]ort.InputOutputInfo, []ort.InputOutputInfo) {
			for i := range ins {
				if strings.HasPrefix(ins[i].Name, "past") {
					ins[i].Dimensions = ort.NewShape(-1, 2, -1, -1)
				}
			}
			cfg.HeadDim = 0
			return ins, outs
		}, "m.onnx: the head size is unknown: past_key_values.0.key dimension 3 is symbolic and config.json has no head_dim (or hidden_size / num_attention_heads)"},
		{"int32 ids", func(ins, outs []ort.InputOutputInfo, _ *modelConfig) ([]ort.InputOutputInfo, []ort.InputOutputInfo) {
			ins[0].DataType = ort.TensorElementDataTypeInt32
			return ins, outs
		}, "m.onnx: input_ids is int32; feather feeds int64 token ids as Hugging Face exports declare them"},
		{"logits to keep not a scalar", func(ins, outs []ort.InputOutputInfo, _ *modelConfig) ([]ort.InputOutputInfo, []ort.InputOutputInfo) {
			return append(ins, tensorInfo("num_logits_to_keep", i64, 1)), outs
		}, "m.onnx: num_logits_to_keep is int64 of shape [1]; feather feeds it as transformers.js does, an int64 scalar"},
		{"two logits to keep inputs", func(ins, outs []ort.InputOutputInfo, _ *modelConfig) ([]ort.InputOutputInfo, []ort.InputOutputInfo) {
			return append(ins, tensorInfo("num_logits_to_keep", i64), tensorInfo("logits_to_keep", i64)), outs
		}, "m.onnx has both num_logits_to_keep and logits_to_keep inputs; an export has one logits-to-keep input"},
		{"mixed cache types", func(ins, outs []ort.InputOutputInfo, _ *modelConfig) ([]ort.InputOutputInfo, []ort.InputOutputInfo) {
			ins[len(ins)-1].DataType = f16
			return ins, outs
		}, "m.onnx: past_key_values.1.value is float16 but past_key_values.0.key is float32"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ins, outs := decoderIO()
			c := cfg
			ins, outs = tt.edit(ins, outs, &c)
			_, err := discoverIO("m.onnx", ins, outs, c)
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
		})
	}
}

func TestOpenErrors(t *testing.T) {
	orttest.Require(t)
	fx := fixture(t, "llama-gqa")
	withoutTokenizer := copyFolder(t, fx.Dir)
	require.NoError(t, os.Remove(filepath.Join(withoutTokenizer, "tokenizer.json")))
	withoutData := copyFolder(t, fixture(t, "external").Dir)
	require.NoError(t, os.Remove(filepath.Join(withoutData, "onnx", "model.onnx_data")))
	withoutConfig := copyFolder(t, fx.Dir)
	require.NoError(t, os.Remove(filepath.Join(withoutConfig, "config.json")))
	noContext := copyFolder(t, fx.Dir)
	editJSON(t, filepath.Join(noContext, "config.json"), func(v map[string]any) { delete(v, "max_position_embeddings") })
	// A 600-token tokenizer beside a 512-token model.
	bigTok := copyFolder(t, fx.Dir)
	other := fixtureWithVocab(t, 600)
	for _, f := range []string{"tokenizer.json", "tokenizer_config.json"} {
		data, err := os.ReadFile(filepath.Join(other, f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(bigTok, f), data, 0o644))
	}

	tests := []struct {
		name string
		dir  string
		opt  Options
		want string
	}{
		{"missing folder", filepath.Join(fixtureRoot, "no-such-model"), Options{},
			"model folder FIXTURES/no-such-model does not exist; download a Hugging Face ONNX export there (see the README's \"Running your own models\")"},
		{"missing tokenizer", withoutTokenizer, Options{},
			"loading the tokenizer: DIR: no tokenizer.json, and no vocab.json + merges.txt pair: want a Hugging Face tokenizer folder"},
		{"missing variant", fx.Dir, Options{Variant: "q4"},
			"DIR has no q4 variant (looked for model_q4.onnx, onnx/model_q4.onnx, decoder_model_merged_q4.onnx, onnx/decoder_model_merged_q4.onnx); " +
				"it has onnx/model.onnx (fp32), onnx/model_quantized.onnx (quantized). Set the model's \"variant\" to one of: fp32, quantized"},
		{"missing external data", withoutData, Options{},
			"DIR/onnx/model.onnx keeps its weights in DIR/onnx/model.onnx_data, which is missing; download it too (it sits beside the .onnx file in the repository)"},
		{"missing config", withoutConfig, Options{}, "DIR/config.json is missing: a model folder needs the config.json that comes with the Hugging Face export"},
		{"no context length", noContext, Options{}, "DIR/config.json has no context length (max_position_embeddings, n_positions or n_ctx); add the model's to it"},
		{"vocab disagrees with the tokenizer", bigTok, Options{},
			"model folder DIR: the tokenizer has 600 tokens but the model scores 512 (vocab_size, logits); the tokenizer does not belong to this model"},
		{"chat without a template", fx.Dir, Options{Chat: "yes"},
			"model folder DIR: chat is \"yes\" but DIR/tokenizer_config.json: no chat_template (the model has no chat template; use raw prompts); set chat to \"no\" or \"auto\", or use a chat model's folder"},
		{"bad chat setting", fx.Dir, Options{Chat: "maybe"}, `chat setting "maybe" must be yes, no or auto`},
		{"unknown provider", fx.Dir, Options{Provider: "tpu"}, `unknown provider "tpu"; use "cpu" or "cuda"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Open(context.Background(), tt.dir, tt.opt)
			require.Error(t, err)
			want := strings.ReplaceAll(strings.ReplaceAll(tt.want, "DIR", tt.dir), "FIXTURES", fixtureRoot)
			assert.Equal(t, want, err.Error())
		})
	}
}

// fixtureWithVocab builds (once) a model whose tokenizer has vocab tokens.
func fixtureWithVocab(t *testing.T, vocab int) string {
	name := fmt.Sprintf("vocab%d", vocab)
	if _, ok := modelConfigs[name]; !ok {
		modelConfigs[name] = testmodel.Config{Arch: testmodel.Llama, Vocab: vocab, PositionIDs: true, Seed: 22}
	}
	return fixture(t, name).Dir
}

func TestOpenEntry(t *testing.T) {
	orttest.Require(t)
	fx := fixture(t, "llama-gqa")
	e := catalog.Entry{Key: "mine", Backend: Name, Dir: filepath.Dir(fx.Dir),
		Settings: &Settings{Path: filepath.Base(fx.Dir), dir: filepath.Dir(fx.Dir), Variant: "quantized", Threads: 1, Chat: "no"}}
	m, err := OpenEntry(context.Background(), e)
	require.NoError(t, err)
	defer m.Close()
	assert.Equal(t, "mine", m.Info().Key)
	assert.Equal(t, "llama-gqa", m.Info().Name)
	assert.Equal(t, fx.Path("quantized"), m.(*Model).file)

	_, err = OpenEntry(context.Background(), catalog.Entry{Key: "x", Backend: Name, Settings: &Settings{Builtin: "large"}})
	assert.EqualError(t, err, `unknown builtin "large"; the onnx backend has "smoke"`)

	m, err = OpenEntry(context.Background(), catalog.Entry{Key: "gone", Backend: Name, Settings: &Settings{Path: "nope", dir: fixtureRoot}})
	assert.Nil(t, m, "a failed open is a nil interface, not a typed nil")
	assert.Error(t, err)
}

// TestOpenWithoutORT opens a valid folder in a child process whose
// ONNXRUNTIME_LIB points nowhere: the error must say how to fix it.
func TestOpenWithoutORT(t *testing.T) {
	if dir := os.Getenv("FEATHER_ONNX_TEST_OPEN"); dir != "" {
		_, err := Open(context.Background(), dir, Options{})
		fmt.Printf("ERROR: %v\n", err)
		return
	}
	orttest.Require(t) // the parent builds the fixture with the real library
	dir := fixture(t, "llama-gqa").Dir
	lib := filepath.Join(t.TempDir(), "libonnxruntime.so.1")
	cmd := exec.Command(os.Args[0], "-test.run=^TestOpenWithoutORT$", "-test.count=1")
	cmd.Env = append(os.Environ(), "FEATHER_ONNX_TEST_OPEN="+dir, ortlib.Env+"="+lib)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	want := fmt.Sprintf("ERROR: %s=%s: no such file. Point %s at libonnxruntime.so.1 from ONNX Runtime >= 1.24, or unset it to use the library `make deps` provisions at %s\n",
		ortlib.Env, lib, ortlib.Env, ortlib.DefaultPath())
	assert.Contains(t, string(out), want)
}

func TestOpenEntrySmoke(t *testing.T) {
	orttest.Require(t)
	t.Setenv("FEATHER_CACHE", t.TempDir())
	m, err := OpenEntry(context.Background(), catalog.Entry{Key: "smoke", Backend: Name, Settings: &Settings{Builtin: "smoke"}})
	require.NoError(t, err)
	defer m.Close()
	info := m.Info()
	assert.True(t, info.Smoke)
	assert.Equal(t, "smoke", info.Key)
	assert.Equal(t, "smoke (built-in test model)", info.Name)
	assert.Equal(t, smoke.Dir(), info.Path)
	assert.True(t, info.Chat, "the smoke model has a ChatML template")
	assert.Equal(t, 2048, info.ContextLength)
	assert.Positive(t, info.Params)

	g := m.(lm.Generator)
	res, err := g.Generate(context.Background(), []lm.GenerateRequest{{Messages: []lm.Message{{Role: "user", Content: "Which letter? A, B, C or D"}}, MaxNewTokens: 20}})
	require.NoError(t, err)
	require.NoError(t, res[0].Err)
	assert.Equal(t, "<|im_start|>user\nWhich letter? A, B, C or D<|im_end|>\n<|im_start|>assistant\n", res[0].PromptSent)
	assert.Contains(t, []string{lm.StopEOS, lm.StopLength}, res[0].StopReason)
}
