// Package fakehub is an in-process Hugging Face Hub for tests. It speaks
// the parts of the Hub's HTTP API that model downloads use, as the Hub
// does: the model info (/api/models/ORG/NAME/revision/REV, with the commit
// in "sha"), the paginated recursive tree listing (LFS entries carry
// lfs.oid, the sha256), and resolve URLs that serve small
// files with their git blob id as ETag and redirect LFS files (302,
// X-Linked-Etag, X-Linked-Size, X-Repo-Commit) to a second server standing
// for the CDN, which honours Range requests and, like a signed-URL store,
// refuses an Authorization header. Gated repositories answer 401 without a
// token and 403 to a token without access; unknown repositories, revisions
// and files answer with the Hub's X-Error-Code. Faults cut a transfer
// short, corrupt its bytes, ignore Range, answer with an error status, or
// hold a download until the test lets it go; Busy makes the Hub answer
// 429 or 5xx, with a Retry-After, to its next requests. Closed gives an
// address that refuses connections, for a Hub that cannot be reached.
package fakehub

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Hub is the fake. Its methods are safe for concurrent use.
type Hub struct {
	// URL is the endpoint (what HF_ENDPOINT names); CDNURL is where LFS
	// files are redirected.
	URL, CDNURL string
	// PageSize is how many tree entries one page lists (the Hub pages
	// its listings; a small size exercises Link headers). 0 means 1000.
	PageSize int

	mu     sync.Mutex
	repos  map[string]*repo
	lfs    map[string][]byte // CDN contents by sha256
	tokens map[string]bool
	faults map[string][]Fault
	busy   []Fault // answers for the next requests to the Hub itself
	reqs   []Request
	seq    int
}

type repo struct {
	id      string
	gated   bool
	granted map[string]bool
	refs    map[string]string // branch or tag → commit
	commits map[string]*commit
}

type commit struct {
	sha   string
	files []file // sorted by path
}

type file struct {
	path    string
	data    []byte
	lfs     bool
	oid     string // git blob id (of the pointer file, for LFS)
	sha256  string
	pointer int // the LFS pointer file's size
}

// Request is one request either server received.
type Request struct {
	Server        string // "hub" or "cdn"
	Method, Path  string
	Range         string
	Authorization string
	// File is the repository path a resolve or CDN request was for, and
	// Served says its bytes were sent (a download, as opposed to a
	// redirect or a refusal).
	File   string
	Served bool
}

// Fault changes how the next Times downloads (GETs that send bytes) of
// a file path are served.
type Fault struct {
	Times int
	// CutAfter ends the response after this many body bytes by dropping
	// the connection, as a network failure would.
	CutAfter int64
	// Corrupt flips a byte in the middle of the file.
	Corrupt bool
	// IgnoreRange answers 200 with the whole file even to a Range request.
	IgnoreRange bool
	// Hold delays the response until the channel is closed.
	Hold <-chan struct{}
	// Status answers with this status and no file (an expired signature,
	// a server error), with RetryAfter as its Retry-After header when set.
	Status     int
	RetryAfter string
}

// Option configures a repository when it is added.
type Option func(*addOptions)

type addOptions struct {
	refs    []string
	gated   bool
	granted []string
}

// Refs names the branches or tags the new commit is at (default main).
func Refs(names ...string) Option { return func(o *addOptions) { o.refs = names } }

// Gated makes the repository gated; tokens lists the tokens whose
// accounts have accepted its conditions.
func Gated(tokens ...string) Option {
	return func(o *addOptions) { o.gated, o.granted = true, tokens }
}

// LFS says which files are stored with LFS, as the Hub's default
// .gitattributes has it: paths containing ".onnx" (ONNX files and their
// external data) and weight files (.safetensors, .bin, .pt, .pth, .gguf).
func LFS(path string) bool {
	return strings.Contains(path, ".onnx") || slices.Contains([]string{".safetensors", ".bin", ".pt", ".pth", ".gguf"}, filepath.Ext(path))
}

// New starts the hub and its CDN; both stop when the test ends.
func New(t testing.TB) *Hub {
	h := &Hub{repos: map[string]*repo{}, lfs: map[string][]byte{}, tokens: map[string]bool{}, faults: map[string][]Fault{}}
	cdn := httptest.NewServer(http.HandlerFunc(h.serveCDN))
	hub := httptest.NewServer(http.HandlerFunc(h.serveHub))
	t.Cleanup(hub.Close)
	t.Cleanup(cdn.Close)
	h.URL, h.CDNURL = hub.URL, cdn.URL
	return h
}

// Closed is an http URL on this machine at which nothing listens, so a
// connection to it is refused at once: an endpoint that cannot be
// reached, without the network.
func Closed(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return "http://" + addr
}

// Add commits files (path → content) to repository id and points the
// refs at the new commit, which it returns.
func (h *Hub) Add(id string, files map[string][]byte, opts ...Option) string {
	o := addOptions{refs: []string{"main"}}
	for _, opt := range opts {
		opt(&o)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	r := h.repos[id]
	if r == nil {
		r = &repo{id: id, refs: map[string]string{}, commits: map[string]*commit{}, granted: map[string]bool{}}
		h.repos[id] = r
	}
	if o.gated {
		r.gated = true
		for _, tok := range o.granted {
			r.granted[tok] = true
			h.tokens[tok] = true
		}
	}
	c := &commit{}
	id1 := sha1.New()
	h.seq++
	fmt.Fprintf(id1, "%s\x00%d\x00", id, h.seq)
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		data := files[p]
		f := file{path: p, data: data}
		sum := sha256.Sum256(data)
		f.sha256 = hex.EncodeToString(sum[:])
		if LFS(p) {
			f.lfs = true
			ptr := fmt.Sprintf("version https://git-lfs.github.com/spec/v1\noid sha256:%s\nsize %d\n", f.sha256, len(data))
			f.oid, f.pointer = GitBlobID([]byte(ptr)), len(ptr)
			h.lfs[f.sha256] = data
		} else {
			f.oid = GitBlobID(data)
		}
		fmt.Fprintf(id1, "%s\x00%s\n", p, f.oid)
		c.files = append(c.files, f)
	}
	c.sha = hex.EncodeToString(id1.Sum(nil))
	r.commits[c.sha] = c
	for _, ref := range o.refs {
		r.refs[ref] = c.sha
	}
	return c.sha
}

// ReadFolder reads every file under dir, keyed by slash-separated path
// relative to dir: a fixture model folder, ready for Add.
func ReadFolder(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = data
		return err
	})
	if err != nil {
		t.Fatalf("fakehub: reading fixture folder: %v", err)
	}
	return files
}

// Token registers a valid token with access to no gated repository.
func (h *Hub) Token(tok string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.tokens[tok] = true
}

// Fault queues a fault for downloads of path (in any repository).
func (h *Hub) Fault(path string, f Fault) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if f.Times == 0 {
		f.Times = 1
	}
	h.faults[path] = append(h.faults[path], f)
}

// Busy makes the next f.Times requests to the Hub itself (the API and
// resolve URLs, not the CDN) answer f.Status with f.RetryAfter, as a Hub
// that rate-limits (429) or fails (5xx) does.
func (h *Hub) Busy(f Fault) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for range max(f.Times, 1) {
		h.busy = append(h.busy, f)
	}
}

// takeBusy pops the next Busy answer, if any.
func (h *Hub) takeBusy() (Fault, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.busy) == 0 {
		return Fault{}, false
	}
	f := h.busy[0]
	h.busy = h.busy[1:]
	return f, true
}

// Requests returns every request received so far.
func (h *Hub) Requests() []Request {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.reqs)
}

// Downloads counts, per file path, the requests that sent its bytes.
func (h *Hub) Downloads() map[string]int {
	out := map[string]int{}
	for _, r := range h.Requests() {
		if r.Served {
			out[r.File]++
		}
	}
	return out
}

// GitBlobID is git's object id of a blob: sha1("blob <size>\x00" + data),
// the ETag the Hub gives files stored without LFS.
func GitBlobID(data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

func (h *Hub) record(r *http.Request, server string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.reqs = append(h.reqs, Request{Server: server, Method: r.Method, Path: r.URL.RequestURI(),
		Range: r.Header.Get("Range"), Authorization: r.Header.Get("Authorization")})
	return len(h.reqs) - 1
}

func (h *Hub) note(i int, file string, served bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.reqs[i].File, h.reqs[i].Served = file, served
}

// takeFault pops the next fault for path, if any.
func (h *Hub) takeFault(path string) (Fault, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	q := h.faults[path]
	if len(q) == 0 {
		return Fault{}, false
	}
	f := q[0]
	if q[0].Times--; q[0].Times <= 0 {
		h.faults[path] = q[1:]
	}
	return f, true
}
