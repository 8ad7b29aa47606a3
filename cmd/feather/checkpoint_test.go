package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/checkpoint"
	"github.com/feather-eval/feather/harness/backends/onnx"
	"github.com/feather-eval/feather/harness/backends/onnx/ckpt/ckpttest"
	"github.com/feather-eval/feather/harness/backends/onnx/hub/fakehub"
	"github.com/feather-eval/feather/harness/backends/onnx/ortlib/orttest"
	"github.com/feather-eval/feather/harness/lm"
)

// A safetensors-only repository, pulled with feather pull, scores and
// generates from its snapshot with --model, as the checkpoint folder
// itself does.
func TestPulledCheckpointScoresAndGenerates(t *testing.T) {
	orttest.Require(t)
	dir := filepath.Join(t.TempDir(), "repo")
	f := ckpttest.Fixture{Arch: checkpoint.Qwen2, Seed: 9, DType: "BF16",
		Shape: checkpoint.Shape{Vocab: 320, Hidden: 64, Layers: 2, Heads: 4, KVHeads: 2, MaxPositions: 256}}
	_, err := f.Write(dir)
	require.NoError(t, err)
	files := fakehub.ReadFolder(t, dir)
	files["pytorch_model.bin"] = []byte("PK\x03\x04")
	h := fakehub.New(t)
	commit := h.Add("org/qwen-tiny", files)
	cache := pullEnv(t, h)
	snap := filepath.Join(cache, "models--org--qwen-tiny", "snapshots", commit)

	code, out, errOut := runPullCmd("org/qwen-tiny")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, snap+"\n", out)
	assert.NotContains(t, h.Downloads(), "pytorch_model.bin")

	var in strings.Builder
	reqs := []lm.LLRequest{{Context: "The cat sat on the", Continuation: " mat"}, {Context: "Once upon", Continuation: " a time"}}
	for _, r := range reqs {
		b, err := json.Marshal(r)
		require.NoError(t, err)
		in.Write(b)
		in.WriteString("\n")
	}
	var sout, serr bytes.Buffer
	require.Equal(t, 0, dispatch([]string{"score", "--model", snap}, strings.NewReader(in.String()), &sout, &serr), serr.String())
	m, err := onnx.Open(context.Background(), dir, onnx.Options{Chat: "no"})
	require.NoError(t, err)
	defer m.Close()
	want, err := m.LogLikelihood(context.Background(), reqs, lm.ScoreOptions{})
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(sout.String(), "\n"), "\n")
	require.Len(t, lines, len(reqs))
	for i, line := range lines {
		var got scoreLine
		require.NoError(t, json.Unmarshal([]byte(line), &got))
		assert.Equal(t, scoreLine{LogProb: want[i].LogProb, IsGreedy: want[i].IsGreedy, ContextTokens: want[i].ContextTokens,
			ContinuationTokens: want[i].ContinuationTokens}, got, "line %d", i+1)
	}

	var gout, gerr bytes.Buffer
	require.Equal(t, 0, dispatch([]string{"generate", "--model", snap, "--max-new-tokens", "6", "The", "cat"}, strings.NewReader(""), &gout, &gerr), gerr.String())
	gen, err := m.Generate(context.Background(), []lm.GenerateRequest{{Prompt: "The cat", MaxNewTokens: 6, Sampling: lm.Greedy()}})
	require.NoError(t, err)
	require.NoError(t, gen[0].Err)
	assert.Equal(t, gen[0].Text+"\n", gout.String())
}
