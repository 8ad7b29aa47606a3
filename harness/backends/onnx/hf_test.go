package onnx

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/backends/onnx/hub/fakehub"
	"github.com/feather-eval/feather/harness/backends/onnx/ortlib/orttest"
	"github.com/feather-eval/feather/harness/lm"
)

// hfRepo is the fake Hub repository that serves the llama-gqa fixture.
const hfRepo = "org/llama"

// hfHub serves the llama-gqa fixture folder as hfRepo from a fake Hub
// that the environment names, with an empty cache and no token; it
// returns the hub, the commit and the cache folder.
func hfHub(t *testing.T) (*fakehub.Hub, string, string) {
	t.Helper()
	orttest.Require(t)
	h := fakehub.New(t)
	commit := h.Add(hfRepo, fakehub.ReadFolder(t, fixture(t, "llama-gqa").Dir))
	return h, commit, hfEnv(t, h.URL)
}

// hfEnv names endpoint as the Hub, with an empty cache, whose folder it
// returns, and no token.
func hfEnv(t *testing.T, endpoint string) string {
	t.Helper()
	cache := filepath.Join(t.TempDir(), "hub")
	for k, v := range map[string]string{
		"HF_ENDPOINT": endpoint, "HF_HUB_CACHE": cache, "HF_HOME": t.TempDir(),
		"HF_HUB_OFFLINE": "", "HF_TOKEN": "", "HUGGING_FACE_HUB_TOKEN": "",
	} {
		t.Setenv(k, v)
	}
	return cache
}

// openHF opens a catalog entry with the given onnx fields through the
// registry, as the suites do.
func openHF(t *testing.T, fields string) (lm.Model, error) {
	t.Helper()
	e, err := parseEntry(t, "m.json", fields)
	require.NoError(t, err)
	m, err := catalog.Open(context.Background(), e)
	if err == nil {
		t.Cleanup(func() { m.Close() })
	}
	return m, err
}

var hfCases = []lm.LLRequest{{Context: "The cat", Continuation: " sat"}, {Context: "a b", Continuation: " c d"}}

// scores is what m gives hfCases.
func scores(t *testing.T, m lm.Model) []float64 {
	t.Helper()
	res, err := m.(lm.Scorer).LogLikelihood(context.Background(), hfCases, lm.ScoreOptions{})
	require.NoError(t, err)
	out := make([]float64, len(res))
	for i, r := range res {
		require.NoError(t, r.Err)
		out[i] = r.LogProb
	}
	return out
}

// An hf entry pulls its repository on first use, opens the snapshot and
// scores exactly as the folder it came from; the second open finds the
// cache complete and sends no request.
func TestHFEntryPullsOnFirstUse(t *testing.T) {
	h, commit, cache := hfHub(t)
	want := scores(t, open(t, fixture(t, "llama-gqa").Dir, Options{}))

	m, err := openHF(t, `"hf": "`+hfRepo+`"`)
	require.NoError(t, err)
	snap := filepath.Join(cache, "models--org--llama", "snapshots", commit)
	assert.Equal(t, snap, m.Info().Path)
	assert.Equal(t, hfRepo, m.Info().Name, "named after the repository, not the commit folder")
	assert.Equal(t, want, scores(t, m))
	assert.Equal(t, 1, h.Downloads()["onnx/model.onnx"])
	assert.Zero(t, h.Downloads()["onnx/model_quantized.onnx"], "only the variant asked for")

	before := len(h.Requests())
	again, err := openHF(t, `"hf": "`+hfRepo+`"`)
	require.NoError(t, err)
	assert.Equal(t, want, scores(t, again))
	assert.Len(t, h.Requests(), before, "the second open uses the cache: no request")
}

func TestHFEntryVariant(t *testing.T) {
	h, _, _ := hfHub(t)
	want := scores(t, open(t, fixture(t, "llama-gqa").Dir, Options{Variant: "quantized"}))
	m, err := openHF(t, `"hf": "`+hfRepo+`", "variant": "quantized"`)
	require.NoError(t, err)
	assert.Equal(t, want, scores(t, m))
	assert.Equal(t, 1, h.Downloads()["onnx/model_quantized.onnx"])
	assert.Zero(t, h.Downloads()["onnx/model.onnx"])
}

func TestHFEntryOffline(t *testing.T) {
	h, _, cache := hfHub(t)
	t.Setenv("HF_HUB_OFFLINE", "1")
	_, err := openHF(t, `"hf": "`+hfRepo+`", "variant": "quantized"`)
	require.Error(t, err)
	assert.Equal(t, `model "m": getting org/llama@main: HF_HUB_OFFLINE is set and the cache has no org/llama@main (`+
		filepath.Join(cache, "models--org--llama", "refs", "main")+" is missing); unset HF_HUB_OFFLINE and run `feather pull org/llama --variant quantized`", err.Error())
	assert.Empty(t, h.Requests(), "offline sends nothing")

	t.Setenv("HF_HUB_OFFLINE", "")
	_, err = openHF(t, `"hf": "`+hfRepo+`", "variant": "quantized"`)
	require.NoError(t, err)
	t.Setenv("HF_HUB_OFFLINE", "1")
	before := len(h.Requests())
	m, err := openHF(t, `"hf": "`+hfRepo+`", "variant": "quantized"`)
	require.NoError(t, err, "offline with the snapshot cached")
	assert.Len(t, scores(t, m), len(hfCases))
	assert.Len(t, h.Requests(), before)
}

// A revision pins the snapshot: the entry opens the commit it names even
// after main moved on, and main opens the new one.
func TestHFEntryRevisionPinsTheSnapshot(t *testing.T) {
	h, first, cache := hfHub(t)
	files := fakehub.ReadFolder(t, fixture(t, "gpt2").Dir)
	second := h.Add(hfRepo, files)
	require.NotEqual(t, first, second)

	old, err := openHF(t, `"hf": "`+hfRepo+`@`+first+`"`)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(cache, "models--org--llama", "snapshots", first), old.Info().Path)
	assert.Equal(t, scores(t, open(t, fixture(t, "llama-gqa").Dir, Options{})), scores(t, old))

	cur, err := openHF(t, `"hf": "`+hfRepo+`"`)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(cache, "models--org--llama", "snapshots", second), cur.Info().Path)
	assert.Equal(t, scores(t, open(t, fixture(t, "gpt2").Dir, Options{})), scores(t, cur))
	_, err = os.Stat(filepath.Join(cache, "models--org--llama", "refs", first))
	assert.ErrorIs(t, err, os.ErrNotExist, "a commit needs no ref")
}

func TestHFEntryHubErrorsNameTheEntry(t *testing.T) {
	h, _, _ := hfHub(t)
	h.Add("org/gated", fakehub.ReadFolder(t, fixture(t, "llama-gqa").Dir), fakehub.Gated("hf_granted"))
	_, err := openHF(t, `"hf": "org/missing"`)
	require.Error(t, err)
	assert.Equal(t, `model "m": getting org/missing@main: repository org/missing not found at `+h.URL+` (HF_ENDPOINT) (the Hub says: Repository Not Found for url: `+h.URL+
		`/api/models/org/missing/revision/main.); check ORG/NAME, and if it is private, set HF_TOKEN to a token that can read it`, err.Error())

	_, err = openHF(t, `"hf": "org/gated"`)
	require.Error(t, err)
	assert.Regexp(t, `^model "m": getting org/gated@main: org/gated is gated: the Hub answered 401 for \S+ without a token .*Set HF_TOKEN to a token`, err.Error())
}

// An hf entry whose Hub cannot be reached is refused naming the entry,
// the repository and the Hub, with what to do; the cache stays empty.
func TestHFEntryHubUnreachable(t *testing.T) {
	closed := fakehub.Closed(t)
	cache := hfEnv(t, closed)
	_, err := openHF(t, `"hf": "HuggingFaceTB/SmolLM2-135M-Instruct", "variant": "q4"`)
	require.Error(t, err)
	assert.Equal(t, `model "m": getting HuggingFaceTB/SmolLM2-135M-Instruct@main: the Hugging Face Hub at `+closed+` (HF_ENDPOINT) could not be reached `+
		`(dial tcp `+strings.TrimPrefix(closed, "http://")+`: connect: connection refused); check the network, or set HF_ENDPOINT to a mirror you can reach. `+
		`HF_HUB_OFFLINE=1 would use only the cache, and the cache has no HuggingFaceTB/SmolLM2-135M-Instruct@main (`+
		filepath.Join(cache, "models--HuggingFaceTB--SmolLM2-135M-Instruct", "refs", "main")+` is missing)`, err.Error())
	_, err = os.Stat(cache)
	assert.ErrorIs(t, err, os.ErrNotExist)
}
