//go:build unix

package hub

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/onnx/hub/fakehub"
)

// TestConcurrentPullsShareOneDownload runs two pulls of one repository
// into one cache at once. The first holds the big blob's download open
// until the second reports that it waits on the blob's lock; then the
// first finishes, and the second finds the blob whole instead of writing
// it again.
func TestConcurrentPullsShareOneDownload(t *testing.T) {
	h, files, commit := tinyHub(t)
	hold := make(chan struct{})
	h.Fault(dataPath, fakehub.Fault{Hold: hold})
	cache := filepath.Join(t.TempDir(), "hub")

	waiting := make(chan struct{})
	var once sync.Once
	first := &Client{Env: Env{Endpoint: h.URL, CacheDir: cache}}
	second := &Client{Env: Env{Endpoint: h.URL, CacheDir: cache}, Progress: &recorder{onNote: func(msg string) {
		if strings.HasPrefix(msg, "waiting for another download of "+dataPath) {
			once.Do(func() { close(waiting) })
		}
	}}}
	ref := Ref{Repo: tinyRepo, Revision: "main"}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	var wg sync.WaitGroup
	errs := make([]error, 2)
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, errs[0] = first.Pull(ctx, ref, Options{})
	}()
	// Start the second pull once the first is inside the big download.
	for h.Downloads()[dataPath] == 0 {
		select {
		case <-ctx.Done():
			t.Fatal("the first pull never started the download")
		case <-time.After(5 * time.Millisecond):
		}
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, errs[1] = second.Pull(ctx, ref, Options{})
	}()
	select {
	case <-waiting:
	case <-ctx.Done():
		t.Fatal("the second pull never waited for the lock")
	}
	close(hold)
	wg.Wait()
	require.NoError(t, errs[0])
	require.NoError(t, errs[1])

	assert.Equal(t, onceEach(tinyWant), h.Downloads(), "every blob is written once, by whichever pull took its lock first")
	etag := etagOf(dataPath, files[dataPath])
	snap := filepath.Join(cache, "models--org--tiny", "snapshots", commit)
	assert.Equal(t, etag, sha256Hex(t, filepath.Join(snap, dataPath)))
	for _, p := range tinyWant {
		got, err := os.ReadFile(filepath.Join(snap, p))
		require.NoError(t, err)
		assert.Equal(t, files[p], got, p)
	}
	assert.NotContains(t, strings.Join(tree(t, cache), "\n"), ".incomplete")
}

func TestLockWaitEndsWithContext(t *testing.T) {
	p := filepath.Join(t.TempDir(), ".locks", "x.lock")
	unlock, err := lockFile(context.Background(), p, nil)
	require.NoError(t, err)
	defer unlock()
	ctx, cancel := context.WithCancel(context.Background())
	waited := false
	_, err = lockFile(ctx, p, func() { waited = true; cancel() })
	assert.ErrorIs(t, err, context.Canceled)
	assert.True(t, waited)
}
