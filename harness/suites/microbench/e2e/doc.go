// Package e2e tests and benchmarks Supra-μBench through a real backend:
// ONNX Runtime on designed models whose log-probabilities are known
// exactly, and on the performance fixture; and it sets the onnx backend
// beside transformers.js and llama.cpp on μBench's requests and
// Featherweight's prompts. The suite package imports only harness/lm, so
// everything that needs a backend lives here, beside it.
package e2e
