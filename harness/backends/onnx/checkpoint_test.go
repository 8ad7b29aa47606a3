package onnx

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/checkpoint"
	"github.com/feather-eval/feather/harness/backends/onnx/ckpt/ckpttest"
	"github.com/feather-eval/feather/harness/backends/onnx/ortlib/orttest"
)

// A checkpoint's graph gets the engine's rewrites as an export does: the
// LM head split off (tied or not) and grouped key/value heads read
// unrepeated, in bfloat16 as in float32.
func TestCheckpointRewrites(t *testing.T) {
	orttest.Require(t)
	for _, tc := range []struct {
		name    string
		f       ckpttest.Fixture
		grouped int // attention products reading shared key/value heads
	}{
		{"llama bf16 tied, grouped", ckpttest.Fixture{Arch: checkpoint.Llama, DType: "BF16", Seed: 1,
			Shape: checkpoint.Shape{Vocab: 320, Layers: 2, Heads: 4, KVHeads: 2, TiedEmbeddings: true}}, 4},
		{"qwen2 untied", ckpttest.Fixture{Arch: checkpoint.Qwen2, Seed: 2, Shape: checkpoint.Shape{Vocab: 320, Layers: 2}}, 0},
		{"gpt_neox sharded", ckpttest.Fixture{Arch: checkpoint.GPTNeoX, Seed: 3, MaxShardBytes: 64 << 10, Shape: checkpoint.Shape{Vocab: 320, Layers: 2}}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "model")
			ck, err := tc.f.Write(dir)
			require.NoError(t, err)
			m, err := Open(context.Background(), dir, Options{Threads: 1})
			require.NoError(t, err)
			defer m.Close()
			r := m.runners[0]
			require.NotNil(t, r.split, "the head is split off")
			assert.Equal(t, tc.grouped, r.split.kvGrouped)
			var params int64
			for _, t := range ck.Tensors {
				params += int64(len(t.Data))
			}
			assert.Equal(t, params, m.Info().Params)
			assert.Equal(t, dir, m.Info().Path)
		})
	}
}
