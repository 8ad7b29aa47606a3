package hub

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/onnx/hub/fakehub"
)

const tinyRepo = "org/tiny"

// bigSize makes the fp32 external data large enough to cut mid-transfer.
const bigSize = 1 << 20

// tinyFiles is the fixture folder testdata/tiny plus what is better made
// than committed: 1 MiB of external data and a .gitattributes (which, in
// testdata, git would apply to the fixture itself).
func tinyFiles(t *testing.T) map[string][]byte {
	t.Helper()
	files := fakehub.ReadFolder(t, filepath.Join("testdata", "tiny"))
	files["onnx/model.onnx_data"] = pseudoRandom(bigSize, 1)
	files[".gitattributes"] = []byte("*.onnx filter=lfs diff=lfs merge=lfs -text\n*.onnx_data filter=lfs diff=lfs merge=lfs -text\n")
	return files
}

func pseudoRandom(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, seed))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// tinyWant is what a default pull selects from tinyFiles, in listing order.
var tinyWant = []string{
	"chat_template.jinja", "config.json", "generation_config.json",
	"onnx/model.onnx", "onnx/model.onnx_data",
	"special_tokens_map.json", "tokenizer.json", "tokenizer_config.json",
}

// etagOf is the ETag the Hub gives data at path: the sha256 of an LFS
// file (fakehub.LFS), else the git blob id.
func etagOf(path string, data []byte) string {
	if fakehub.LFS(path) {
		s := sha256.Sum256(data)
		return hex.EncodeToString(s[:])
	}
	return fakehub.GitBlobID(data)
}

// recorder is a Progress that keeps what it hears.
type recorder struct {
	mu     sync.Mutex
	notes  []string
	files  []string // "path size have"
	added  int64
	onNote func(string)
}

func (r *recorder) Start(int, int64) {}
func (r *recorder) File(path string, size, have int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.files = append(r.files, path+" "+strconv.FormatInt(size, 10)+" "+strconv.FormatInt(have, 10))
}
func (r *recorder) Add(n int64) { r.mu.Lock(); r.added += n; r.mu.Unlock() }
func (r *recorder) Note(msg string) {
	r.mu.Lock()
	r.notes = append(r.notes, msg)
	f := r.onNote
	r.mu.Unlock()
	if f != nil {
		f(msg)
	}
}
func (r *recorder) Done() {}

func (r *recorder) Notes() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.notes...)
}

// tinyHub is a fake hub holding tinyFiles as tinyRepo, and the commit
// they are at.
func tinyHub(t *testing.T, opts ...fakehub.Option) (h *fakehub.Hub, files map[string][]byte, commit string) {
	t.Helper()
	h = fakehub.New(t)
	files = tinyFiles(t)
	return h, files, h.Add(tinyRepo, files, opts...)
}

// newClient is a client of h writing to a fresh cache.
func newClient(t *testing.T, h *fakehub.Hub) (*Client, *recorder) {
	t.Helper()
	rec := &recorder{}
	return &Client{Env: Env{Endpoint: h.URL, CacheDir: filepath.Join(t.TempDir(), "hub"), TokenPath: "/home/u/.cache/huggingface/token"}, Progress: rec}, rec
}

func pull(t *testing.T, c *Client, ref string, opt Options) (*Result, error) {
	t.Helper()
	r, err := ParseRef(ref)
	require.NoError(t, err)
	return c.Pull(context.Background(), r, opt)
}

func paths(res *Result) []string {
	var out []string
	for _, f := range res.Files {
		out = append(out, f.Path)
	}
	return out
}

// tree lists every entry under dir: files as "path (N bytes)", links as
// "path -> target", relative to dir and sorted.
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			require.NoError(t, err)
			out = append(out, rel+" -> "+target)
		case !d.IsDir():
			st, err := d.Info()
			require.NoError(t, err)
			out = append(out, rel+" ("+strconv.FormatInt(st.Size(), 10)+" bytes)")
		}
		return nil
	})
	if !os.IsNotExist(err) {
		require.NoError(t, err)
	}
	sort.Strings(out)
	return out
}

// onceEach is fakehub.Downloads' count when each of paths was fetched once.
func onceEach(paths []string) map[string]int {
	out := map[string]int{}
	for _, p := range paths {
		out[p] = 1
	}
	return out
}

// requestsSince lists the requests h received after the first n, as
// "METHOD path".
func requestsSince(h *fakehub.Hub, n int) []string {
	var out []string
	for _, r := range h.Requests()[n:] {
		out = append(out, r.Method+" "+r.Path)
	}
	return out
}

func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}
