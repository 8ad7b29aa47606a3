package llamalib_test

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/llamacpp/llamalib"
	"github.com/feather-eval/feather/harness/backends/llamacpp/llamalib/llamatest"
)

// TestOpenModelRefuses: what is not a loadable GGUF model is an error
// naming the file, never an abort.
func TestOpenModelRefuses(t *testing.T) {
	llamatest.Require(t)
	dir := t.TempDir()
	text := filepath.Join(dir, "model.gguf")
	require.NoError(t, os.WriteFile(text, []byte("this is not a model\n"), 0o644))
	// The GGUF magic and version 3, then a header cut short.
	var trunc []byte
	trunc = append(trunc, "GGUF"...)
	trunc = binary.LittleEndian.AppendUint32(trunc, 3)
	trunc = binary.LittleEndian.AppendUint64(trunc, 1)
	trunc = binary.LittleEndian.AppendUint64(trunc, 5)
	truncated := filepath.Join(dir, "truncated.gguf")
	require.NoError(t, os.WriteFile(truncated, trunc, 0o644))

	for _, tc := range []struct{ name, path, err string }{
		{"not GGUF", text, text + " is not a GGUF file: it does not start with the GGUF magic"},
		{"empty", writeEmpty(t, dir), filepath.Join(dir, "empty.gguf") + " is not a GGUF file: it does not start with the GGUF magic"},
		{"folder", dir, "model file " + dir + " is a folder; point at the .gguf file"},
		{"missing", filepath.Join(dir, "nope.gguf"), "model file: open " + filepath.Join(dir, "nope.gguf") + ": no such file or directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := llamalib.OpenModel(tc.path)
			require.EqualError(t, err, tc.err)
			assert.Nil(t, m)
		})
	}
	t.Run("truncated GGUF", func(t *testing.T) {
		_, err := llamalib.OpenModel(truncated)
		require.EqualError(t, err, "llama.cpp could not load "+truncated+": gguf_init_from_reader: failed to read key-value pairs; "+
			"llama_model_load: error loading model: llama_model_loader: failed to load model from "+truncated+"; "+
			"llama_model_load_from_file_impl: failed to load model")
	})
}

func writeEmpty(t *testing.T, dir string) string {
	p := filepath.Join(dir, "empty.gguf")
	require.NoError(t, os.WriteFile(p, nil, 0o644))
	return p
}
