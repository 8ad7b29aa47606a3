package llamalib

import (
	"fmt"

	"github.com/ebitengine/purego"
)

// The C side of the binding: mirrors of the structs llama.cpp takes and
// returns by value, and the functions the package calls. Everything here
// follows include/llama.h and ggml/include/ggml-backend.h of llama.cpp
// release v0.4.0 (ggml-org/llama.cpp tag v0.4.0), the build that
// @node-llama-cpp/linux-x64 3.21.1 ships. Struct layouts change between
// llama.cpp releases, so a library of another release is refused (see
// versionOK) rather than called with the wrong layout.
//
// Field order, types and padding match the C structs on linux/amd64: purego
// copies a struct argument's memory as it is, and Go lays out these field
// types exactly as C does. capi_test.go pins the sizes and offsets, and
// checks the defaults the library returns through these mirrors.

// modelParams mirrors struct llama_model_params (80 bytes).
type modelParams struct {
	Devices             uintptr // ggml_backend_dev_t *
	TensorBuftOverrides uintptr // const struct llama_model_tensor_buft_override *
	NGPULayers          int32
	SplitMode           int32 // enum llama_split_mode
	LoadMode            int32 // enum llama_load_mode
	LazyMode            int32 // enum llama_lazy_mode
	MainGPU             int32
	TensorSplit         uintptr // const float *
	ProgressCallback    uintptr // llama_progress_callback
	ProgressUserData    uintptr
	KVOverrides         uintptr // const struct llama_model_kv_override *
	VocabOnly           bool
	CheckTensors        bool
	UseExtraBufts       bool
	NoHost              bool
	NoAlloc             bool
	LoadMTP             bool
}

// contextParams mirrors struct llama_context_params (160 bytes).
type contextParams struct {
	NCtx              uint32
	NBatch            uint32
	NUbatch           uint32
	NSeqMax           uint32
	NRsSeq            uint32
	NOutputsMax       uint32
	NOutputsMaxPerSeq uint32
	NThreads          int32
	NThreadsBatch     int32
	CtxType           int32 // enum llama_context_type
	RopeScalingType   int32 // enum llama_rope_scaling_type
	PoolingType       int32 // enum llama_pooling_type
	AttentionType     int32 // enum llama_attention_type
	FlashAttnType     int32 // enum llama_flash_attn_type
	RopeFreqBase      float32
	RopeFreqScale     float32
	YarnExtFactor     float32
	YarnAttnFactor    float32
	YarnBetaFast      float32
	YarnBetaSlow      float32
	YarnOrigCtx       uint32
	DefragThold       float32
	CbEval            uintptr // ggml_backend_sched_eval_callback
	CbEvalUserData    uintptr
	TypeK             int32   // enum ggml_type
	TypeV             int32   // enum ggml_type
	AbortCallback     uintptr // ggml_abort_callback
	AbortCallbackData uintptr
	Embeddings        bool
	OffloadKQV        bool
	NoPerf            bool
	OpOffload         bool
	SwaFull           bool
	KVUnified         bool
	Samplers          uintptr // struct llama_sampler_seq_config *
	NSamplers         uintptr // size_t
	CtxOther          uintptr // struct llama_context *
}

// cBatch mirrors struct llama_batch (56 bytes). Its arrays live in C memory
// from llama_batch_init, so no Go pointer is ever handed to llama.cpp.
type cBatch struct {
	NTokens int32
	Token   *int32
	Embd    *float32
	Pos     *int32
	NSeqID  *int32
	SeqID   **int32
	Logits  *int8
}

// Values from llama.h, ggml.h and llama.cpp's sources the package uses.
const (
	vocabTypeNone     = 0 // LLAMA_VOCAB_TYPE_NONE
	devTypeCPU        = 0 // GGML_BACKEND_DEVICE_TYPE_CPU
	logLevelError     = 4 // GGML_LOG_LEVEL_ERROR
	logLevelCont      = 5 // GGML_LOG_LEVEL_CONT
	tokenNull         = -1
	ggmlTypeF32       = 0       // GGML_TYPE_F32
	flashAttnDisabled = 0       // LLAMA_FLASH_ATTN_TYPE_DISABLED
	llamaMaxSeq       = 256     // LLAMA_MAX_SEQ (src/llama-cparams.h): the most sequences a context may hold
	boundVersion      = "0.4.0" // what llama_version reports for the release bound here
)

// api holds the bound functions. A field's Go type is the C prototype in
// purego's conversions: uintptr for opaque pointers, string for a
// NUL-terminated const char * argument or result, bool for C bool.
type api struct {
	version       func() string
	systemInfo    func() string
	backendInit   func()
	logSet        func(cb uintptr, userData uintptr)
	loadAllFrom   func(dir string)
	devByType     func(typ int32) uintptr
	modelDefaults func() modelParams
	ctxDefaults   func() contextParams

	modelLoad       func(path string, p modelParams) uintptr
	modelFree       func(model uintptr)
	modelVocab      func(model uintptr) uintptr
	modelHasEncoder func(model uintptr) bool
	modelHasDecoder func(model uintptr) bool
	modelNCtxTrain  func(model uintptr) int32
	modelMetaStr    func(model uintptr, key string, buf *byte, size uintptr) int32

	vocabType    func(vocab uintptr) int32
	vocabNTokens func(vocab uintptr) int32
	vocabBOS     func(vocab uintptr) int32
	vocabEOS     func(vocab uintptr) int32
	vocabEOT     func(vocab uintptr) int32
	vocabAddBOS  func(vocab uintptr) bool
	vocabAddEOS  func(vocab uintptr) bool
	vocabIsEOG   func(vocab uintptr, token int32) bool
	tokenize     func(vocab uintptr, text *byte, textLen int32, tokens *int32, nTokensMax int32, addSpecial, parseSpecial bool) int32
	tokenToPiece func(vocab uintptr, token int32, buf *byte, length int32, lstrip int32, special bool) int32
	detokenize   func(vocab uintptr, tokens *int32, nTokens int32, text *byte, textLenMax int32, removeSpecial, unparseSpecial bool) int32

	initFromModel func(model uintptr, p contextParams) uintptr
	free          func(ctx uintptr)
	nCtx          func(ctx uintptr) uint32
	nBatch        func(ctx uintptr) uint32
	nSeqMax       func(ctx uintptr) uint32
	getMemory     func(ctx uintptr) uintptr
	memoryClear   func(mem uintptr, data bool)
	memorySeqRm   func(mem uintptr, seq, p0, p1 int32) bool
	memorySeqCp   func(mem uintptr, src, dst, p0, p1 int32)
	memoryPosMax  func(mem uintptr, seq int32) int32
	batchInit     func(nTokens, embd, nSeqMax int32) cBatch
	batchFree     func(b cBatch)
	decode        func(ctx uintptr, b cBatch) int32
	logitsIth     func(ctx uintptr, i int32) *float32
}

// bind resolves every function in handle; a missing symbol means the
// library is not the llama.cpp release the mirrors follow.
func (a *api) bind(handle uintptr) error {
	for _, f := range []struct {
		fn   any
		name string
	}{
		{&a.systemInfo, "llama_print_system_info"},
		{&a.backendInit, "llama_backend_init"},
		{&a.logSet, "llama_log_set"},
		{&a.loadAllFrom, "ggml_backend_load_all_from_path"},
		{&a.devByType, "ggml_backend_dev_by_type"},
		{&a.modelDefaults, "llama_model_default_params"},
		{&a.ctxDefaults, "llama_context_default_params"},
		{&a.modelLoad, "llama_model_load_from_file"},
		{&a.modelFree, "llama_model_free"},
		{&a.modelVocab, "llama_model_get_vocab"},
		{&a.modelHasEncoder, "llama_model_has_encoder"},
		{&a.modelHasDecoder, "llama_model_has_decoder"},
		{&a.modelNCtxTrain, "llama_model_n_ctx_train"},
		{&a.modelMetaStr, "llama_model_meta_val_str"},
		{&a.vocabType, "llama_vocab_type"},
		{&a.vocabNTokens, "llama_vocab_n_tokens"},
		{&a.vocabBOS, "llama_vocab_bos"},
		{&a.vocabEOS, "llama_vocab_eos"},
		{&a.vocabEOT, "llama_vocab_eot"},
		{&a.vocabAddBOS, "llama_vocab_get_add_bos"},
		{&a.vocabAddEOS, "llama_vocab_get_add_eos"},
		{&a.vocabIsEOG, "llama_vocab_is_eog"},
		{&a.tokenize, "llama_tokenize"},
		{&a.tokenToPiece, "llama_token_to_piece"},
		{&a.detokenize, "llama_detokenize"},
		{&a.initFromModel, "llama_init_from_model"},
		{&a.free, "llama_free"},
		{&a.nCtx, "llama_n_ctx"},
		{&a.nBatch, "llama_n_batch"},
		{&a.nSeqMax, "llama_n_seq_max"},
		{&a.getMemory, "llama_get_memory"},
		{&a.memoryClear, "llama_memory_clear"},
		{&a.memorySeqRm, "llama_memory_seq_rm"},
		{&a.memorySeqCp, "llama_memory_seq_cp"},
		{&a.memoryPosMax, "llama_memory_seq_pos_max"},
		{&a.batchInit, "llama_batch_init"},
		{&a.batchFree, "llama_batch_free"},
		{&a.decode, "llama_decode"},
		{&a.logitsIth, "llama_get_logits_ith"},
	} {
		if err := bindOne(handle, f.fn, f.name); err != nil {
			return err
		}
	}
	return nil
}

func bindOne(handle uintptr, fn any, name string) error {
	sym, err := purego.Dlsym(handle, name)
	if err != nil {
		return fmt.Errorf("it lacks %s", name)
	}
	purego.RegisterFunc(fn, sym)
	return nil
}
