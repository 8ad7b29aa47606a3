package hub

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/onnx/hub/fakehub"
)

// TestSelectGGUF: a glob picks exactly one .gguf file, by its path or its
// name; anything else says what there is to choose from.
func TestSelectGGUF(t *testing.T) {
	files := []File{
		{Path: "README.md"}, {Path: "config.json"},
		{Path: "tiny-F16.gguf"}, {Path: "tiny-Q8_0.gguf"}, {Path: "q4/tiny-Q4_K_M.gguf"},
		{Path: "big/big-Q8_0-00001-of-00002.gguf"}, {Path: "big/big-Q8_0-00002-of-00002.gguf"},
	}
	for _, tc := range []struct{ glob, want, err string }{
		{glob: "*Q8_0.gguf", want: "tiny-Q8_0.gguf"},
		{glob: "tiny-F16.gguf", want: "tiny-F16.gguf"},
		{glob: "*Q4_K_M.gguf", want: "q4/tiny-Q4_K_M.gguf"},
		{glob: "q4/*.gguf", want: "q4/tiny-Q4_K_M.gguf"},
		{glob: "*-Q8_0-00001-of-00002.gguf", err: "big/big-Q8_0-00001-of-00002.gguf is one part of a split GGUF file, which feather does not load; pick a quantization published as a single file"},
		{glob: "*Q5_K_M.gguf", err: `no .gguf file matches "*Q5_K_M.gguf"; it has big/big-Q8_0-00001-of-00002.gguf, big/big-Q8_0-00002-of-00002.gguf, q4/tiny-Q4_K_M.gguf, tiny-F16.gguf, tiny-Q8_0.gguf`},
		{glob: "tiny-*.gguf", err: `"tiny-*.gguf" matches 3 .gguf files (q4/tiny-Q4_K_M.gguf, tiny-F16.gguf, tiny-Q8_0.gguf); make it match one, e.g. "*tiny-Q4_K_M.gguf"`},
		{glob: "*.md", err: `no .gguf file matches "*.md"; it has big/big-Q8_0-00001-of-00002.gguf, big/big-Q8_0-00002-of-00002.gguf, q4/tiny-Q4_K_M.gguf, tiny-F16.gguf, tiny-Q8_0.gguf`},
		{glob: "[", err: `"[" is not a glob (syntax error in pattern); use * and ? as in "*Q8_0.gguf"`},
	} {
		got, err := selectGGUF(files, tc.glob)
		if tc.err != "" {
			require.EqualError(t, err, tc.err, tc.glob)
			continue
		}
		require.NoError(t, err, tc.glob)
		assert.Equal(t, []File{{Path: tc.want}}, got, tc.glob)
	}
	_, err := selectGGUF([]File{{Path: "config.json"}, {Path: "onnx/model.onnx"}}, "*.gguf")
	require.EqualError(t, err, "no .gguf file; the llamacpp backend runs GGUF files, so pick a repository that publishes them (often named …-GGUF)")
	require.EqualError(t, checkOptions(Options{File: "*Q8_0.gguf", Variant: "q4"}), "a variant picks an ONNX file and a file glob a GGUF file; give one of them, not both")
}

const ggufRepo = "org/tiny-GGUF"

// TestPullGGUF fetches one GGUF file by glob, with pull's transfer rules:
// a cut transfer resumes with a Range request and the blob is checked
// against its sha256; then the cache alone answers for it, offline, and
// names the command that fetches what it lacks.
func TestPullGGUF(t *testing.T) {
	h := fakehub.New(t)
	files := map[string][]byte{
		"README.md":      []byte("# tiny\n"),
		"tiny-F16.gguf":  pseudoRandom(bigSize, 2),
		"tiny-Q8_0.gguf": pseudoRandom(bigSize/2, 3),
	}
	commit := h.Add(ggufRepo, files)
	h.Fault("tiny-Q8_0.gguf", fakehub.Fault{CutAfter: 100_000})
	c, rec := newClient(t, h)

	res, err := pull(t, c, ggufRepo, Options{File: "*Q8_0.gguf"})
	require.NoError(t, err)
	assert.Equal(t, []string{"tiny-Q8_0.gguf"}, paths(res))
	assert.Equal(t, filepath.Join(c.Env.CacheDir, "models--org--tiny-GGUF", "snapshots", commit, "tiny-Q8_0.gguf"), res.Path())
	assert.Equal(t, []string{"", "bytes=100000-"}, fetches(h, "tiny-Q8_0.gguf"), "the second request asks for the rest only")
	assert.Equal(t, []string{"tiny-Q8_0.gguf: unexpected EOF; resuming"}, rec.Notes())
	assert.Equal(t, etagOf("tiny-Q8_0.gguf", files["tiny-Q8_0.gguf"]), sha256Hex(t, res.Path()))
	assert.Equal(t, map[string]int{"tiny-Q8_0.gguf": 2}, h.Downloads(), "the one file (cut, then resumed), nothing else")

	c.Env.Offline = true
	again, err := c.Ensure(context.Background(), Ref{Repo: ggufRepo, Revision: "main"}, Options{File: "*Q8_0.gguf"})
	require.NoError(t, err)
	assert.Equal(t, res.Path(), again.Path())
	_, err = c.Ensure(context.Background(), Ref{Repo: ggufRepo, Revision: "main"}, Options{File: "*F16.gguf"})
	snap := filepath.Join(c.Env.CacheDir, "models--org--tiny-GGUF", "snapshots", commit)
	require.EqualError(t, err, "HF_HUB_OFFLINE is set and the cached snapshot of org/tiny-GGUF@main ("+snap+`) lacks what the llamacpp backend needs: no .gguf file matches "*F16.gguf"; it has tiny-Q8_0.gguf; unset HF_HUB_OFFLINE and run `+"`feather pull org/tiny-GGUF --file '*F16.gguf'`")
}

// TestPullGGUFCorrupted: a GGUF file whose bytes do not hash to their
// ETag is fetched afresh.
func TestPullGGUFCorrupted(t *testing.T) {
	h := fakehub.New(t)
	data := pseudoRandom(bigSize/4, 4)
	h.Add(ggufRepo, map[string][]byte{"tiny-Q8_0.gguf": data})
	h.Fault("tiny-Q8_0.gguf", fakehub.Fault{Corrupt: true})
	c, rec := newClient(t, h)
	res, err := pull(t, c, ggufRepo, Options{File: "tiny-Q8_0.gguf"})
	require.NoError(t, err)
	assert.Equal(t, []string{"", ""}, fetches(h, "tiny-Q8_0.gguf"))
	got, err := os.ReadFile(res.Path())
	require.NoError(t, err)
	assert.Equal(t, data, got)
	require.Len(t, rec.Notes(), 1)
	assert.Contains(t, rec.Notes()[0], ": the data is corrupted; downloading it afresh")
}
