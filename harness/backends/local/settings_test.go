package local_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/backends/local"
)

// TestSourceIdentity: a Hub repository is named with its revision and the
// commit the cache resolved it to (a commit revision is its own; a
// branch before its first pull has none); one that does not parse is
// kept as written.
func TestSourceIdentity(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("HF_HUB_CACHE", cache)
	const pulled = "0123456789abcdef0123456789abcdef01234567"
	refs := filepath.Join(cache, "models--org--pulled", "refs")
	require.NoError(t, os.MkdirAll(refs, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(refs, "main"), []byte(pulled), 0o644))
	const commit = "89abcdef0123456789abcdef0123456789abcdef"
	tests := []struct {
		chat, path, hf     string
		wantHF, wantCommit string
	}{
		{"yes", "/models/m.gguf", "", "", ""},
		{"", "", "org/pulled", "org/pulled@main", pulled},
		{"", "", "org/fresh", "org/fresh@main", ""},
		{"no", "", "org/fresh@" + commit, "org/fresh@" + commit, commit},
		{"", "", "not a repository", "not a repository", ""},
	}
	for _, tt := range tests {
		assert.Equal(t, []catalog.Field{
			{Name: "chat", Value: tt.chat},
			{Name: "path", Value: tt.path},
			{Name: "hf", Value: tt.wantHF},
			{Name: "commit", Value: tt.wantCommit},
		}, local.SourceIdentity(tt.chat, tt.path, tt.hf), tt.hf)
	}
}
