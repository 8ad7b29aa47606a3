package hub

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/feather-eval/feather/internal/atomicfile"
)

// repoCache is one repository's folder in the hub cache:
//
//	models--org--name/blobs/<etag>               file contents, named by ETag
//	models--org--name/blobs/<etag>.incomplete    a download in progress
//	models--org--name/snapshots/<commit>/<path>  relative links into blobs
//	models--org--name/refs/<revision>            the commit a branch or tag was at
//
// and its lock folder, <cache>/.locks/models--org--name/<etag>.lock.
type repoCache struct {
	dir, locks string
}

func newRepoCache(cacheDir, repo string) repoCache {
	return repoCache{
		dir:   filepath.Join(cacheDir, repoFolder(repo)),
		locks: filepath.Join(cacheDir, ".locks", repoFolder(repo)),
	}
}

func (c repoCache) blob(etag string) string { return filepath.Join(c.dir, "blobs", etag) }
func (c repoCache) lock(etag string) string { return filepath.Join(c.locks, etag+".lock") }
func (c repoCache) snapshot(commit string) string {
	return filepath.Join(c.dir, "snapshots", commit)
}
func (c repoCache) pointer(commit, path string) string {
	return filepath.Join(c.snapshot(commit), filepath.FromSlash(path))
}
func (c repoCache) ref(rev string) string {
	return filepath.Join(c.dir, "refs", filepath.FromSlash(rev))
}

// readRef returns the commit refs/<rev> records, or "" when there is none.
func (c repoCache) readRef(rev string) (string, error) {
	data, err := os.ReadFile(c.ref(rev))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(data)), nil
}

// writeRef records that rev is at commit (a rename, so readers never see
// half a hash). A commit needs no ref, as in huggingface_hub.
func (c repoCache) writeRef(rev, commit string) error {
	if rev == commit {
		return nil
	}
	if old, err := c.readRef(rev); err == nil && old == commit {
		return nil
	}
	return atomicfile.Write(c.ref(rev), []byte(commit))
}

// linked reports whether the snapshot's path is a link to the blob etag
// that exists with the given size.
func (c repoCache) linked(commit, path, etag string, size int64) bool {
	p := c.pointer(commit, path)
	target, err := os.Readlink(p)
	if err != nil || filepath.Base(target) != etag {
		return false
	}
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Size() == size
}

// hasBlob reports whether f's blob is present with f's size; a blob of
// another size is damaged, and fetching it again replaces it.
func (c repoCache) hasBlob(f File) bool {
	st, err := os.Stat(c.blob(f.ETag))
	return err == nil && st.Mode().IsRegular() && st.Size() == f.Size
}

// link points the snapshot's path at the blob with a relative symlink
// (../../blobs/<etag>, one more ../ per folder in path), replacing
// whatever was there by a rename.
func (c repoCache) link(commit, path, etag string) error {
	p := c.pointer(commit, path)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	target, err := filepath.Rel(filepath.Dir(p), c.blob(etag))
	if err != nil {
		return err
	}
	// A name of its own, so concurrent pulls linking the same path never
	// remove each other's temporary link.
	tmp := fmt.Sprintf("%s.tmp-%d-%x", p, os.Getpid(), rand.Uint64())
	if err := os.Symlink(target, tmp); err != nil {
		return err
	}
	if err := os.Rename(tmp, p); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// CachedCommit is the commit ref names: its revision when that is a full
// commit hash, else the commit the cache in cacheDir recorded for the
// branch or tag at its last pull, or "" when it has none.
func CachedCommit(cacheDir string, ref Ref) string {
	if isCommit(ref.Revision) {
		return ref.Revision
	}
	if cacheDir == "" {
		return ""
	}
	commit, err := newRepoCache(cacheDir, ref.Repo).readRef(ref.Revision)
	if err != nil || !isCommit(commit) {
		return ""
	}
	return commit
}
