package hub

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/onnx/hub/fakehub"
)

const dataPath = "onnx/model.onnx_data"

// fetches lists the Range header of every request that sent path's bytes.
func fetches(h *fakehub.Hub, path string) []string {
	out := []string{}
	for _, r := range h.Requests() {
		if r.Served && r.File == path {
			out = append(out, r.Range)
		}
	}
	return out
}

func sha256Hex(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// writePart leaves the first n bytes of the external data as the
// .incomplete blob an interrupted earlier run would have left in c's cache.
func writePart(t *testing.T, c *Client, data []byte, n int) string {
	t.Helper()
	part := filepath.Join(c.Env.CacheDir, "models--org--tiny", "blobs", etagOf(dataPath, data)+".incomplete")
	require.NoError(t, os.MkdirAll(filepath.Dir(part), 0o755))
	require.NoError(t, os.WriteFile(part, data[:n], 0o644))
	return part
}

func TestResumeCutTransferWithRange(t *testing.T) {
	h, files, _ := tinyHub(t)
	h.Fault(dataPath, fakehub.Fault{CutAfter: 300_000})
	c, rec := newClient(t, h)

	res, err := pull(t, c, tinyRepo, Options{})
	require.NoError(t, err)
	assert.Equal(t, []string{"", "bytes=300000-"}, fetches(h, dataPath), "the second request asks for the rest only")
	assert.Equal(t, etagOf(dataPath, files[dataPath]), sha256Hex(t, filepath.Join(res.Snapshot, dataPath)))
	assert.Equal(t, []string{"onnx/model.onnx_data: unexpected EOF; resuming"}, rec.Notes())
	assert.Contains(t, rec.files, dataPath+" 1048576 300000", "progress restarts the file at the resumed offset")
	assert.NotContains(t, tree(t, c.Env.CacheDir), ".incomplete")
}

func TestResumeIncompleteFromEarlierRun(t *testing.T) {
	h, files, _ := tinyHub(t)
	c, _ := newClient(t, h)
	etag := etagOf(dataPath, files[dataPath])
	part := writePart(t, c, files[dataPath], 123_456)

	res, err := pull(t, c, tinyRepo, Options{})
	require.NoError(t, err)
	assert.Equal(t, []string{"bytes=123456-"}, fetches(h, dataPath))
	assert.Equal(t, etag, sha256Hex(t, filepath.Join(res.Snapshot, dataPath)))
	assert.NoFileExists(t, part)
}

func TestResumeWhenServerIgnoresRange(t *testing.T) {
	h, files, _ := tinyHub(t)
	h.Fault(dataPath, fakehub.Fault{IgnoreRange: true})
	c, _ := newClient(t, h)
	etag := etagOf(dataPath, files[dataPath])
	writePart(t, c, files[dataPath], 1000)

	res, err := pull(t, c, tinyRepo, Options{})
	require.NoError(t, err)
	assert.Equal(t, []string{"bytes=1000-"}, fetches(h, dataPath), "a 200 to a Range request restarts the file in the same request")
	assert.Equal(t, etag, sha256Hex(t, filepath.Join(res.Snapshot, dataPath)))
}

func TestCorruptedTransferIsFetchedAfresh(t *testing.T) {
	for _, path := range []string{dataPath, "config.json"} { // sha256 (LFS) and git blob id
		t.Run(path, func(t *testing.T) {
			h, files, _ := tinyHub(t)
			h.Fault(path, fakehub.Fault{Corrupt: true})
			c, rec := newClient(t, h)

			res, err := pull(t, c, tinyRepo, Options{})
			require.NoError(t, err)
			assert.Equal(t, []string{"", ""}, fetches(h, path), "the second transfer starts from zero")
			got, err := os.ReadFile(filepath.Join(res.Snapshot, path))
			require.NoError(t, err)
			assert.Equal(t, files[path], got)
			require.Len(t, rec.Notes(), 1)
			assert.Contains(t, rec.Notes()[0], path+": its ")
			assert.Contains(t, rec.Notes()[0], ", not the ETag "+etagOf(path, files[path])+": the data is corrupted; downloading it afresh")
		})
	}
}

func TestCorruptedEveryTimeIsRefused(t *testing.T) {
	h, files, _ := tinyHub(t)
	h.Fault(dataPath, fakehub.Fault{Corrupt: true, Times: 2})
	c, _ := newClient(t, h)

	_, err := pull(t, c, tinyRepo, Options{})
	require.Error(t, err)
	bad := files[dataPath]
	bad = append([]byte(nil), bad...)
	bad[len(bad)/2] ^= 0xff
	sum := sha256.Sum256(bad)
	assert.Equal(t, "onnx/model.onnx_data: its sha256 is "+hex.EncodeToString(sum[:])+", not the ETag "+etagOf(dataPath, files[dataPath])+
		": the data is corrupted, again after downloading it afresh; the Hub or a proxy between is serving damaged data (HF_ENDPOINT is "+h.URL+")", err.Error())
	etag := etagOf(dataPath, files[dataPath])
	blobs := filepath.Join(c.Env.CacheDir, "models--org--tiny", "blobs")
	assert.NoFileExists(t, filepath.Join(blobs, etag))
	assert.NoFileExists(t, filepath.Join(blobs, etag+".incomplete"), "damaged bytes are not kept to resume from")
	assert.NoDirExists(t, filepath.Join(c.Env.CacheDir, "models--org--tiny", "snapshots"), "no snapshot links to a missing blob")
}

func TestDamagedCachedBlob(t *testing.T) {
	h, files, _ := tinyHub(t)
	c, rec := newClient(t, h)
	res, err := pull(t, c, tinyRepo, Options{})
	require.NoError(t, err)
	etag := etagOf(dataPath, files[dataPath])
	blob := filepath.Join(c.Env.CacheDir, "models--org--tiny", "blobs", etag)

	// Same size, other bytes: only --verify can tell.
	damaged := append([]byte(nil), files[dataPath]...)
	damaged[10] ^= 1
	require.NoError(t, os.WriteFile(blob, damaged, 0o644))
	_, err = pull(t, c, tinyRepo, Options{})
	require.NoError(t, err)
	assert.Equal(t, 1, h.Downloads()[dataPath], "without --verify a cached blob of the right size is trusted")
	_, err = pull(t, c, tinyRepo, Options{Verify: true})
	require.NoError(t, err)
	assert.Equal(t, 2, h.Downloads()[dataPath])
	assert.Equal(t, etag, sha256Hex(t, filepath.Join(res.Snapshot, dataPath)))
	damagedSum := sha256.Sum256(damaged)
	assert.Equal(t, []string{"cached onnx/model.onnx_data: its sha256 is " + hex.EncodeToString(damagedSum[:]) + ", not the ETag " + etag + ": the data is corrupted; downloading it again"}, rec.Notes())

	// A truncated blob is caught by its size.
	require.NoError(t, os.WriteFile(blob, files[dataPath][:10], 0o644))
	_, err = pull(t, c, tinyRepo, Options{})
	require.NoError(t, err)
	assert.Equal(t, 3, h.Downloads()[dataPath])
	assert.Equal(t, etag, sha256Hex(t, filepath.Join(res.Snapshot, dataPath)))
	assert.Equal(t, "cached onnx/model.onnx_data has 10 bytes, not 1048576; downloading it again", rec.Notes()[1])
}

func TestVerify(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	data := []byte("hello\n")
	require.NoError(t, os.WriteFile(p, data, 0o644))
	sum := sha256.Sum256(data)
	tests := []struct {
		name string
		f    File
		want string
	}{
		{"sha256", File{Size: 6, ETag: hex.EncodeToString(sum[:])}, ""},
		{"git blob id", File{Size: 6, ETag: "ce013625030ba8dba906f756967f9e9ca394464a"}, ""}, // git hash-object of "hello\n"
		{"other ETag: size only", File{Size: 6, ETag: "mirror-etag"}, ""},
		{"wrong size", File{Size: 7, ETag: "mirror-etag"}, "has 6 bytes, not the 7 the Hub lists"},
		{"wrong sha256", File{Size: 6, ETag: "0000000000000000000000000000000000000000000000000000000000000000"},
			"its sha256 is " + hex.EncodeToString(sum[:]) + ", not the ETag 0000000000000000000000000000000000000000000000000000000000000000: the data is corrupted"},
		{"wrong git blob id", File{Size: 6, ETag: "0000000000000000000000000000000000000000"},
			"its git blob id is ce013625030ba8dba906f756967f9e9ca394464a, not the ETag 0000000000000000000000000000000000000000: the data is corrupted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := verify(p, tt.f)
			if tt.want == "" {
				assert.NoError(t, err)
			} else {
				assert.EqualError(t, err, tt.want)
			}
		})
	}
}

func TestDownloadServerError(t *testing.T) {
	h, _, _ := tinyHub(t)
	h.Fault(dataPath, fakehub.Fault{Status: http.StatusForbidden})
	c, _ := newClient(t, h)
	_, err := pull(t, c, tinyRepo, Options{})
	require.Error(t, err)
	cdn, _ := url.Parse(h.CDNURL)
	assert.Equal(t, "org/tiny@main: the download server "+cdn.Host+" answered 403 Forbidden for onnx/model.onnx_data; try again later (what arrived is kept, and the next pull resumes)", err.Error(),
		"a refusal from the CDN is not taken for the Hub's gate")
}

func TestInterruptedPullKeepsWhatArrived(t *testing.T) {
	h, files, _ := tinyHub(t)
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) }) // before the fake's servers close
	h.Fault(dataPath, fakehub.Fault{Hold: hold})
	c, _ := newClient(t, h)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for h.Downloads()[dataPath] == 0 {
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
	}()
	_, err := c.Pull(ctx, Ref{Repo: tinyRepo, Revision: "main"}, Options{})
	require.Error(t, err)
	part := filepath.Join(c.Env.CacheDir, "models--org--tiny", "blobs", etagOf(dataPath, files[dataPath])+".incomplete")
	assert.Equal(t, "interrupted while downloading onnx/model.onnx_data (context canceled); what arrived is kept in "+part+", and the next pull resumes from it", err.Error())
	assert.ErrorIs(t, err, context.Canceled)
}
