package llamalib

import (
	"os"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/internal/testenv"
)

// TestStructLayout pins the mirrors to the sizes and offsets of llama.h
// v0.4.0's structs on linux/amd64.
func TestStructLayout(t *testing.T) {
	var mp modelParams
	var cp contextParams
	var b cBatch
	for _, tc := range []struct {
		name      string
		got, want uintptr
	}{
		{"sizeof(llama_model_params)", unsafe.Sizeof(mp), 80},
		{"llama_model_params.main_gpu", unsafe.Offsetof(mp.MainGPU), 32},
		{"llama_model_params.tensor_split", unsafe.Offsetof(mp.TensorSplit), 40},
		{"llama_model_params.kv_overrides", unsafe.Offsetof(mp.KVOverrides), 64},
		{"llama_model_params.vocab_only", unsafe.Offsetof(mp.VocabOnly), 72},
		{"llama_model_params.load_mtp", unsafe.Offsetof(mp.LoadMTP), 77},
		{"sizeof(llama_context_params)", unsafe.Sizeof(cp), 160},
		{"llama_context_params.n_threads", unsafe.Offsetof(cp.NThreads), 28},
		{"llama_context_params.flash_attn_type", unsafe.Offsetof(cp.FlashAttnType), 52},
		{"llama_context_params.defrag_thold", unsafe.Offsetof(cp.DefragThold), 84},
		{"llama_context_params.cb_eval", unsafe.Offsetof(cp.CbEval), 88},
		{"llama_context_params.type_k", unsafe.Offsetof(cp.TypeK), 104},
		{"llama_context_params.abort_callback", unsafe.Offsetof(cp.AbortCallback), 112},
		{"llama_context_params.embeddings", unsafe.Offsetof(cp.Embeddings), 128},
		{"llama_context_params.kv_unified", unsafe.Offsetof(cp.KVUnified), 133},
		{"llama_context_params.samplers", unsafe.Offsetof(cp.Samplers), 136},
		{"llama_context_params.ctx_other", unsafe.Offsetof(cp.CtxOther), 152},
		{"sizeof(llama_batch)", unsafe.Sizeof(b), 56},
		{"llama_batch.token", unsafe.Offsetof(b.Token), 8},
		{"llama_batch.logits", unsafe.Offsetof(b.Logits), 48},
	} {
		assert.Equal(t, tc.want, tc.got, tc.name)
	}
}

// TestDefaultParams reads the library's default parameters through the
// mirrors: a field at the wrong offset would not hold the default
// llama_model_default_params and llama_context_default_params set
// (src/llama-model.cpp, src/llama-context.cpp of v0.4.0).
func TestDefaultParams(t *testing.T) {
	if err := Init(); err != nil {
		testenv.Missing(t, "llama.cpp unavailable: %v", err)
	}
	assert.Equal(t, modelParams{
		NGPULayers:    -1,
		SplitMode:     1,  // LLAMA_SPLIT_MODE_LAYER
		LoadMode:      -1, // LLAMA_LOAD_MODE_AUTO
		LazyMode:      1,  // LLAMA_LAZY_MODE_AUTO
		UseExtraBufts: true,
	}, c.modelDefaults())
	assert.Equal(t, contextParams{
		NCtx:              512,
		NBatch:            2048,
		NUbatch:           512,
		NSeqMax:           1,
		NOutputsMaxPerSeq: 1,
		NThreads:          4, // GGML_DEFAULT_N_THREADS
		NThreadsBatch:     4,
		RopeScalingType:   -1,
		PoolingType:       -1,
		AttentionType:     -1,
		FlashAttnType:     -1,
		YarnExtFactor:     -1,
		YarnAttnFactor:    -1,
		YarnBetaFast:      -1,
		YarnBetaSlow:      -1,
		DefragThold:       -1,
		TypeK:             1, // GGML_TYPE_F16
		TypeV:             1,
		OffloadKQV:        true,
		NoPerf:            true,
		OpOffload:         true,
		SwaFull:           true,
	}, c.ctxDefaults())
}

// TestLoadRejectsNonLibrary: a file that is not a shared library is an
// error that says what to do, not a crash.
func TestLoadRejectsNonLibrary(t *testing.T) {
	bad := t.TempDir() + "/libllama.so"
	require.NoError(t, os.WriteFile(bad, []byte("not an ELF file"), 0o644))
	_, err := load(bad)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "cannot load "+bad+" as llama.cpp (")
	assert.Contains(t, err.Error(), "). Point LLAMA_CPP_LIB at the folder holding libllama.v0.4.0.so from llama.cpp v0.4.0, or unset it and run `make deps`")
}

func TestVersionOK(t *testing.T) {
	for v, want := range map[string]bool{
		"0.4.0":     true,
		"0.4.0-dev": true,
		"0.4.1":     false,
		"0.4.00":    false,
		"1.0.0":     false,
		"":          false,
	} {
		assert.Equal(t, want, versionOK(v), v)
	}
}
