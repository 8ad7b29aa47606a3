// Package crosscheck holds tests only. They write one random Hugging Face
// checkpoint (package checkpoint) for each family the ONNX decoder builds
// and llama.cpp runs, feed its tensors to the decoder's graph as a
// checkpoint loader does (package decoder's weight layout) and, converted
// to GGUF (package gguf), to llama.cpp (package llamalib), and compare the
// two engines' log-probabilities. llama.cpp implements these
// architectures independently of this repository, so agreement shows the
// graphs compute each architecture's own maths: rotary layout, partial
// rotary, parallel residual, norms, biases and tying, llama3 and linear
// RoPE scaling, and Gemma 3's sandwich norms and sliding-window layers.
package crosscheck
