package checkpoint_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/checkpoint"
	"github.com/feather-eval/feather/harness/backends/onnx/decoder"
	"github.com/feather-eval/feather/harness/backends/safetensors"
)

// Save writes a checkpoint as save_pretrained does: config.json with the
// dtype as torch_dtype, every weight in that dtype under its Hugging Face
// name and shape, {"format": "pt"} metadata, and shards with an index
// when asked; what it holds is Rounded's values.
func TestSave(t *testing.T) {
	ck, err := checkpoint.Random(checkpoint.Qwen3, small, 3)
	require.NoError(t, err)
	for _, tt := range []struct {
		dtype, torch string
		shard        int64
		files        int
	}{
		{"", "float32", 0, 1},
		{"BF16", "bfloat16", 0, 1},
		{"F16", "float16", 40 << 10, 9},
	} {
		t.Run(tt.torch, func(t *testing.T) {
			dir := t.TempDir()
			files, err := ck.Save(dir, checkpoint.SaveOptions{DType: tt.dtype, MaxShardBytes: tt.shard})
			require.NoError(t, err)
			if tt.shard > 0 {
				require.Len(t, files, tt.files+1, "the shards and the index")
				assert.Equal(t, filepath.Join(dir, safetensors.IndexFile), files[len(files)-1])
			} else {
				assert.Equal(t, []string{filepath.Join(dir, safetensors.SingleFile)}, files)
			}
			data, err := os.ReadFile(filepath.Join(dir, "config.json"))
			require.NoError(t, err)
			var cfg map[string]any
			require.NoError(t, json.Unmarshal(data, &cfg))
			assert.Equal(t, tt.torch, cfg["torch_dtype"])
			assert.Equal(t, "qwen3", cfg["model_type"])

			st, err := safetensors.OpenDir(dir)
			require.NoError(t, err)
			assert.Equal(t, ck.Names(), st.Names())
			for _, f := range st.Files {
				assert.Equal(t, map[string]string{"format": "pt"}, f.Metadata, f.Path)
			}
			want := "F32"
			if tt.dtype != "" {
				want = tt.dtype
			}
			rounded, err := ck.Rounded(want)
			require.NoError(t, err)
			for _, name := range ck.Names() {
				tensor := st.Tensor(name)
				assert.Equal(t, safetensors.DType(want), tensor.DType, name)
				var shape []int64
				for _, d := range ck.Tensors[name].Shape {
					shape = append(shape, int64(d))
				}
				assert.Equal(t, shape, tensor.Shape, name)
				got, err := st.Float32s(name)
				require.NoError(t, err)
				assert.Equal(t, rounded.Tensors[name].Data, got, name)
			}
		})
	}
	_, err = ck.Save(t.TempDir(), checkpoint.SaveOptions{DType: "Q8_0"})
	assert.EqualError(t, err, `checkpoint: dtype "Q8_0" is not F32, F16 or BF16`)
}

// DecoderWeights undoes FromDecoder: the decoder's weights of a random
// checkpoint make the same checkpoint again.
func TestDecoderWeightsRoundTrip(t *testing.T) {
	for _, arch := range checkpoint.Archs {
		t.Run(arch, func(t *testing.T) {
			ck, err := checkpoint.Random(arch, checkpoint.Shape{Vocab: 300, Hidden: 64, Layers: 2, Heads: 4}, 5)
			require.NoError(t, err)
			w, err := ck.DecoderWeights()
			require.NoError(t, err)
			h, err := ck.Hparams()
			require.NoError(t, err)
			c := decoder.Config{Vocab: h.Vocab, Hidden: h.Hidden, Layers: h.Layers, Heads: h.Heads, KVHeads: h.KVHeads, HeadDim: h.HeadDim,
				Intermediate: h.Intermediate, MaxPositions: h.MaxPositions, TiedEmbeddings: h.Tied, RopeTheta: h.RopeTheta, NormEps: h.NormEps}
			again, err := checkpoint.FromDecoder(arch, c, w)
			require.NoError(t, err)
			require.Equal(t, ck.Names(), again.Names())
			for _, name := range ck.Names() {
				assert.Equal(t, ck.Tensors[name].Shape, again.Tensors[name].Shape, name)
				assert.Equal(t, ck.Tensors[name].Data, again.Tensors[name].Data, name)
			}
		})
	}
}
