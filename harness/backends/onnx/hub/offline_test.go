package hub

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOfflineUsesOnlyTheCache(t *testing.T) {
	h, files, commit := tinyHub(t)
	c, _ := newClient(t, h)
	online, err := pull(t, c, tinyRepo, Options{})
	require.NoError(t, err)
	before := len(h.Requests())

	c.Env.Offline = true
	for _, ref := range []string{tinyRepo, tinyRepo + "@" + commit} {
		res, err := pull(t, c, ref, Options{})
		require.NoError(t, err, ref)
		assert.Equal(t, online.Snapshot, res.Snapshot)
		assert.Equal(t, commit, res.Commit)
		assert.Equal(t, tinyWant, sortedCopy(paths(res)), "found in the snapshot")
		for _, f := range res.Files {
			assert.True(t, f.Cached)
			assert.Equal(t, int64(len(files[f.Path])), f.Size, f.Path)
			assert.Equal(t, etagOf(f.Path, files[f.Path]), f.ETag, f.Path)
		}
	}
	assert.Len(t, h.Requests(), before, "offline sends nothing")
}

func TestOfflineNamesWhatIsMissing(t *testing.T) {
	h, files, commit := tinyHub(t)
	c, _ := newClient(t, h)
	_, err := pull(t, c, tinyRepo, Options{})
	require.NoError(t, err)
	repoDir := filepath.Join(c.Env.CacheDir, "models--org--tiny")
	snap := filepath.Join(repoDir, "snapshots", commit)
	c.Env.Offline = true

	tests := []struct {
		name, ref, variant string
		damage             func(t *testing.T)
		want               string
	}{
		{name: "no ref", ref: tinyRepo + "@dev",
			want: "HF_HUB_OFFLINE is set and the cache has no org/tiny@dev (" + filepath.Join(repoDir, "refs", "dev") + " is missing); unset HF_HUB_OFFLINE to download it, or set HF_HUB_CACHE to the cache that has it"},
		{name: "no repository", ref: "org/other",
			want: "HF_HUB_OFFLINE is set and the cache has no org/other@main (" + filepath.Join(c.Env.CacheDir, "models--org--other", "refs", "main") + " is missing); unset HF_HUB_OFFLINE to download it, or set HF_HUB_CACHE to the cache that has it"},
		{name: "no snapshot for a commit", ref: tinyRepo + "@0123456789abcdef0123456789abcdef01234567",
			want: "HF_HUB_OFFLINE is set and the cache has no snapshot of org/tiny@0123456789abcdef0123456789abcdef01234567 (" + filepath.Join(repoDir, "snapshots", "0123456789abcdef0123456789abcdef01234567") + " is missing); unset HF_HUB_OFFLINE to download it"},
		{name: "variant not downloaded", ref: tinyRepo, variant: "fp16",
			want: "HF_HUB_OFFLINE is set and the cached snapshot of org/tiny@main (" + snap + ") lacks what the onnx backend needs: no fp16 variant (looked for model_fp16.onnx, onnx/model_fp16.onnx, decoder_model_merged_fp16.onnx, onnx/decoder_model_merged_fp16.onnx); " +
				"it has onnx/model.onnx (fp32). Choose one (--variant, or a catalog entry's \"variant\") of: fp32; unset HF_HUB_OFFLINE to download it"},
		{name: "blob lost", ref: tinyRepo, damage: func(t *testing.T) {
			require.NoError(t, os.Remove(filepath.Join(repoDir, "blobs", etagOf(dataPath, files[dataPath]))))
			require.NoError(t, os.Remove(filepath.Join(repoDir, "blobs", etagOf("tokenizer.json", files["tokenizer.json"]))))
		}, want: "HF_HUB_OFFLINE is set and in the cached snapshot of org/tiny@main (" + snap + ") these files link to blobs that are gone: onnx/model.onnx_data, tokenizer.json; unset HF_HUB_OFFLINE to download them again"},
		{name: "config removed", ref: tinyRepo, damage: func(t *testing.T) {
			require.NoError(t, os.Remove(filepath.Join(snap, "config.json")))
		}, want: "HF_HUB_OFFLINE is set and the cached snapshot of org/tiny@main (" + snap + ") lacks what the onnx backend needs: no config.json at the repository's root; it is not a model export the onnx backend can open; unset HF_HUB_OFFLINE to download it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.damage != nil {
				tt.damage(t)
			}
			_, err := pull(t, c, tt.ref, Options{Variant: tt.variant})
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
		})
	}
}
