package hub

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/onnx/hub/fakehub"
)

// wantCache is the cache huggingface_hub leaves after downloading files
// of repo at commit under rev: blobs named by ETag, relative links (one
// more ../ per folder), refs/<rev>, and a lock file per blob.
func wantCache(repo, rev, commit string, files map[string][]byte, selected []string) []string {
	folder := repoFolder(repo)
	out := []string{folder + "/refs/" + rev + " (40 bytes)"}
	for _, p := range selected {
		etag := etagOf(p, files[p])
		up := "../../"
		if filepath.Dir(p) != "." {
			up = "../../../"
		}
		out = append(out,
			folder+"/blobs/"+etag+" ("+strconv.Itoa(len(files[p]))+" bytes)",
			folder+"/snapshots/"+commit+"/"+p+" -> "+up+"blobs/"+etag,
			".locks/"+folder+"/"+etag+".lock (0 bytes)")
	}
	slices.Sort(out)
	return out
}

func TestPullWritesHubCacheLayout(t *testing.T) {
	h, files, commit := tinyHub(t)
	c, _ := newClient(t, h)

	res, err := pull(t, c, tinyRepo, Options{})
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(c.Env.CacheDir, "models--org--tiny", "snapshots", commit), res.Snapshot)
	assert.Equal(t, commit, res.Commit)
	assert.Equal(t, tinyWant, paths(res))
	assert.Equal(t, wantCache(tinyRepo, "main", commit, files, tinyWant), tree(t, c.Env.CacheDir))

	ref, err := os.ReadFile(filepath.Join(c.Env.CacheDir, "models--org--tiny", "refs", "main"))
	require.NoError(t, err)
	assert.Equal(t, commit, string(ref))
	for _, p := range tinyWant {
		got, err := os.ReadFile(filepath.Join(res.Snapshot, filepath.FromSlash(p)))
		require.NoError(t, err)
		assert.Equal(t, files[p], got, p)
	}
	assert.Equal(t, onceEach(tinyWant), h.Downloads(), "each selected file once, nothing else")
}

func TestSecondPullDownloadsNothing(t *testing.T) {
	h, _, commit := tinyHub(t)
	c, rec := newClient(t, h)
	_, err := pull(t, c, tinyRepo, Options{})
	require.NoError(t, err)
	before := len(h.Requests())
	rec.files = nil

	res, err := pull(t, c, tinyRepo, Options{})
	require.NoError(t, err)
	assert.Equal(t, []string{
		"GET /api/models/org/tiny/revision/main",
		"GET /api/models/org/tiny/tree/" + commit + "?recursive=true",
	}, requestsSince(h, before), "only the revision and the listing: no file is fetched again")
	assert.Empty(t, rec.files)
	for _, f := range res.Files {
		assert.True(t, f.Cached, f.Path)
	}

	// A commit as the revision needs no lookup.
	before = len(h.Requests())
	_, err = pull(t, c, tinyRepo+"@"+commit, Options{})
	require.NoError(t, err)
	assert.Equal(t, []string{"GET /api/models/org/tiny/tree/" + commit + "?recursive=true"}, requestsSince(h, before))
}

func TestNewCommitReusesUnchangedBlobs(t *testing.T) {
	h, files, first := tinyHub(t)
	c, _ := newClient(t, h)
	_, err := pull(t, c, tinyRepo, Options{})
	require.NoError(t, err)

	files["config.json"] = []byte(`{"model_type": "llama", "max_position_embeddings": 4096}`)
	second := h.Add(tinyRepo, files)
	res, err := pull(t, c, tinyRepo, Options{})
	require.NoError(t, err)
	assert.Equal(t, second, res.Commit)
	downloads := h.Downloads()
	assert.Equal(t, 2, downloads["config.json"], "the changed file is fetched")
	assert.Equal(t, 1, downloads["onnx/model.onnx_data"], "an unchanged blob is shared by both snapshots")
	for _, f := range res.Files {
		assert.Equal(t, f.Path != "config.json", f.Cached, f.Path)
	}
	cache := tree(t, c.Env.CacheDir)
	assert.Contains(t, cache, "models--org--tiny/snapshots/"+first+"/config.json -> ../../blobs/"+fakehub.GitBlobID(tinyFiles(t)["config.json"]))
	assert.Contains(t, cache, "models--org--tiny/snapshots/"+second+"/config.json -> ../../blobs/"+fakehub.GitBlobID(files["config.json"]))
	ref, err := os.ReadFile(filepath.Join(c.Env.CacheDir, "models--org--tiny", "refs", "main"))
	require.NoError(t, err)
	assert.Equal(t, second, string(ref), "refs/main moves to the new commit")
}

// TestPullUsesCacheWrittenByPython lays files out as huggingface_hub's
// hf_hub_download does (here for all but one selected file) and checks
// that pull uses them as they are and fetches only the missing one.
func TestPullUsesCacheWrittenByPython(t *testing.T) {
	h, files, commit := tinyHub(t)
	c, _ := newClient(t, h)
	repoDir := filepath.Join(c.Env.CacheDir, "models--org--tiny")
	for _, p := range tinyWant {
		if p == "tokenizer_config.json" {
			continue
		}
		etag := etagOf(p, files[p])
		blob := filepath.Join(repoDir, "blobs", etag)
		require.NoError(t, os.MkdirAll(filepath.Dir(blob), 0o755))
		require.NoError(t, os.WriteFile(blob, files[p], 0o644))
		link := filepath.Join(repoDir, "snapshots", commit, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(link), 0o755))
		target, err := filepath.Rel(filepath.Dir(link), blob) // os.path.relpath, as huggingface_hub links
		require.NoError(t, err)
		require.NoError(t, os.Symlink(target, link))
	}
	require.NoError(t, os.MkdirAll(filepath.Join(repoDir, "refs"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(repoDir, "refs", "main"), []byte(commit), 0o644))

	res, err := pull(t, c, tinyRepo, Options{})
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(repoDir, "snapshots", commit), res.Snapshot)
	assert.Equal(t, map[string]int{"tokenizer_config.json": 1}, h.Downloads())
	// pull locks only the blob it fetched; the rest is as Python left it.
	fetchedLock := ".locks/models--org--tiny/" + etagOf("tokenizer_config.json", files["tokenizer_config.json"]) + ".lock (0 bytes)"
	var want []string
	for _, w := range wantCache(tinyRepo, "main", commit, files, tinyWant) {
		if !strings.HasPrefix(w, ".locks/") || w == fetchedLock {
			want = append(want, w)
		}
	}
	assert.Equal(t, want, tree(t, c.Env.CacheDir))
}

func TestDryRunListsAndWritesNothing(t *testing.T) {
	h, files, commit := tinyHub(t, fakehub.Refs("main", "v1"))
	c, _ := newClient(t, h)

	res, err := pull(t, c, tinyRepo+"@v1", Options{DryRun: true, Variant: "q4"})
	require.NoError(t, err)
	assert.Equal(t, commit, res.Commit)
	var got []FileStatus
	for _, p := range []string{"chat_template.jinja", "config.json", "generation_config.json", "onnx/model_q4.onnx", "onnx/model_q4.onnx_data", "special_tokens_map.json", "tokenizer.json", "tokenizer_config.json"} {
		got = append(got, FileStatus{File: File{Path: p, Size: int64(len(files[p])), ETag: etagOf(p, files[p])}})
	}
	assert.Equal(t, got, res.Files)
	assert.Empty(t, tree(t, c.Env.CacheDir), "a dry run writes nothing")
	assert.Empty(t, h.Downloads())

	_, err = pull(t, c, tinyRepo+"@v1", Options{Variant: "q4"})
	require.NoError(t, err)
	res, err = pull(t, c, tinyRepo+"@v1", Options{DryRun: true, Variant: "q4"})
	require.NoError(t, err)
	for _, f := range res.Files {
		assert.True(t, f.Cached, f.Path)
	}
}

func TestTreeListingPages(t *testing.T) {
	h := fakehub.New(t)
	h.PageSize = 2
	h.Add(tinyRepo, tinyFiles(t))
	c, _ := newClient(t, h)
	res, err := pull(t, c, tinyRepo, Options{DryRun: true})
	require.NoError(t, err)
	assert.Equal(t, tinyWant, paths(res))
	pages := 0
	for _, r := range h.Requests() {
		if strings.Contains(r.Path, "/tree/") {
			pages++
		}
	}
	assert.Equal(t, 8, pages, "16 entries (15 files and the onnx folder), 2 a page, through the Link headers")
}

func TestRedirectDropsAuthorization(t *testing.T) {
	h, _, _ := tinyHub(t, fakehub.Gated("hf_granted"))
	c, _ := newClient(t, h)
	c.Env.Token, c.Env.TokenSource = "hf_granted", "HF_TOKEN"
	_, err := pull(t, c, tinyRepo, Options{})
	require.NoError(t, err)
	var cdn, hub int
	for _, r := range h.Requests() {
		switch r.Server {
		case "cdn":
			cdn++
			assert.Empty(t, r.Authorization, "the token never reaches another host: %s", r.Path)
		case "hub":
			hub++
			assert.Equal(t, "Bearer hf_granted", r.Authorization, r.Path)
		}
	}
	assert.Equal(t, 2, cdn, "the two LFS files come from the CDN")
	assert.Equal(t, 2+2+6, hub, "revision, listing, 2 redirects and 6 small files")
}

func TestPullRequestRevision(t *testing.T) {
	h, _, commit := tinyHub(t, fakehub.Refs("refs/pr/1"))
	c, _ := newClient(t, h)
	res, err := pull(t, c, tinyRepo+"@refs/pr/1", Options{})
	require.NoError(t, err)
	assert.Equal(t, commit, res.Commit)
	assert.Equal(t, "GET /api/models/org/tiny/revision/refs%2Fpr%2F1", h.Requests()[0].Method+" "+h.Requests()[0].Path, "the revision is one path segment")
	ref, err := os.ReadFile(filepath.Join(c.Env.CacheDir, "models--org--tiny", "refs", "refs", "pr", "1"))
	require.NoError(t, err, "huggingface_hub keeps refs/<revision> as a path")
	assert.Equal(t, commit, string(ref))

	c.Env.Offline = true
	res, err = pull(t, c, tinyRepo+"@refs/pr/1", Options{})
	require.NoError(t, err)
	assert.Equal(t, commit, res.Commit)
}
