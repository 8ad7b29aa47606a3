package hub

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// maxAttempts bounds the transfers of one file: interrupted transfers
// that made progress resume, and a corrupted one is fetched once more.
const maxAttempts = 5

// fetch downloads f into its blob under the blob's lock, resuming a
// .incomplete file left by an interrupted pull, and verifies it before
// the rename that makes it visible.
func (c *Client) fetch(ctx context.Context, rc repoCache, ref Ref, commit string, f File) error {
	lockPath := rc.lock(f.ETag)
	unlock, err := lockFile(ctx, lockPath, func() {
		c.progress().Note(fmt.Sprintf("waiting for another download of %s (lock %s)", f.Path, lockPath))
	})
	if err != nil {
		return fmt.Errorf("locking %s: %w", lockPath, err)
	}
	defer unlock()
	blob := rc.blob(f.ETag)
	if rc.hasBlob(f) {
		return nil // another process fetched it while we waited
	}
	if st, err := os.Stat(blob); err == nil {
		// The rename below replaces it.
		c.progress().Note(fmt.Sprintf("cached %s has %d bytes, not %d; downloading it again", f.Path, st.Size(), f.Size))
	}
	part := blob + ".incomplete"
	if err := os.MkdirAll(filepath.Dir(blob), 0o755); err != nil {
		return err
	}
	url := c.fileURL(ref.Repo, commit, f.Path)
	refetched := false
	for attempt := 1; ; attempt++ {
		progressed, err := c.transfer(ctx, url, part, commit, f)
		if err != nil {
			var se *statusError
			if errors.As(err, &se) {
				return c.explain(err, ref, f.Path)
			}
			if ctx.Err() != nil {
				return fmt.Errorf("interrupted while downloading %s (%w); what arrived is kept in %s, and the next pull resumes from it", f.Path, ctx.Err(), part)
			}
			if nf, ok := unreachable(err); ok {
				return c.unreachableServer(nf, f.Path)
			}
			if !progressed || attempt >= maxAttempts {
				return fmt.Errorf("downloading %s: %w (the part received is kept in %s; pull again to resume)", f.Path, err, part)
			}
			c.progress().Note(fmt.Sprintf("%s: %v; resuming", f.Path, err))
			continue
		}
		if err := verify(part, f); err != nil {
			os.Remove(part)
			if refetched || attempt >= maxAttempts {
				return fmt.Errorf("%s: %w, again after downloading it afresh; the Hub or a proxy between is serving damaged data (HF_ENDPOINT is %s)", f.Path, err, c.Env.Endpoint)
			}
			refetched = true
			c.progress().Note(fmt.Sprintf("%s: %v; downloading it afresh", f.Path, err))
			continue
		}
		break
	}
	return os.Rename(part, blob)
}

// transfer appends what part lacks of f, with a Range request when part
// already holds a prefix. progressed says whether any byte arrived, so
// an interruption is worth resuming.
func (c *Client) transfer(ctx context.Context, url, part, commit string, f File) (progressed bool, err error) {
	fh, err := os.OpenFile(part, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return false, err
	}
	defer func() {
		if cerr := fh.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	st, err := fh.Stat()
	if err != nil {
		return false, err
	}
	have := st.Size()
	if have > f.Size {
		have = 0
	}
	c.progress().File(f.Path, f.Size, have)
	if have == f.Size && have > 0 {
		return false, nil // an earlier attempt received it all; verify decides
	}
	hdr := http.Header{"Accept-Encoding": {"identity"}} // byte ranges of the stored file, not of a gzip stream
	if have > 0 {
		hdr.Set("Range", fmt.Sprintf("bytes=%d-", have))
	}
	resp, first, err := c.doRetrying(ctx, http.MethodGet, url, hdr)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	if got := first.Get("X-Repo-Commit"); got != "" && got != commit {
		return false, fmt.Errorf("%s: the Hub served commit %s, not %s", f.Path, got, commit)
	}
	if linked := normalizeETag(first.Get("X-Linked-Etag")); linked != "" && linked != f.ETag {
		return false, fmt.Errorf("%s: the tree listing gives ETag %s but the download's X-Linked-Etag is %s", f.Path, f.ETag, linked)
	}
	switch resp.StatusCode {
	case http.StatusPartialContent:
		if start, ok := rangeStart(resp.Header.Get("Content-Range")); !ok || start != have {
			if err := fh.Truncate(0); err != nil {
				return false, err
			}
			return true, fmt.Errorf("asked for bytes from %d, got Content-Range %q; starting over", have, resp.Header.Get("Content-Range"))
		}
	case http.StatusOK:
		if have > 0 { // the server ignored the Range: take the whole file
			have = 0
			c.progress().File(f.Path, f.Size, 0)
		}
	case http.StatusRequestedRangeNotSatisfiable:
		if err := fh.Truncate(0); err != nil {
			return false, err
		}
		return true, errors.New("the server refused to resume; starting over")
	default:
		return false, readStatusError(resp, url)
	}
	if err := fh.Truncate(have); err != nil {
		return false, err
	}
	if _, err := fh.Seek(have, io.SeekStart); err != nil {
		return false, err
	}
	// One byte past the end is enough to tell a server that sends too much.
	n, err := io.Copy(fh, &countingReader{r: io.LimitReader(resp.Body, f.Size-have+1), p: c.progress()})
	if err != nil {
		return n > 0, err
	}
	if have+n != f.Size {
		return n > 0, fmt.Errorf("the transfer ended at %d of %d bytes", have+n, f.Size)
	}
	return true, nil
}

// verify checks a file against its ETag: the sha256 of an LFS file, or
// the git blob id (sha1 of "blob <size>\x00" and the content) of the rest.
// Other ETags (from mirrors) are checked by size only.
func verify(path string, f File) error {
	fh, err := os.Open(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return err
	}
	if st.Size() != f.Size {
		return fmt.Errorf("has %d bytes, not the %d the Hub lists", st.Size(), f.Size)
	}
	var h hash.Hash
	kind := "sha256"
	switch len(f.ETag) {
	case 64:
		h = sha256.New()
	case 40:
		h = sha1.New()
		kind = "git blob id"
		fmt.Fprintf(h, "blob %d\x00", f.Size)
	default:
		return nil
	}
	if _, err := io.Copy(h, fh); err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != f.ETag {
		return fmt.Errorf("its %s is %s, not the ETag %s: the data is corrupted", kind, got, f.ETag)
	}
	return nil
}

// normalizeETag drops the weak marker and quotes, as huggingface_hub does.
func normalizeETag(s string) string {
	return strings.Trim(strings.TrimPrefix(s, "W/"), `"`)
}

// rangeStart reads the first byte of "bytes 100-199/200".
func rangeStart(s string) (int64, bool) {
	rest, ok := strings.CutPrefix(s, "bytes ")
	if !ok {
		return 0, false
	}
	first, _, ok := strings.Cut(rest, "-")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(first, 10, 64)
	return n, err == nil
}

// countingReader reports bytes read to Progress.
type countingReader struct {
	r io.Reader
	p Progress
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	if n > 0 {
		c.p.Add(int64(n))
	}
	return n, err
}
