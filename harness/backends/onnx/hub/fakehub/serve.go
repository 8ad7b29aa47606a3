package fakehub

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

func hubError(w http.ResponseWriter, status int, code, msg string) {
	if code != "" {
		w.Header().Set("X-Error-Code", code)
	}
	w.Header().Set("X-Error-Message", msg)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

// failWith answers f's status and Retry-After.
func failWith(w http.ResponseWriter, f Fault) {
	if f.RetryAfter != "" {
		w.Header().Set("Retry-After", f.RetryAfter)
	}
	http.Error(w, http.StatusText(f.Status), f.Status)
}

// serveHub routes /api/models/ORG/NAME/{revision,tree}/REV and
// /ORG/NAME/resolve/REV/PATH.
func (h *Hub) serveHub(w http.ResponseWriter, r *http.Request) {
	i := h.record(r, "hub")
	if f, ok := h.takeBusy(); ok {
		failWith(w, f)
		return
	}
	parts := strings.Split(strings.TrimPrefix(r.URL.EscapedPath(), "/"), "/")
	api := len(parts) > 0 && parts[0] == "api"
	if api {
		if len(parts) < 6 || parts[1] != "models" {
			hubError(w, http.StatusNotFound, "", "Not Found")
			return
		}
		parts = parts[2:]
	}
	if len(parts) < 4 {
		hubError(w, http.StatusNotFound, "", "Not Found")
		return
	}
	id := parts[0] + "/" + parts[1]
	kind := parts[2]
	rev, err := url.PathUnescape(parts[3])
	if err != nil {
		hubError(w, http.StatusBadRequest, "", "bad revision")
		return
	}
	rest := make([]string, 0, len(parts)-4)
	for _, p := range parts[4:] {
		u, _ := url.PathUnescape(p)
		rest = append(rest, u)
	}
	token, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")

	h.mu.Lock()
	rp := h.repos[id]
	validToken := h.tokens[token]
	var c *commit
	if rp != nil {
		sha := rev
		if s, ok := rp.refs[rev]; ok {
			sha = s
		}
		c = rp.commits[sha]
	}
	h.mu.Unlock()

	switch {
	case token != "" && !validToken:
		hubError(w, http.StatusUnauthorized, "", "Invalid credentials in Authorization header")
		return
	case rp == nil:
		status := http.StatusNotFound
		if token == "" {
			status = http.StatusUnauthorized // the Hub hides private repositories from anonymous callers
		}
		hubError(w, status, "RepoNotFound", "Repository Not Found for url: "+h.URL+r.URL.Path+".")
		return
	case c == nil:
		hubError(w, http.StatusNotFound, "RevisionNotFound", "Invalid rev id: "+rev)
		return
	}
	switch {
	case api && kind == "revision" && len(rest) == 0:
		h.serveInfo(w, rp, c)
	case api && kind == "tree":
		h.serveTree(w, r, rp, c, rev, strings.Join(rest, "/"))
	case !api && kind == "resolve" && len(rest) > 0:
		h.serveResolve(w, r, i, rp, c, strings.Join(rest, "/"), token)
	default:
		hubError(w, http.StatusNotFound, "", "Not Found")
	}
}

func (h *Hub) serveInfo(w http.ResponseWriter, rp *repo, c *commit) {
	siblings := make([]map[string]string, len(c.files))
	for i, f := range c.files {
		siblings[i] = map[string]string{"rfilename": f.path}
	}
	var gated any = false
	if rp.gated {
		gated = "manual"
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"_id": "fake", "id": rp.id, "modelId": rp.id, "sha": c.sha, "private": false, "gated": gated,
		"disabled": false, "lastModified": "2025-01-01T00:00:00.000Z", "siblings": siblings,
	})
}

type lfsInfo struct {
	OID         string `json:"oid"`
	Size        int    `json:"size"`
	PointerSize int    `json:"pointerSize"`
}

type treeEntry struct {
	Type string   `json:"type"`
	OID  string   `json:"oid"`
	Size int      `json:"size"`
	Path string   `json:"path"`
	LFS  *lfsInfo `json:"lfs,omitempty"`
}

// serveTree lists files and folders under prefix (recursively with
// recursive=true), a page at a time with a Link to the next.
func (h *Hub) serveTree(w http.ResponseWriter, r *http.Request, rp *repo, c *commit, rev, prefix string) {
	recursive := r.URL.Query().Get("recursive")
	deep := recursive == "true" || recursive == "True" || recursive == "1"
	var entries []treeEntry
	dirs := map[string]bool{}
	for _, f := range c.files {
		rel := f.path
		if prefix != "" {
			var ok bool
			if rel, ok = strings.CutPrefix(f.path, prefix+"/"); !ok {
				continue
			}
		}
		segs := strings.Split(rel, "/")
		for k := 1; k < len(segs); k++ {
			d := strings.Join(segs[:k], "/")
			if !dirs[d] && (deep || k == 1) {
				dirs[d] = true
				full := d
				if prefix != "" {
					full = prefix + "/" + d
				}
				entries = append(entries, treeEntry{Type: "directory", OID: GitBlobID([]byte(full)), Path: full})
			}
		}
		if len(segs) > 1 && !deep {
			continue
		}
		e := treeEntry{Type: "file", OID: f.oid, Size: len(f.data), Path: f.path}
		if f.lfs {
			e.LFS = &lfsInfo{OID: f.sha256, Size: len(f.data), PointerSize: f.pointer}
		}
		entries = append(entries, e)
	}
	size := h.PageSize
	if size <= 0 {
		size = 1000
	}
	start, _ := strconv.Atoi(r.URL.Query().Get("cursor"))
	start = min(max(start, 0), len(entries))
	end := min(start+size, len(entries))
	if end < len(entries) {
		q := r.URL.Query()
		q.Set("cursor", strconv.Itoa(end))
		w.Header().Set("Link", fmt.Sprintf(`<%s%s?%s>; rel="next"`, h.URL, r.URL.EscapedPath(), q.Encode()))
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(entries[start:end])
}

// serveResolve sends a small file itself and redirects an LFS file to
// the CDN, with the headers huggingface_hub reads.
func (h *Hub) serveResolve(w http.ResponseWriter, r *http.Request, i int, rp *repo, c *commit, path, token string) {
	idx := slices.IndexFunc(c.files, func(f file) bool { return f.path == path })
	h.note(i, path, false)
	if idx < 0 {
		hubError(w, http.StatusNotFound, "EntryNotFound", fmt.Sprintf("%s does not exist on %q", path, "main"))
		return
	}
	if rp.gated {
		switch {
		case token == "":
			hubError(w, http.StatusUnauthorized, "GatedRepo", fmt.Sprintf("Access to model %s is restricted. You must have access to it and be authenticated to access it. Please log in.", rp.id))
			return
		case !h.granted(rp, token):
			hubError(w, http.StatusForbidden, "GatedRepo", fmt.Sprintf("Access to model %s is restricted and you are not in the authorized list. Visit %s/%s to ask for access.", rp.id, h.URL, rp.id))
			return
		}
	}
	f := c.files[idx]
	w.Header().Set("X-Repo-Commit", c.sha)
	if f.lfs {
		w.Header().Set("ETag", `"`+f.oid+`"`)
		w.Header().Set("X-Linked-Etag", `"`+f.sha256+`"`)
		w.Header().Set("X-Linked-Size", strconv.Itoa(len(f.data)))
		q := url.Values{"filename": {path}, "Expires": {"9999999999"}, "Signature": {"fake"}}
		w.Header().Set("Location", fmt.Sprintf("%s/repos/%s?%s", h.CDNURL, f.sha256, q.Encode()))
		w.WriteHeader(http.StatusFound)
		return
	}
	w.Header().Set("ETag", `"`+f.oid+`"`)
	h.serveBytes(w, r, i, path, f.data)
}

func (h *Hub) granted(rp *repo, token string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return rp.granted[token]
}

// serveCDN serves LFS contents by sha256, refusing Authorization as
// signed-URL stores do.
func (h *Hub) serveCDN(w http.ResponseWriter, r *http.Request) {
	i := h.record(r, "cdn")
	path := r.URL.Query().Get("filename")
	h.note(i, path, false)
	if r.Header.Get("Authorization") != "" {
		http.Error(w, "Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter, Signature query string parameter or the Authorization header should be specified", http.StatusBadRequest)
		return
	}
	sha, ok := strings.CutPrefix(r.URL.Path, "/repos/")
	h.mu.Lock()
	data, found := h.lfs[sha]
	h.mu.Unlock()
	if !ok || !found {
		http.Error(w, "NoSuchKey", http.StatusNotFound)
		return
	}
	w.Header().Set("ETag", `"`+sha+`"`)
	h.serveBytes(w, r, i, path, data)
}

// serveBytes sends data with Range support, applying any queued fault.
func (h *Hub) serveBytes(w http.ResponseWriter, r *http.Request, i int, path string, data []byte) {
	w.Header().Set("Accept-Ranges", "bytes")
	if r.Method == http.MethodHead {
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(data))
		return
	}
	h.note(i, path, true)
	f, _ := h.takeFault(path)
	if f.Hold != nil {
		<-f.Hold
	}
	if f.Status != 0 {
		failWith(w, f)
		return
	}
	if f.Corrupt {
		data = slices.Clone(data)
		data[len(data)/2] ^= 0xff
	}
	if f.IgnoreRange {
		r.Header.Del("Range")
	}
	if f.CutAfter > 0 {
		w = &cutWriter{ResponseWriter: w, left: f.CutAfter}
	}
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(data))
}

// cutWriter drops the connection after left body bytes.
type cutWriter struct {
	http.ResponseWriter
	left int64
}

func (c *cutWriter) Write(b []byte) (int, error) {
	if int64(len(b)) >= c.left {
		c.ResponseWriter.Write(b[:c.left])
		c.left = 0
		if f, ok := c.ResponseWriter.(http.Flusher); ok {
			f.Flush()
		}
		panic(http.ErrAbortHandler) // ends the connection mid-body
	}
	c.left -= int64(len(b))
	return c.ResponseWriter.Write(b)
}
