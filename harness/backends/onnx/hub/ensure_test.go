package hub

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func ensure(t *testing.T, c *Client, ref string, opt Options) (*Result, error) {
	t.Helper()
	r, err := ParseRef(ref)
	require.NoError(t, err)
	return c.Ensure(context.Background(), r, opt)
}

// The first Ensure pulls; the next finds everything in the cache and
// sends no request, even for a branch.
func TestEnsurePullsOnceThenUsesTheCache(t *testing.T) {
	h, files, commit := tinyHub(t)
	c, _ := newClient(t, h)
	first, err := ensure(t, c, tinyRepo, Options{})
	require.NoError(t, err)
	assert.Equal(t, onceEach(tinyWant), h.Downloads())
	before := len(h.Requests())

	second, err := ensure(t, c, tinyRepo, Options{})
	require.NoError(t, err)
	assert.Equal(t, first.Snapshot, second.Snapshot)
	assert.Equal(t, commit, second.Commit)
	assert.Len(t, h.Requests(), before, "the cache is enough: no request")
	assert.Equal(t, wantCache(tinyRepo, "main", commit, files, tinyWant), tree(t, c.Env.CacheDir))
}

// A variant the cached snapshot lacks is pulled; the rest stays.
func TestEnsurePullsAMissingVariant(t *testing.T) {
	h, _, commit := tinyHub(t)
	c, _ := newClient(t, h)
	_, err := ensure(t, c, tinyRepo, Options{})
	require.NoError(t, err)
	res, err := ensure(t, c, tinyRepo, Options{Variant: "q4"})
	require.NoError(t, err)
	assert.Equal(t, commit, res.Commit)
	assert.Equal(t, 1, h.Downloads()["onnx/model_q4.onnx"])
	assert.Equal(t, 1, h.Downloads()["config.json"], "cached files are not fetched again")
}

func TestEnsureOffline(t *testing.T) {
	h, _, commit := tinyHub(t)
	c, _ := newClient(t, h)
	c.Env.Offline = true
	repoDir := filepath.Join(c.Env.CacheDir, "models--org--tiny")

	_, err := ensure(t, c, tinyRepo, Options{Variant: "q4"})
	require.Error(t, err)
	assert.Equal(t, "HF_HUB_OFFLINE is set and the cache has no org/tiny@main ("+filepath.Join(repoDir, "refs", "main")+" is missing); unset HF_HUB_OFFLINE and run `feather pull org/tiny --variant q4`", err.Error())
	_, err = ensure(t, c, tinyRepo+"@"+commit, Options{})
	require.Error(t, err)
	assert.Equal(t, "HF_HUB_OFFLINE is set and the cache has no snapshot of org/tiny@"+commit+" ("+filepath.Join(repoDir, "snapshots", commit)+" is missing); unset HF_HUB_OFFLINE and run `feather pull org/tiny@"+commit+"`", err.Error())
	assert.Empty(t, h.Requests(), "offline sends nothing")

	c.Env.Offline = false
	pulled, err := ensure(t, c, tinyRepo, Options{})
	require.NoError(t, err)
	c.Env.Offline = true
	before := len(h.Requests())
	res, err := ensure(t, c, tinyRepo, Options{})
	require.NoError(t, err)
	assert.Equal(t, pulled.Snapshot, res.Snapshot)
	assert.Len(t, h.Requests(), before)

	_, err = ensure(t, c, tinyRepo, Options{Variant: "fp16"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "lacks what the onnx backend needs: no fp16 variant")
	assert.Contains(t, err.Error(), "; unset HF_HUB_OFFLINE and run `feather pull org/tiny --variant fp16`")
}

func TestPullCommand(t *testing.T) {
	for _, tt := range []struct {
		ref, variant, want string
	}{
		{"onnx-community/SmolLM2-135M-Instruct", "q4", "feather pull onnx-community/SmolLM2-135M-Instruct --variant q4"},
		{"org/name@main", "", "feather pull org/name"},
		{"org/name@v1.0", "fp16", "feather pull org/name@v1.0 --variant fp16"},
	} {
		r, err := ParseRef(tt.ref)
		require.NoError(t, err)
		assert.Equal(t, tt.want, PullCommand(r, tt.variant))
	}
}

func TestNewClient(t *testing.T) {
	var w bytes.Buffer
	env := map[string]string{"HOME": "/home/u", "HF_HUB_OFFLINE": "1"}
	c, err := NewClient(func(k string) string { return env[k] }, &w)
	require.NoError(t, err)
	assert.Equal(t, "/home/u/.cache/huggingface/hub", c.Env.CacheDir)
	assert.True(t, c.Env.Offline)
	assert.Equal(t, &Meter{W: &w}, c.Progress, "a buffer is no terminal: plain lines")

	env["HF_ENDPOINT"] = "ftp://mirror"
	_, err = NewClient(func(k string) string { return env[k] }, &w)
	assert.ErrorContains(t, err, `HF_ENDPOINT "ftp://mirror" is not an http(s) URL`)
}

// Two opens of one entry at once, as two runs sharing a cache make, both
// get the snapshot and each file is downloaded once: the blob locks make
// the later one wait and find the blob whole.
func TestEnsureConcurrent(t *testing.T) {
	h, _, commit := tinyHub(t)
	cache := filepath.Join(t.TempDir(), "hub")
	results := make(chan *Result, 2)
	errs := make(chan error, 2)
	for range 2 {
		go func() {
			c := &Client{Env: Env{Endpoint: h.URL, CacheDir: cache}}
			res, err := c.Ensure(context.Background(), Ref{Repo: tinyRepo, Revision: "main"}, Options{})
			results <- res
			errs <- err
		}()
	}
	for range 2 {
		require.NoError(t, <-errs)
		assert.Equal(t, filepath.Join(cache, "models--org--tiny", "snapshots", commit), (<-results).Snapshot)
	}
	assert.Equal(t, onceEach(tinyWant), h.Downloads())
}
