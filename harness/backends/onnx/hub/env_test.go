package hub

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFromEnv(t *testing.T) {
	home := t.TempDir()
	tokenDir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(tokenDir, "token"), []byte("hf_fromfile\n"), 0o600))
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".cache", "huggingface"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(home, ".cache", "huggingface", "token"), []byte(" hf_login \n"), 0o600))

	tests := []struct {
		name string
		env  map[string]string
		want Env
	}{
		{"defaults: the CLI's token file", map[string]string{}, Env{
			Endpoint: "https://huggingface.co", Home: home + "/.cache/huggingface", CacheDir: home + "/.cache/huggingface/hub",
			Token: "hf_login", TokenSource: home + "/.cache/huggingface/token", TokenPath: home + "/.cache/huggingface/token"}},
		{"HF_HUB_CACHE wins over HF_HOME", map[string]string{"HF_HUB_CACHE": "/data/hub", "HF_HOME": tokenDir}, Env{
			Endpoint: "https://huggingface.co", Home: tokenDir, CacheDir: "/data/hub",
			Token: "hf_fromfile", TokenSource: tokenDir + "/token", TokenPath: tokenDir + "/token"}},
		{"HF_HOME/hub", map[string]string{"HF_HOME": "/data/hf"}, Env{
			Endpoint: "https://huggingface.co", Home: "/data/hf", CacheDir: "/data/hf/hub", TokenPath: "/data/hf/token"}},
		{"XDG_CACHE_HOME", map[string]string{"XDG_CACHE_HOME": "/xdg"}, Env{
			Endpoint: "https://huggingface.co", Home: "/xdg/huggingface", CacheDir: "/xdg/huggingface/hub", TokenPath: "/xdg/huggingface/token"}},
		{"legacy HUGGINGFACE_HUB_CACHE", map[string]string{"HUGGINGFACE_HUB_CACHE": "~/old", "HF_HOME": "/data/hf"}, Env{
			Endpoint: "https://huggingface.co", Home: "/data/hf", CacheDir: home + "/old", TokenPath: "/data/hf/token"}},
		{"HF_TOKEN wins over the file; mirror endpoint", map[string]string{"HF_TOKEN": "hf_env", "HF_ENDPOINT": "https://hf-mirror.com/", "HF_HOME": tokenDir}, Env{
			Endpoint: "https://hf-mirror.com", Home: tokenDir, CacheDir: tokenDir + "/hub", Token: "hf_env", TokenSource: "HF_TOKEN", TokenPath: tokenDir + "/token"}},
		{"HF_TOKEN_PATH", map[string]string{"HF_TOKEN_PATH": tokenDir + "/token", "HF_HOME": "/data/hf"}, Env{
			Endpoint: "https://huggingface.co", Home: "/data/hf", CacheDir: "/data/hf/hub", Token: "hf_fromfile", TokenSource: tokenDir + "/token", TokenPath: tokenDir + "/token"}},
		{"HF_HUB_OFFLINE=1", map[string]string{"HF_HUB_OFFLINE": "1", "HF_HOME": "/data/hf"}, Env{
			Endpoint: "https://huggingface.co", Home: "/data/hf", CacheDir: "/data/hf/hub", TokenPath: "/data/hf/token", Offline: true}},
		{"HF_HUB_OFFLINE=yes", map[string]string{"HF_HUB_OFFLINE": "Yes", "HF_HOME": "/data/hf"}, Env{
			Endpoint: "https://huggingface.co", Home: "/data/hf", CacheDir: "/data/hf/hub", TokenPath: "/data/hf/token", Offline: true}},
		{"HF_HUB_OFFLINE=0", map[string]string{"HF_HUB_OFFLINE": "0", "HF_HOME": "/data/hf"}, Env{
			Endpoint: "https://huggingface.co", Home: "/data/hf", CacheDir: "/data/hf/hub", TokenPath: "/data/hf/token"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.env["HOME"] = home
			got, err := FromEnv(func(k string) string { return tt.env[k] })
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestFromEnvErrors(t *testing.T) {
	_, err := FromEnv(func(k string) string {
		return map[string]string{"HOME": "/h", "HF_ENDPOINT": "hf-mirror.com"}[k]
	})
	assert.EqualError(t, err, `HF_ENDPOINT "hf-mirror.com" is not an http(s) URL; set it to a mirror's address such as https://hf-mirror.com, or unset it for https://huggingface.co`)
}

func TestParseRef(t *testing.T) {
	tests := []struct {
		in   string
		want Ref
		err  string
	}{
		{in: "org/name", want: Ref{"org/name", "main"}},
		{in: "HuggingFaceTB/SmolLM2-135M-Instruct@v1.0", want: Ref{"HuggingFaceTB/SmolLM2-135M-Instruct", "v1.0"}},
		{in: "org/name@refs/pr/1", want: Ref{"org/name", "refs/pr/1"}},
		{in: "name", err: `"name" is not a model repository; write ORG/NAME[@REVISION], e.g. HuggingFaceTB/SmolLM2-135M-Instruct@main`},
		{in: "a/b/c", err: `"a/b/c" is not a model repository; write ORG/NAME[@REVISION], e.g. HuggingFaceTB/SmolLM2-135M-Instruct@main`},
		{in: "../x", err: `"../x" is not a model repository; write ORG/NAME[@REVISION], e.g. HuggingFaceTB/SmolLM2-135M-Instruct@main`},
		{in: "org/name@", err: `"org/name@" has an empty revision after @; write ORG/NAME@REVISION (a branch, tag or commit) or leave out the @`},
		{in: "org/name@../../x", err: `"org/name@../../x": revision "../../x" is not a branch, tag or commit`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseRef(tt.in)
			if tt.err != "" {
				assert.EqualError(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}
