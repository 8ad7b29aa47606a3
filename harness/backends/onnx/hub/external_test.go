package hub

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/onnx/hub/fakehub"
	"github.com/feather-eval/feather/harness/backends/onnx/onnxpb"
)

// externalRepo is a repository whose ONNX file keeps its weights in a file
// the name-based guess does not find (onnx/weights.bin), beside one it
// does (onnx/model.onnx_data, which the model does not name).
func externalRepo(t *testing.T, withWeights bool) map[string][]byte {
	t.Helper()
	b := onnxpb.NewBuilder("external")
	x := b.Input("x", onnxpb.Float, onnxpb.D(4))
	w := b.Weight(onnxpb.FloatTensor("w", []int64{4}, []float32{1, 2, 3, 4}))
	b.Output(b.Op("Add", x, w), "y", onnxpb.Float, onnxpb.D(4))
	m := &onnxpb.Model{IRVersion: 8, Opsets: []onnxpb.Opset{{Version: 17}}, ProducerName: "feather-test", Graph: b.Graph()}
	blob := m.SplitExternal("weights.bin", 0)
	data, err := m.Marshal()
	require.NoError(t, err)
	files := map[string][]byte{
		"config.json":          []byte(`{"model_type": "gpt2"}`),
		"tokenizer.json":       []byte(`{}`),
		"onnx/model.onnx":      data,
		"onnx/model.onnx_data": []byte("guessed"),
	}
	if withWeights {
		files["onnx/weights.bin"] = blob
	}
	return files
}

func TestPullFetchesExternalDataTheModelNames(t *testing.T) {
	h := fakehub.New(t)
	h.Add("org/ext", externalRepo(t, true))
	c, _ := newClient(t, h)

	res, err := pull(t, c, "org/ext", Options{DryRun: true})
	require.NoError(t, err)
	assert.Equal(t, []string{"config.json", "onnx/model.onnx", "onnx/model.onnx_data", "tokenizer.json"}, sortedCopy(paths(res)),
		"a dry run has only the name-based guess")

	res, err = pull(t, c, "org/ext", Options{})
	require.NoError(t, err)
	assert.Equal(t, []string{"config.json", "onnx/model.onnx", "onnx/model.onnx_data", "onnx/weights.bin", "tokenizer.json"}, sortedCopy(paths(res)))
	got, err := os.ReadFile(filepath.Join(res.Snapshot, "onnx", "weights.bin"))
	require.NoError(t, err)
	assert.Len(t, got, 16)
	assert.Equal(t, map[string]int{"config.json": 1, "tokenizer.json": 1, "onnx/model.onnx": 1, "onnx/model.onnx_data": 1, "onnx/weights.bin": 1}, h.Downloads())

	c.Env.Offline = true
	res, err = pull(t, c, "org/ext", Options{})
	require.NoError(t, err)
	assert.Contains(t, paths(res), "onnx/weights.bin", "offline, the cached model names it too")
	require.NoError(t, os.Remove(filepath.Join(res.Snapshot, "onnx", "weights.bin")))
	_, err = pull(t, c, "org/ext", Options{})
	assert.ErrorContains(t, err, "onnx/model.onnx keeps its weights in onnx/weights.bin, which the repository does not have")
}

func TestPullRefusesExternalDataTheRepositoryLacks(t *testing.T) {
	h := fakehub.New(t)
	commit := h.Add("org/ext", externalRepo(t, false))
	c, _ := newClient(t, h)
	_, err := pull(t, c, "org/ext", Options{})
	assert.EqualError(t, err, "org/ext@main (commit "+commit+"): onnx/model.onnx keeps its weights in onnx/weights.bin, which the repository does not have")
}
