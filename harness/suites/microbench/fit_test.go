package microbench_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/onnx/tokenizer"
	mb "github.com/feather-eval/feather/harness/suites/microbench"
	"github.com/feather-eval/feather/internal/testenv"
)

func suiteTasks(t testing.TB) []*mb.Task {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	tasks, err := mb.Load(os.DirFS(filepath.Join(filepath.Dir(file), "..", "..", "..", "testdata", "microbench")))
	require.NoError(t, err)
	return tasks
}

// Every item fits the spec's 512-token window with common tokenizers: the
// prefix token, the context and the longest continuation, encoded apart as
// scorers do. The longest bits-per-byte document is longer than one
// window, so the sliding window is exercised.
func TestItemsFit512Tokens(t *testing.T) {
	tasks := suiteTasks(t)
	for _, tc := range []struct {
		name string
		dir  func(t *testing.T) string
	}{
		{"gpt2", func(t *testing.T) string { return testenv.Tokenizer("gpt2") }},
		{"smollm-135m", func(t *testing.T) string { return testenv.Tokenizer("smollm-135m") }},
		{"llama2", func(t *testing.T) string { return testenv.NPMTokenizer(t, "llama2") }},
		{"qwen3", func(t *testing.T) string { return testenv.NPMTokenizer(t, "qwen3") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tok, err := tokenizer.Load(tc.dir(t))
			require.NoError(t, err)
			longest, longestID, longestDoc := 0, "", 0
			for _, tk := range tasks {
				for _, it := range tk.Items {
					if tk.IsBPB() {
						longestDoc = max(longestDoc, len(tok.Encode(it.Text, false)))
						continue
					}
					n := len(tok.Encode(it.Context, false))
					cont := 0
					for i := range it.Choices {
						c := len(tok.Encode(it.Continuation(i), false))
						assert.Positive(t, c, "%s choice %d encodes to nothing", it.ID, i)
						cont = max(cont, c)
					}
					if 1+n+cont > longest {
						longest, longestID = 1+n+cont, it.ID
					}
				}
			}
			t.Logf("longest item %s: %d tokens; longest document: %d tokens", longestID, longest, longestDoc)
			assert.LessOrEqual(t, longest, mb.MaxLength)
			assert.Greater(t, longestDoc+1, mb.MaxLength, "no document needs a second window")
		})
	}
}
