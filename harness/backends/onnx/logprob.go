package onnx

import "github.com/feather-eval/feather/internal/logsoftmax"

// argmax returns the first index of the largest logit, as torch.argmax and
// Hugging Face's greedy search do.
func argmax(logits []float32) int { return logsoftmax.Argmax(logits) }

// tokenLogProb returns log softmax(logits)[tok] (natural log) and whether
// tok is the argmax (package logsoftmax, which the llamacpp backend
// shares). Scoring sums in Go only for models run whole; the others
// normalise their rows in ONNX Runtime (norm.go).
func tokenLogProb(logits []float32, tok int) (lp float64, greedy bool) {
	return logsoftmax.Token(logits, tok)
}
