package hub

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/onnx/hub/fakehub"
	"github.com/feather-eval/feather/harness/backends/safetensors"
)

// checkpointRepo is a sharded safetensors checkpoint with the weights
// also as pickles and GGUF, as many Hub repositories have them, and a
// shard whose name the index alone gives (weights-extra.safetensors).
func checkpointRepo(t *testing.T) map[string][]byte {
	t.Helper()
	dir := t.TempDir()
	var ts []safetensors.WriteTensor
	for i, n := range []string{"a", "b", "c"} {
		ts = append(ts, safetensors.WriteTensor{Name: n, DType: safetensors.BF16, Shape: []int64{256}, Data: make([]float32, 256*(i+1))[:256]})
	}
	_, err := safetensors.WriteDir(dir, ts, 600)
	require.NoError(t, err)
	files := fakehub.ReadFolder(t, dir)
	require.NoError(t, safetensors.WriteFile(filepath.Join(dir, "extra"), []safetensors.WriteTensor{{Name: "d", DType: safetensors.F32, Shape: []int64{1}, Data: []float32{1}}}, nil))
	extra, err := os.ReadFile(filepath.Join(dir, "extra"))
	require.NoError(t, err)
	files["weights-extra.safetensors"] = extra
	files["model.safetensors.index.json"] = []byte(`{"metadata": {"total_size": 1540}, "weight_map": {"a": "model-00001-of-00003.safetensors", "b": "model-00002-of-00003.safetensors", "c": "model-00003-of-00003.safetensors", "d": "weights-extra.safetensors"}}`)
	files["config.json"] = []byte(`{"model_type": "llama"}`)
	files["tokenizer.json"] = []byte(`{}`)
	files["pytorch_model.bin"] = []byte("PK\x03\x04 pickled weights")
	files["model.Q8_0.gguf"] = []byte("GGUF")
	files["onnx/encoder_model.onnx"] = []byte("not a decoder")
	return files
}

// A safetensors-only repository is pulled as the onnx backend opens it:
// config, tokenizer, the index and every shard it names (those the
// listing names as save_pretrained does at once, the rest once the index
// is here), and nothing of the other weight formats. The cache layout,
// the second pull and offline use are those of any pull.
func TestPullCheckpoint(t *testing.T) {
	h := fakehub.New(t)
	files := checkpointRepo(t)
	commit := h.Add("org/ckpt", files)
	c, _ := newClient(t, h)

	res, err := pull(t, c, "org/ckpt", Options{DryRun: true})
	require.NoError(t, err)
	guess := []string{"config.json", "model-00001-of-00003.safetensors", "model-00002-of-00003.safetensors", "model-00003-of-00003.safetensors", "model.safetensors.index.json", "tokenizer.json"}
	assert.Equal(t, guess, sortedCopy(paths(res)), "a dry run has the shards the listing names")

	res, err = pull(t, c, "org/ckpt", Options{})
	require.NoError(t, err)
	want := sortedCopy(append(append([]string(nil), guess...), "weights-extra.safetensors"))
	assert.Equal(t, want, sortedCopy(paths(res)))
	assert.Equal(t, onceEach(want), h.Downloads())
	assert.Equal(t, wantCache("org/ckpt", "main", commit, files, want), tree(t, c.Env.CacheDir))
	ck, err := safetensors.OpenDir(res.Snapshot)
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b", "c", "d"}, ck.Names(), "the snapshot opens as a checkpoint")

	before := len(h.Requests())
	again, err := pull(t, c, "org/ckpt", Options{})
	require.NoError(t, err)
	assert.Len(t, requestsSince(h, before), 2, "revision and listing only")
	assert.Equal(t, want, sortedCopy(paths(again)))

	c.Env.Offline = true
	off, err := c.Ensure(context.Background(), Ref{Repo: "org/ckpt", Revision: "main"}, Options{})
	require.NoError(t, err)
	assert.Equal(t, res.Snapshot, off.Snapshot)
	assert.Equal(t, want, sortedCopy(paths(off)), "offline, the cached index names its shards too")

	require.NoError(t, os.Remove(filepath.Join(res.Snapshot, "weights-extra.safetensors")))
	_, err = c.Ensure(context.Background(), Ref{Repo: "org/ckpt", Revision: "main"}, Options{})
	assert.ErrorContains(t, err, "model.safetensors.index.json names the shard weights-extra.safetensors, which the repository does not have")
}

// An index naming a shard the repository lacks is refused by name.
func TestPullCheckpointMissingShard(t *testing.T) {
	h := fakehub.New(t)
	files := checkpointRepo(t)
	delete(files, "weights-extra.safetensors")
	commit := h.Add("org/ckpt", files)
	c, _ := newClient(t, h)
	_, err := pull(t, c, "org/ckpt", Options{})
	assert.EqualError(t, err, "org/ckpt@main (commit "+commit+"): model.safetensors.index.json names the shard weights-extra.safetensors, which the repository does not have")
}
