package feather_test

// Hugging Face checkpoints end to end: pulled from the Hub as a
// repository without ONNX files, and scored by μBench through the onnx
// backend, with no export step.

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/backends/checkpoint"
	"github.com/feather-eval/feather/harness/backends/onnx/ckpt/ckpttest"
	"github.com/feather-eval/feather/harness/backends/onnx/hub/fakehub"
	"github.com/feather-eval/feather/harness/backends/onnx/ortlib/orttest"
	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/run/runfilter"
)

// TestMBOnPulledCheckpoint: a safetensors-only repository (bf16, sharded,
// with pickled and GGUF copies of its weights beside them) named by a
// catalog entry's "hf" is pulled on first use, without the other
// formats, and μBench scores it; offline, the cached snapshot serves.
func TestMBOnPulledCheckpoint(t *testing.T) {
	orttest.Require(t)
	dir := filepath.Join(t.TempDir(), "repo")
	f := ckpttest.Fixture{Arch: checkpoint.Llama, Seed: 5, DType: "BF16", MaxShardBytes: 64 << 10,
		Shape: checkpoint.Shape{Vocab: 320, Hidden: 64, Layers: 2, Heads: 4, KVHeads: 2, TiedEmbeddings: true, MaxPositions: 1024}}
	_, err := f.Write(dir)
	require.NoError(t, err)
	files := fakehub.ReadFolder(t, dir)
	files["pytorch_model.bin"] = []byte("PK\x03\x04 pickled weights, never fetched")
	files["model.Q8_0.gguf"] = []byte("GGUF weights, never fetched")
	h := fakehub.New(t)
	commit := h.Add("org/tiny-base", files)
	home := t.TempDir()
	cache := filepath.Join(home, "hub")
	for k, v := range map[string]string{"HOME": home, "HF_HOME": home, "HF_HUB_CACHE": cache, "HF_ENDPOINT": h.URL,
		"HF_TOKEN": "", "HF_TOKEN_PATH": "", "HF_HUB_OFFLINE": "", "XDG_CACHE_HOME": ""} {
		t.Setenv(k, v)
	}

	tasks, err := mbTasks()
	require.NoError(t, err)
	filter, err := runfilter.New("TestMicrobench/tiny/^(capitals|bpb)$", "")
	require.NoError(t, err)
	score := func() {
		c, err := catalog.Parse("models/test.json", []byte(`{"tiny": {"backend": "onnx", "hf": "org/tiny-base", "chat": "no"}}`))
		require.NoError(t, err)
		m, err := catalog.Open(t.Context(), c.Entries[0])
		require.NoError(t, err)
		defer m.(interface{ Close() error }).Close()
		info := c.Entries[0].Info(m)
		assert.Equal(t, "org/tiny-base", info.Name)
		res, err := mbRun(tasks, filter.Under("TestMicrobench", "tiny")).Evaluate(t.Context(), info, m.(lm.Scorer))
		require.NoError(t, err)
		assert.Len(t, res.Items, 64, "the capitals task")
		assert.NotEmpty(t, res.Documents)
		for _, it := range res.Items {
			for _, ch := range it.Choices {
				assert.Less(t, ch.LogProb, 0.0, "%s/%s", it.Task, it.ID)
			}
		}
	}
	score()

	snap := filepath.Join(cache, "models--org--tiny-base", "snapshots", commit)
	var got []string
	entries, err := os.ReadDir(snap)
	require.NoError(t, err)
	for _, e := range entries {
		got = append(got, e.Name())
	}
	var want []string
	for p := range files {
		if strings.HasSuffix(p, ".json") || strings.HasSuffix(p, ".safetensors") {
			want = append(want, p)
		}
	}
	slices.Sort(want)
	assert.Equal(t, want, got, "the config, tokenizer and safetensors files, not the pickle or the GGUF")

	t.Setenv("HF_HUB_OFFLINE", "1")
	score()
}
