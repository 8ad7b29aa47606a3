// Package llamalib finds and loads llama.cpp's shared libraries at run time
// and offers a small, checked Go API over them: models and their
// vocabularies, contexts with several sequences, batches, logits and KV
// sequence operations. It finds the library by the same rules as
// scripts/deps.sh: LLAMA_CPP_LIB (a folder, or the libllama file) wins;
// otherwise the libraries `make deps` unpacked from the pinned
// @node-llama-cpp/linux-x64 npm package. ggml's own dispatch picks the
// libggml-cpu-<variant>.so that suits the CPU from the same folder.
//
// The binding is a minimal purego one (no cgo) of llama.h from llama.cpp
// v0.4.0 (capi.go); DEPENDENCIES.md says why it is not yzma. A library
// that reports another release is refused, since struct layouts change
// between releases.
//
// # Aborts
//
// A failed GGML_ASSERT, or a C++ exception escaping llama.cpp's C API,
// ends the whole process. Every call is preceded by the checks that keep
// the ones reachable through this API out of reach:
//
//   - llama_tokenize asserts on a vocabulary without a tokenizer and, when
//     asked to add BOS/EOS/SEP, on a vocabulary that lacks them: OpenModel
//     refuses models without a vocabulary, and Tokenize never asks
//     llama.cpp to add special tokens (Model.AddBOS says whether to).
//   - llama_token_to_piece and llama_detokenize look token ids up with
//     std::vector::at, whose exception aborts: ids are checked against the
//     vocabulary first.
//   - llama_decode asserts on a batch without a token array, on more
//     tokens than n_batch, and (for non-causal attention) on more than
//     n_ubatch: Decode always passes its token array, refuses batches
//     longer than the context's batch size, and contexts use n_ubatch =
//     n_batch. It also refuses empty batches, unknown token ids, positions
//     outside the context and sequence ids outside the context's, which
//     llama.cpp reports as errors.
//   - llama_memory_seq_rm, _seq_cp and _seq_pos_max assert on sequence
//     ids outside the cache, and _seq_cp on a partial copy across streams
//     or, for DeepSeek V4's cache, on any partial copy: ids are checked,
//     the KV cache is unified (one stream), and SeqCopy copies whole
//     sequences.
//   - llama_get_logits_ith aborts in debug builds on a row without
//     logits: Logits only asks for rows the last successful Decode marked.
//   - Making a context asserts that a batch holds one output per
//     sequence: NewContext refuses more sequences than batch tokens.
//   - Models with an encoder (T5) or without a KV cache (embedding
//     models) are refused, so llama_decode never takes its encoder path.
//
// What remains: llama.cpp's asserts on malformed tensor data or metadata
// that its loader accepts (a GGUF file whose shapes contradict its
// hyperparameters can still assert while the graph is built), and
// allocation failures inside llama.cpp.
package llamalib
