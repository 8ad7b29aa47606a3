package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/feather-eval/feather/harness/backends/onnx/layout"
	"github.com/feather-eval/feather/harness/backends/onnx/onnxpb"
	"github.com/feather-eval/feather/harness/backends/safetensors"
)

// Options choose what Pull fetches and whether it writes.
type Options struct {
	// Variant picks the ONNX file as a catalog entry's "variant" does.
	Variant string
	// File, when set, is a glob picking one .gguf file, the only file
	// fetched (for the llamacpp backend); Variant must then be empty.
	File string
	// DryRun plans without writing anything.
	DryRun bool
	// Verify rehashes cached blobs and fetches again those that differ
	// from their ETag (cached files are otherwise checked by size).
	Verify bool
}

// Result is what a pull found or fetched.
type Result struct {
	Ref    Ref
	Commit string
	// Snapshot is the folder a catalog entry's "path" can name.
	Snapshot string
	Files    []FileStatus
}

// FileStatus is one selected file and whether the cache already had it.
type FileStatus struct {
	File
	Cached bool
}

// Pull fetches what the onnx backend needs of ref into the cache and
// returns the snapshot folder. With Env.Offline it only reads the cache.
func (c *Client) Pull(ctx context.Context, ref Ref, opt Options) (*Result, error) {
	if err := checkOptions(opt); err != nil {
		return nil, err
	}
	if c.Env.Offline {
		return c.pullOffline(ref, opt)
	}
	rc := newRepoCache(c.Env.CacheDir, ref.Repo)
	failed := func(err error) error {
		if f, ok := unreachable(err); ok {
			return c.unreachableHub(f, ref, opt)
		}
		return c.explain(err, ref, "")
	}
	commit := ref.Revision
	if !isCommit(commit) {
		var err error
		if commit, err = c.commit(ctx, ref); err != nil {
			return nil, failed(err)
		}
	}
	all, err := c.tree(ctx, ref.Repo, commit)
	if err != nil {
		return nil, failed(err)
	}
	files, err := selectFor(all, opt)
	if err != nil {
		return nil, fmt.Errorf("%s (commit %s): %w", ref, commit, err)
	}
	res := &Result{Ref: ref, Commit: commit, Snapshot: rc.snapshot(commit)}
	var todo []File
	for _, f := range files {
		cached := rc.hasBlob(f)
		if cached && opt.Verify {
			if err := verify(rc.blob(f.ETag), f); err != nil {
				again := "downloading it again"
				if opt.DryRun {
					again = "a pull would download it again"
				}
				c.progress().Note(fmt.Sprintf("cached %s: %v; %s", f.Path, err, again))
				cached = false
				if !opt.DryRun {
					if err := os.Remove(rc.blob(f.ETag)); err != nil {
						return nil, err
					}
				}
			}
		}
		todo = res.add(todo, f, cached)
	}
	if opt.DryRun {
		return res, nil
	}
	if err := c.fetchAll(ctx, rc, ref, commit, todo); err != nil {
		return nil, err
	}
	// selectFiles guessed the ONNX file's external data, or a checkpoint's
	// shards, by name; now that the file or the index is here, fetch what
	// it names beyond the guess.
	more, err := referenced(rc, all, files)
	if err != nil {
		return nil, fmt.Errorf("%s (commit %s): %w", ref, commit, err)
	}
	todo = nil
	for _, f := range more {
		todo = res.add(todo, f, rc.hasBlob(f))
	}
	files = append(files, more...)
	if err := c.fetchAll(ctx, rc, ref, commit, todo); err != nil {
		return nil, err
	}
	// Link after fetching, so a snapshot never points at a missing blob.
	for _, f := range files {
		if rc.linked(commit, f.Path, f.ETag, f.Size) {
			continue
		}
		if err := rc.link(commit, f.Path, f.ETag); err != nil {
			return nil, fmt.Errorf("linking %s into %s: %w", f.Path, rc.snapshot(commit), err)
		}
	}
	if err := rc.writeRef(ref.Revision, commit); err != nil {
		return nil, fmt.Errorf("recording %s in %s: %w", ref, rc.ref(ref.Revision), err)
	}
	return res, nil
}

// add records f in the result and returns todo with f added unless it
// is cached or its blob is already in todo: files with the same contents
// share one blob, fetched once.
func (res *Result) add(todo []File, f File, cached bool) []File {
	res.Files = append(res.Files, FileStatus{File: f, Cached: cached})
	if !cached && !slices.ContainsFunc(todo, func(t File) bool { return t.ETag == f.ETag }) {
		todo = append(todo, f)
	}
	return todo
}

// fetchAll downloads todo as one round of progress.
func (c *Client) fetchAll(ctx context.Context, rc repoCache, ref Ref, commit string, todo []File) error {
	if len(todo) == 0 {
		return nil
	}
	var bytes int64
	for _, f := range todo {
		bytes += f.Size
	}
	c.progress().Start(len(todo), bytes)
	for _, f := range todo {
		if err := c.fetch(ctx, rc, ref, commit, f); err != nil {
			return err
		}
	}
	c.progress().Done()
	return nil
}

// referencedData returns the files of all that the ONNX file of sel, read
// from its cached blob, keeps weights in and sel lacks, or an error naming
// one that all lacks. An ONNX file that is not cached, or that onnxpb
// cannot read, adds nothing: the backend reports it when it opens the
// snapshot.
func referencedData(rc repoCache, all, sel []File) ([]File, error) {
	var model File
	for _, f := range sel {
		if _, ok := layout.Variant(f.Path); ok {
			model = f
			break
		}
	}
	if model.Path == "" || !rc.hasBlob(model) {
		return nil, nil
	}
	locs, err := onnxpb.ExternalFiles(rc.blob(model.ETag))
	if err != nil {
		return nil, nil
	}
	have := map[string]bool{}
	for _, f := range sel {
		have[f.Path] = true
	}
	byPath := map[string]File{}
	for _, f := range all {
		byPath[f.Path] = f
	}
	var out []File
	for _, loc := range locs {
		p := path.Join(path.Dir(model.Path), filepath.ToSlash(loc))
		if have[p] {
			continue
		}
		f, ok := byPath[p]
		if !ok {
			return nil, fmt.Errorf("%s keeps its weights in %s, which the repository does not have", model.Path, p)
		}
		have[p] = true
		out = append(out, f)
	}
	return out, nil
}

// referenced is what the cached files of sel name and sel lacks: an
// ONNX file's external data, a checkpoint index's shards.
func referenced(rc repoCache, all, sel []File) ([]File, error) {
	data, err := referencedData(rc, all, sel)
	if err != nil {
		return nil, err
	}
	shards, err := referencedShards(rc, all, sel)
	return append(data, shards...), err
}

// referencedShards returns the shards that the checkpoint index of sel,
// read from its cached blob, names and sel lacks, or an error naming one
// that all lacks. An index that is not cached or does not parse adds
// nothing: the backend reports it when it opens the snapshot.
func referencedShards(rc repoCache, all, sel []File) ([]File, error) {
	var index File
	have := map[string]bool{}
	for _, f := range sel {
		have[f.Path] = true
		if f.Path == safetensors.IndexFile {
			index = f
		}
	}
	if index.Path == "" || !rc.hasBlob(index) {
		return nil, nil
	}
	data, err := os.ReadFile(rc.blob(index.ETag))
	if err != nil {
		return nil, nil
	}
	var idx struct {
		WeightMap map[string]string `json:"weight_map"`
	}
	if json.Unmarshal(data, &idx) != nil {
		return nil, nil
	}
	byPath := map[string]File{}
	for _, f := range all {
		byPath[f.Path] = f
	}
	var shards []string
	for _, shard := range idx.WeightMap {
		if !have[shard] && !slices.Contains(shards, shard) {
			shards = append(shards, shard)
		}
	}
	slices.Sort(shards)
	var out []File
	for _, shard := range shards {
		f, ok := byPath[shard]
		if !ok || strings.Contains(shard, "/") {
			return nil, fmt.Errorf("%s names the shard %s, which the repository does not have", safetensors.IndexFile, shard)
		}
		out = append(out, f)
	}
	return out, nil
}

// pullOffline finds ref in the cache alone and names what is missing.
func (c *Client) pullOffline(ref Ref, opt Options) (*Result, error) {
	res, err := c.cached(ref, opt)
	var miss *cacheMiss
	if errors.As(err, &miss) {
		return nil, fmt.Errorf("HF_HUB_OFFLINE is set and %s; unset HF_HUB_OFFLINE to %s", miss.what, miss.fix())
	}
	return res, err
}

// cacheMiss says what the cache lacks of a ref, for a message that goes
// on to say how to get it.
type cacheMiss struct {
	what string
	// lost: the snapshot names the files but their blobs are gone.
	lost bool
	// elsewhere: no trace of the ref, so another cache may hold it.
	elsewhere bool
}

func (m *cacheMiss) Error() string { return m.what }

// fix completes "unset HF_HUB_OFFLINE to …".
func (m *cacheMiss) fix() string {
	switch {
	case m.lost:
		return "download them again"
	case m.elsewhere:
		return "download it, or set HF_HUB_CACHE to the cache that has it"
	}
	return "download it"
}

// cached finds in the cache alone what the onnx backend needs of ref, or
// returns a *cacheMiss naming what is missing. It sends no request.
func (c *Client) cached(ref Ref, opt Options) (*Result, error) {
	if err := checkOptions(opt); err != nil {
		return nil, err
	}
	rc := newRepoCache(c.Env.CacheDir, ref.Repo)
	commit := ref.Revision
	if !isCommit(commit) {
		var err error
		if commit, err = rc.readRef(ref.Revision); err != nil {
			return nil, err
		}
		if commit == "" {
			return nil, &cacheMiss{what: fmt.Sprintf("the cache has no %s (%s is missing)", ref, rc.ref(ref.Revision)), elsewhere: true}
		}
	}
	snap := rc.snapshot(commit)
	files, dangling, err := listSnapshot(snap)
	if err != nil {
		return nil, err
	}
	if files == nil && dangling == nil {
		return nil, &cacheMiss{what: fmt.Sprintf("the cache has no snapshot of %s (%s is missing)", ref, snap)}
	}
	// selectFiles as if the lost blobs were there, so that a lost file the
	// backend needs is named as lost rather than as absent.
	all := files
	for _, p := range dangling {
		all = append(all, File{Path: p})
	}
	lacks := func(err error) error {
		return &cacheMiss{what: fmt.Sprintf("the cached snapshot of %s (%s) lacks what the %s backend needs: %v", ref, snap, backendFor(opt), err)}
	}
	sel, err := selectFor(all, opt)
	if err != nil {
		return nil, lacks(err)
	}
	more, err := referenced(rc, all, sel)
	if err != nil {
		return nil, lacks(err)
	}
	sel = append(sel, more...)
	var lost []string
	for _, f := range sel {
		if slices.Contains(dangling, f.Path) {
			lost = append(lost, f.Path)
		}
	}
	if len(lost) > 0 {
		return nil, &cacheMiss{what: fmt.Sprintf("in the cached snapshot of %s (%s) these files link to blobs that are gone: %s", ref, snap, strings.Join(lost, ", ")), lost: true}
	}
	res := &Result{Ref: ref, Commit: commit, Snapshot: snap}
	for _, f := range sel {
		res.Files = append(res.Files, FileStatus{File: f, Cached: true})
	}
	return res, nil
}

// listSnapshot lists a snapshot's files as selectFiles reads them (ETag from
// the blob a link points at), and the links whose blob is gone.
func listSnapshot(snap string) (files []File, dangling []string, err error) {
	err = filepath.WalkDir(snap, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == snap {
			return fs.SkipAll
		}
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(snap, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		st, err := os.Stat(p)
		if err != nil {
			dangling = append(dangling, rel)
			return nil
		}
		etag := ""
		if target, err := os.Readlink(p); err == nil {
			etag = filepath.Base(target)
		}
		files = append(files, File{Path: rel, Size: st.Size(), ETag: etag})
		return nil
	})
	return files, dangling, err
}

// progress is c.Progress, or one that discards everything.
func (c *Client) progress() Progress {
	if c.Progress == nil {
		return silent{}
	}
	return c.Progress
}

type silent struct{}

func (silent) Start(int, int64)          {}
func (silent) File(string, int64, int64) {}
func (silent) Add(int64)                 {}
func (silent) Note(string)               {}
func (silent) Done()                     {}
