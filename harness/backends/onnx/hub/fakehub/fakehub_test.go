package fakehub

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// noRedirect shows each hop as the Hub's clients see it.
var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func send(t *testing.T, method, url string, hdr map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	require.NoError(t, err)
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := noRedirect.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(body)
}

func TestWireFormat(t *testing.T) {
	h := New(t)
	big := strings.Repeat("w", 100)
	commit := h.Add("org/m", map[string][]byte{"config.json": []byte("{}\n"), "onnx/model.onnx": []byte(big)})
	sum := sha256.Sum256([]byte(big))
	sha := hex.EncodeToString(sum[:])

	resp, _ := send(t, http.MethodHead, h.URL+"/org/m/resolve/main/config.json", nil)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, `"`+GitBlobID([]byte("{}\n"))+`"`, resp.Header.Get("ETag"))
	assert.Equal(t, "3", resp.Header.Get("Content-Length"))
	assert.Equal(t, commit, resp.Header.Get("X-Repo-Commit"))

	resp, _ = send(t, http.MethodHead, h.URL+"/org/m/resolve/main/onnx/model.onnx", nil)
	assert.Equal(t, http.StatusFound, resp.StatusCode)
	assert.Equal(t, `"`+sha+`"`, resp.Header.Get("X-Linked-Etag"))
	assert.Equal(t, "100", resp.Header.Get("X-Linked-Size"))
	assert.Equal(t, commit, resp.Header.Get("X-Repo-Commit"))
	cdn := resp.Header.Get("Location")
	assert.True(t, strings.HasPrefix(cdn, h.CDNURL+"/repos/"+sha+"?"), cdn)

	resp, body := send(t, http.MethodGet, cdn, map[string]string{"Range": "bytes=90-"})
	assert.Equal(t, http.StatusPartialContent, resp.StatusCode)
	assert.Equal(t, "bytes 90-99/100", resp.Header.Get("Content-Range"))
	assert.Equal(t, big[90:], body)
	resp, _ = send(t, http.MethodGet, cdn, map[string]string{"Authorization": "Bearer x"})
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "a signed URL refuses a second credential")

	resp, body = send(t, http.MethodGet, h.URL+"/api/models/org/m/tree/main?recursive=true", nil)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	ptr := "version https://git-lfs.github.com/spec/v1\noid sha256:" + sha + "\nsize 100\n"
	assert.JSONEq(t, `[
		{"type":"file","oid":"`+GitBlobID([]byte("{}\n"))+`","size":3,"path":"config.json"},
		{"type":"directory","oid":"`+GitBlobID([]byte("onnx"))+`","size":0,"path":"onnx"},
		{"type":"file","oid":"`+GitBlobID([]byte(ptr))+`","size":100,"path":"onnx/model.onnx","lfs":{"oid":"`+sha+`","size":100,"pointerSize":`+strconv.Itoa(len(ptr))+`}}
	]`, body)

	resp, body = send(t, http.MethodGet, h.URL+"/api/models/org/m/revision/main", nil)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, body, `"sha":"`+commit+`"`)
	assert.Contains(t, body, `"siblings":[{"rfilename":"config.json"},{"rfilename":"onnx/model.onnx"}]`)

	resp, _ = send(t, http.MethodGet, h.URL+"/org/m/resolve/main/nope.json", nil)
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	assert.Equal(t, "EntryNotFound", resp.Header.Get("X-Error-Code"))
}
