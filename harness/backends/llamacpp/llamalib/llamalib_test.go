package llamalib_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/llamacpp/llamalib"
	"github.com/feather-eval/feather/harness/backends/llamacpp/llamalib/llamatest"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestLocate(t *testing.T) {
	t.Setenv("FEATHER_CACHE", "/cache")
	empty := t.TempDir()
	npm := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(npm, "libllama.v0.4.0.so"), []byte("x"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(npm, "libllama.so"), []byte("x"), 0o644))
	build := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(build, "libllama.so"), []byte("x"), 0o644))
	file := filepath.Join(build, "libllama.so")

	for _, tc := range []struct {
		name, env, want, err string
	}{
		{name: "override folder of the npm package", env: npm, want: filepath.Join(npm, "libllama.v0.4.0.so")},
		{name: "override folder of a llama.cpp build", env: build, want: file},
		{name: "override file", env: file, want: file},
		{
			name: "override folder without the library", env: empty,
			err: "LLAMA_CPP_LIB=" + empty + " holds neither libllama.v0.4.0.so nor libllama.so. Point LLAMA_CPP_LIB at the folder holding llama.cpp v0.4.0's libraries (libllama, libggml, libggml-base and the libggml-cpu-*.so variants), or unset it and run `make deps`",
		},
		{
			name: "override that does not exist", env: "/nonexistent",
			err: "LLAMA_CPP_LIB=/nonexistent: no such file or folder. Point LLAMA_CPP_LIB at the folder holding libllama.v0.4.0.so from llama.cpp v0.4.0 (or at that file), or unset it to use the libraries `make deps` provisions in /cache/llama.cpp/3.21.1",
		},
		{
			name: "nothing provisioned",
			err:  "llama.cpp library not found at /cache/llama.cpp/3.21.1/libllama.v0.4.0.so. Run `make deps` (it unpacks it from the @node-llama-cpp/linux-x64 3.21.1 npm package), or set LLAMA_CPP_LIB to the folder holding libllama.v0.4.0.so from llama.cpp v0.4.0",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := llamalib.Locate(env(map[string]string{llamalib.Env: tc.env}))
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestInitMissingLibrary: Init says what is missing and how to install it,
// whether or not an earlier test loaded the library.
func TestInitMissingLibrary(t *testing.T) {
	empty := t.TempDir()
	t.Setenv(llamalib.Env, empty)
	require.EqualError(t, llamalib.Init(), "LLAMA_CPP_LIB="+empty+" holds neither libllama.v0.4.0.so nor libllama.so. Point LLAMA_CPP_LIB at the folder holding llama.cpp v0.4.0's libraries (libllama, libggml, libggml-base and the libggml-cpu-*.so variants), or unset it and run `make deps`")
}

// TestInit loads the provisioned library: the release the binding follows,
// the CPU variant ggml's dispatch picked from the folder, and the features
// it runs with.
func TestInit(t *testing.T) {
	llamatest.Require(t)
	info, ok := llamalib.Loaded()
	require.True(t, ok)
	assert.Equal(t, "0.4.0-dev", info.Version)
	want, err := llamalib.Locate(os.Getenv)
	require.NoError(t, err)
	assert.Equal(t, want, info.Path)
	require.NotEmpty(t, info.CPUVariant, "no libggml-cpu-*.so is mapped")
	assert.FileExists(t, filepath.Join(filepath.Dir(info.Path), "libggml-cpu-"+info.CPUVariant+".so"))
	assert.True(t, strings.HasPrefix(info.SystemInfo, "CPU : "), info.SystemInfo)
	t.Logf("llama.cpp %s, CPU variant %s: %s", info.Version, info.CPUVariant, info.SystemInfo)

	// A second Init is a no-op, and naming another library is an error.
	require.NoError(t, llamalib.Init())
	other := filepath.Join(t.TempDir(), "libllama.so")
	require.NoError(t, os.WriteFile(other, []byte("x"), 0o644))
	t.Setenv(llamalib.Env, other)
	require.EqualError(t, llamalib.Init(), "llama.cpp is already loaded from "+info.Path+"; LLAMA_CPP_LIB now names "+other+", and a process loads the library once")
}
