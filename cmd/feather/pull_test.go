package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/onnx"
	"github.com/feather-eval/feather/harness/backends/onnx/hub/fakehub"
	"github.com/feather-eval/feather/harness/backends/onnx/ortlib/orttest"
	"github.com/feather-eval/feather/harness/backends/onnx/testmodel"
	"github.com/feather-eval/feather/harness/lm"
)

// pullEnv points every variable feather pull reads at the fake hub and a
// fresh cache, so no test reads the real home or reaches the network.
func pullEnv(t *testing.T, h *fakehub.Hub) (cache string) {
	t.Helper()
	home := t.TempDir()
	cache = filepath.Join(home, "hub")
	for k, v := range map[string]string{
		"HOME": home, "HF_HOME": home, "HF_HUB_CACHE": cache, "HF_ENDPOINT": h.URL,
		"HF_TOKEN": "", "HUGGING_FACE_HUB_TOKEN": "", "HF_TOKEN_PATH": "", "HF_HUB_OFFLINE": "",
		"HUGGINGFACE_HUB_CACHE": "", "XDG_CACHE_HOME": "",
	} {
		t.Setenv(k, v)
	}
	return cache
}

func runPullCmd(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := dispatch(append([]string{"pull"}, args...), strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// pullFixture is a small real export: transformers.js layout, external
// data beside each ONNX file, two variants, and files the backend never
// reads.
func pullFixture(t *testing.T) (dir string, files map[string][]byte) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "export")
	_, err := testmodel.Build(dir, testmodel.Config{Variants: []string{"fp16", "quantized"}, ExternalData: true, Vocab: 300, Hidden: 32})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "README.md"), []byte("# export\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "model.safetensors"), []byte("weights for other runtimes"), 0o644))
	return dir, fakehub.ReadFolder(t, dir)
}

// TestPulledSnapshotOpens pulls each variant of a real export and opens
// the snapshot with the onnx backend, which must generate what it
// generates from the original folder: the files pull picks are the files
// the backend needs.
func TestPulledSnapshotOpens(t *testing.T) {
	orttest.Require(t)
	dir, files := pullFixture(t)
	h := fakehub.New(t)
	commit := h.Add("org/export", files)
	cache := pullEnv(t, h)
	snap := filepath.Join(cache, "models--org--export", "snapshots", commit)
	root := []string{"config.json", "generation_config.json", "special_tokens_map.json", "tokenizer.json", "tokenizer_config.json"}

	tests := []struct {
		variant string
		onnx    []string
	}{
		{"", []string{"onnx/model.onnx", "onnx/model.onnx_data"}},
		{"fp16", []string{"onnx/model_fp16.onnx", "onnx/model_fp16.onnx_data"}},
		{"quantized", []string{"onnx/model_quantized.onnx", "onnx/model_quantized.onnx_data"}},
	}
	for _, tt := range tests {
		t.Run("variant="+tt.variant, func(t *testing.T) {
			for _, p := range tt.onnx {
				require.Contains(t, files, p, "the fixture has the file")
			}
			before := h.Downloads()
			code, out, errOut := runPullCmd("org/export", "--variant", tt.variant)
			require.Equal(t, 0, code, errOut)
			assert.Equal(t, snap+"\n", out, "stdout is the snapshot folder")
			assert.Contains(t, errOut, "org/export@main (commit "+commit+"): ")

			after := h.Downloads()
			fetched := map[string]int{}
			for p, n := range after {
				if n > before[p] {
					fetched[p] = n - before[p]
				}
			}
			want := tt.onnx
			if tt.variant == "" {
				want = append(append([]string{}, root...), want...)
			}
			assert.Equal(t, slices.Sorted(slices.Values(want)), slices.Sorted(maps.Keys(fetched)), "only what the backend needs, each once")

			ctx := context.Background()
			pulled, err := onnx.Open(ctx, snap, onnx.Options{Variant: tt.variant, Chat: "no"})
			require.NoError(t, err)
			defer pulled.Close()
			orig, err := onnx.Open(ctx, dir, onnx.Options{Variant: tt.variant, Chat: "no"})
			require.NoError(t, err)
			defer orig.Close()
			req := []lm.GenerateRequest{{Prompt: "The cat sat on the", MaxNewTokens: 6}}
			got, err := pulled.Generate(ctx, req)
			require.NoError(t, err)
			wantGen, err := orig.Generate(ctx, req)
			require.NoError(t, err)
			require.NoError(t, got[0].Err)
			assert.Equal(t, wantGen[0].Text, got[0].Text)
			assert.Equal(t, wantGen[0].OutputTokens, got[0].OutputTokens)
		})
	}

	// Every blob is the file, by sha256.
	for _, p := range []string{"onnx/model.onnx_data", "config.json"} {
		data, err := os.ReadFile(filepath.Join(snap, filepath.FromSlash(p)))
		require.NoError(t, err)
		assert.Equal(t, sha256Of(files[p]), sha256Of(data), p)
	}
}

func sha256Of(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func TestPullDryRun(t *testing.T) {
	h := fakehub.New(t)
	files := map[string][]byte{
		"config.json":           []byte(`{"model_type": "llama"}`),
		"tokenizer.json":        []byte(`{"model": {}}`),
		"onnx/model.onnx":       bytes.Repeat([]byte{1}, 1500),
		"onnx/model_q4.onnx":    bytes.Repeat([]byte{2}, 700),
		"onnx/model.onnx_data":  bytes.Repeat([]byte{3}, 3<<20),
		"onnx/model_fp16.onnx":  []byte("fp16"),
		"README.md":             []byte("# r"),
		"tokenizer_config.json": []byte(`{}`),
	}
	commit := h.Add("org/m", files)
	cache := pullEnv(t, h)
	snap := filepath.Join(cache, "models--org--m", "snapshots", commit)

	code, out, errOut := runPullCmd("--dry-run", "org/m")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "org/m@main (commit "+commit+"): 5 files, 3.0 MiB; 5 to download, 3.0 MiB\n"+
		"  download        23 B  config.json\n"+
		"  download     1.5 KiB  onnx/model.onnx\n"+
		"  download     3.0 MiB  onnx/model.onnx_data\n"+
		"  download        13 B  tokenizer.json\n"+
		"  download         2 B  tokenizer_config.json\n"+
		snap+"\n", out)
	assert.Empty(t, errOut)
	assert.NoDirExists(t, cache, "a dry run writes nothing")

	code, _, errOut = runPullCmd("org/m", "--variant=q4")
	require.Equal(t, 0, code, errOut)
	code, out, errOut = runPullCmd("org/m", "--variant", "q4", "--dry-run")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, "org/m@main (commit "+commit+"): 4 files, 738 B; 0 to download, 0 B\n"+
		"  cached          23 B  config.json\n"+
		"  cached         700 B  onnx/model_q4.onnx\n"+
		"  cached          13 B  tokenizer.json\n"+
		"  cached           2 B  tokenizer_config.json\n"+
		snap+"\n", out)
}

func TestPullOfflineAndSecondPull(t *testing.T) {
	h := fakehub.New(t)
	files := map[string][]byte{"config.json": []byte(`{}`), "tokenizer.json": []byte(`{}`), "model.onnx": []byte("graph")}
	commit := h.Add("org/m", files)
	cache := pullEnv(t, h)
	snap := filepath.Join(cache, "models--org--m", "snapshots", commit)

	code, out, errOut := runPullCmd("org/m")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, snap+"\n", out)
	assert.Equal(t, "downloading 2 files, 7 B\n[1/2] config.json (2 B)\n[2/2] model.onnx (5 B)\n", errOut[:strings.Index(errOut, "downloaded ")],
		"plain progress lines when stderr is not a terminal; tokenizer.json has config.json's contents, so its blob")
	assert.Equal(t, map[string]int{"config.json": 1, "model.onnx": 1}, h.Downloads())
	assert.True(t, strings.HasSuffix(errOut, "org/m@main (commit "+commit+"): 3 files, 9 B, in "+snap+"\n"), errOut)

	n := len(h.Requests())
	code, out, errOut = runPullCmd("org/m")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, snap+"\n", out)
	assert.Equal(t, "org/m@main (commit "+commit+"): 3 files, 9 B, in "+snap+"\n", errOut, "nothing to download")
	assert.Len(t, h.Requests(), n+2, "the second pull asks for the revision and the listing only")

	t.Setenv("HF_HUB_OFFLINE", "1")
	n = len(h.Requests())
	code, out, errOut = runPullCmd("org/m")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, snap+"\n", out)
	assert.Len(t, h.Requests(), n, "offline sends nothing")

	code, out, errOut = runPullCmd("org/m@dev")
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Equal(t, "feather pull: HF_HUB_OFFLINE is set and the cache has no org/m@dev ("+filepath.Join(cache, "models--org--m", "refs", "dev")+
		" is missing); unset HF_HUB_OFFLINE to download it, or set HF_HUB_CACHE to the cache that has it\n", errOut)
}

// A Hub that cannot be reached is named with what to do: a mirror when
// the cache lacks the model, HF_HUB_OFFLINE=1 when it has it, which then
// works.
func TestPullHubUnreachable(t *testing.T) {
	h := fakehub.New(t)
	commit := h.Add("org/m", map[string][]byte{"config.json": []byte(`{}`), "tokenizer.json": []byte(`{}`), "model.onnx": []byte("graph")})
	cache := pullEnv(t, h)
	snap := filepath.Join(cache, "models--org--m", "snapshots", commit)
	code, _, errOut := runPullCmd("org/m")
	require.Equal(t, 0, code, errOut)

	closed := fakehub.Closed(t)
	t.Setenv("HF_ENDPOINT", closed)
	lead := "feather pull: the Hugging Face Hub at " + closed + " (HF_ENDPOINT) could not be reached (dial tcp " + strings.TrimPrefix(closed, "http://") + ": connect: connection refused); "
	code, out, errOut := runPullCmd("nobody/x")
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Equal(t, lead+"check the network, or set HF_ENDPOINT to a mirror you can reach. HF_HUB_OFFLINE=1 would use only the cache, and the cache has no nobody/x@main ("+
		filepath.Join(cache, "models--nobody--x", "refs", "main")+" is missing)\n", errOut)

	code, out, errOut = runPullCmd("org/m")
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Equal(t, lead+"set HF_HUB_OFFLINE=1 to use the cached snapshot of org/m@main ("+snap+") without the Hub, or set HF_ENDPOINT to a mirror you can reach\n", errOut)

	t.Setenv("HF_HUB_OFFLINE", "1")
	code, out, errOut = runPullCmd("org/m")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, snap+"\n", out)
}

func TestPullGatedAndToken(t *testing.T) {
	h := fakehub.New(t)
	files := map[string][]byte{"config.json": []byte(`{}`), "tokenizer.json": []byte(`{"model": {}}`), "onnx/model.onnx": []byte("graph")}
	commit := h.Add("org/gated", files, fakehub.Gated("hf_granted"))
	cache := pullEnv(t, h)
	home := os.Getenv("HF_HOME")

	code, out, errOut := runPullCmd("org/gated")
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Equal(t, "downloading 3 files, 20 B\n[1/3] config.json (2 B)\n"+
		"feather pull: org/gated is gated: the Hub answered 401 for config.json without a token (the Hub says: Access to model org/gated is restricted. You must have access to it and be authenticated to access it. Please log in.). "+
		"Set HF_TOKEN to a token ("+h.URL+"/settings/tokens) of an account that has accepted its conditions at "+h.URL+"/org/gated, or log in with the hf CLI, which writes "+filepath.Join(home, "token")+"\n", errOut)

	// The token file the CLI writes is enough.
	require.NoError(t, os.WriteFile(filepath.Join(home, "token"), []byte("hf_granted\n"), 0o600))
	code, out, errOut = runPullCmd("org/gated")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, filepath.Join(cache, "models--org--gated", "snapshots", commit)+"\n", out)
	for _, r := range h.Requests() {
		if r.Server == "cdn" {
			assert.Empty(t, r.Authorization, "the token stays on the Hub's host")
		}
	}
}

func TestPullErrors(t *testing.T) {
	h := fakehub.New(t)
	h.Add("org/m", map[string][]byte{"config.json": []byte(`{}`), "tokenizer.json": []byte(`{}`), "model.onnx": []byte("graph")})
	tests := []struct {
		name string
		env  map[string]string
		args []string
		code int
		want string
	}{
		{name: "no repository", code: 2, want: "feather pull: want one repository, ORG/NAME[@REVISION], got 0 arguments; see feather pull -h\n"},
		{name: "two repositories", args: []string{"org/a", "org/b"}, code: 2, want: "feather pull: want one repository, ORG/NAME[@REVISION], got 2 arguments; see feather pull -h\n"},
		{name: "bad repository", args: []string{"just-a-name"}, code: 2,
			want: "feather pull: \"just-a-name\" is not a model repository; write ORG/NAME[@REVISION], e.g. HuggingFaceTB/SmolLM2-135M-Instruct@main\n"},
		{name: "bad variant", args: []string{"org/m", "--variant", "FP16"}, code: 2,
			want: "feather pull: --variant: variant \"FP16\" is not a file-name suffix such as quantized, fp16, int8, q4 or q4f16 (or fp32 for the unsuffixed file)\n"},
		{name: "bad endpoint", env: map[string]string{"HF_ENDPOINT": "localhost:1"}, args: []string{"org/m"}, code: 2,
			want: "feather pull: HF_ENDPOINT \"localhost:1\" is not an http(s) URL; set it to a mirror's address such as https://hf-mirror.com, or unset it for https://huggingface.co\n"},
		{name: "unknown flag", args: []string{"--varient", "q4", "org/m"}, code: 2, want: "flag provided but not defined: -varient\n"},
		{name: "missing repository", args: []string{"org/none"}, code: 1,
			want: "feather pull: repository org/none not found at " + h.URL + " (HF_ENDPOINT) (the Hub says: Repository Not Found for url: " + h.URL + "/api/models/org/none/revision/main.); check ORG/NAME, and if it is private, set HF_TOKEN to a token that can read it\n"},
		{name: "missing revision", args: []string{"org/m@v2"}, code: 1,
			want: "feather pull: repository org/m has no revision \"v2\" (the Hub says: Invalid rev id: v2); name a branch, tag or commit it has (see " + h.URL + "/org/m/tree/main)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pullEnv(t, h)
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			code, out, errOut := runPullCmd(tt.args...)
			assert.Equal(t, tt.code, code)
			assert.Empty(t, out)
			if tt.name == "unknown flag" {
				assert.True(t, strings.HasPrefix(errOut, tt.want), errOut)
				return
			}
			assert.Equal(t, tt.want, errOut)
		})
	}
}

func TestPullHelpDocumentsFlagsAndVariables(t *testing.T) {
	code, out, errOut := runPullCmd("-h")
	assert.Equal(t, 0, code)
	assert.Empty(t, out)
	assert.True(t, strings.HasPrefix(errOut, "usage: feather pull [flags] ORG/NAME[@REVISION]\n"), errOut)
	for _, name := range []string{"-variant", "-dry-run", "-verify", "-cache-dir",
		"HF_HUB_CACHE", "HF_HOME", "HF_ENDPOINT", "HF_TOKEN ", "HF_TOKEN_PATH", "HF_HUB_OFFLINE", "exit status"} {
		assert.Contains(t, errOut, name)
	}
}
