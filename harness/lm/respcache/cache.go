package respcache

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/internal/atomicfile"
	"github.com/feather-eval/feather/internal/cachedir"
)

// ErrCorrupt marks an entry file that exists but cannot be used: not JSON,
// cut short, another schema, or holding a different key than its name. It
// counts as a miss; the next store for the key replaces it.
var ErrCorrupt = errors.New("corrupt response cache entry")

// ErrNotCacheable marks a result Put refuses: a failed request.
var ErrNotCacheable = errors.New("result not cacheable")

// DefaultDir is the responses folder under feather's cache
// (FEATHER_CACHE, see internal/cachedir).
func DefaultDir() string { return cachedir.Path("responses") }

// Cache is a response cache rooted at a folder. Its methods are safe for
// concurrent use; several processes may share a folder, since every write
// replaces a whole file. Two identical requests in flight at once both
// reach the backend and the later store wins, whole.
type Cache struct {
	dir string
	// Report, when set before the cache is used, receives each problem
	// Generate works around: a corrupt or unreadable entry (a miss), an
	// entry that could not be written, a request that has no key. It may be
	// called from several goroutines at once. Problems are counted in
	// Stats either way.
	Report func(error)

	hits, misses, stores, problems atomic.Int64
}

// Stats counts what a cache did since Open.
type Stats struct {
	Hits   int64 // Get found a usable entry
	Misses int64 // Get found none (corrupt entries included)
	Stores int64 // Put wrote an entry
	// Problems counts corrupt or unreadable entries, failed writes and
	// requests Generate could not key.
	Problems int64
}

// Open returns a cache rooted at dir, creating the folder.
func Open(dir string) (*Cache, error) {
	if dir == "" {
		return nil, errors.New("respcache: no cache folder given; pass one, e.g. respcache.DefaultDir()")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("respcache: creating the cache folder: %w", err)
	}
	return &Cache{dir: dir}, nil
}

// Dir is the cache's root folder.
func (c *Cache) Dir() string { return c.dir }

// Path is where k's entry lives.
func (c *Cache) Path(k Key) string {
	h := k.Hex()
	return filepath.Join(c.dir, modelDir(k.model), h[:2], h+".json")
}

// Stats returns the counters so far.
func (c *Cache) Stats() Stats {
	return Stats{Hits: c.hits.Load(), Misses: c.misses.Load(), Stores: c.stores.Load(), Problems: c.problems.Load()}
}

// Get returns k's stored result. A missing entry is (zero, false, nil). An
// entry that cannot be used is also a miss, with an error naming the file
// and wrapping ErrCorrupt (or the read error when the file is unreadable).
func (c *Cache) Get(k Key) (lm.GenerateResult, bool, error) {
	if len(k.canonical) == 0 {
		return lm.GenerateResult{}, false, errors.New("respcache: Get with a zero Key; compute it with NewKey")
	}
	path := c.Path(k)
	data, err := os.ReadFile(path)
	if err != nil {
		c.misses.Add(1)
		if errors.Is(err, fs.ErrNotExist) {
			return lm.GenerateResult{}, false, nil
		}
		return lm.GenerateResult{}, false, fmt.Errorf("respcache: reading %s: %w (treated as a miss)", path, err)
	}
	res, err := decodeEntry(data, k)
	if err != nil {
		c.misses.Add(1)
		return lm.GenerateResult{}, false, fmt.Errorf("respcache: %s: %w: %v; it counts as a miss and the next answer replaces it (or delete the file)", path, ErrCorrupt, err)
	}
	c.hits.Add(1)
	return res, true, nil
}

func decodeEntry(data []byte, k Key) (lm.GenerateResult, error) {
	var e entryFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		return lm.GenerateResult{}, fmt.Errorf("not a whole entry (%v)", err)
	}
	if dec.More() {
		return lm.GenerateResult{}, errors.New("data after the entry")
	}
	if e.Schema != Schema {
		return lm.GenerateResult{}, fmt.Errorf("schema %d, this version reads %d", e.Schema, Schema)
	}
	var key bytes.Buffer
	if err := json.Compact(&key, e.Key); err != nil || !bytes.Equal(key.Bytes(), k.canonical) {
		return lm.GenerateResult{}, errors.New(`its "key" is not the request it is named after`)
	}
	return decodeResult(e.Result)
}

// Cacheable reports whether Put stores res: only complete answers, not a
// result with Err set or stop reason "error".
func Cacheable(res lm.GenerateResult) bool {
	return res.Err == nil && res.StopReason != lm.StopError
}

// Put stores res under k, replacing any entry, as a whole file or not at
// all. A result that is not Cacheable is refused with ErrNotCacheable; so
// is one holding a value that would not read back exactly (a tool argument
// of an unknown Go type, a NaN).
func (c *Cache) Put(k Key, res lm.GenerateResult) error {
	if len(k.canonical) == 0 {
		return errors.New("respcache: Put with a zero Key; compute it with NewKey")
	}
	if !Cacheable(res) {
		return fmt.Errorf("respcache: model %q key %s: %w: the request failed (stop reason %q)", k.model, k.Hex()[:12], ErrNotCacheable, res.StopReason)
	}
	stored, err := encodeResult(res)
	if err == nil {
		// Prove the entry reads back as the same result before keeping it.
		var back lm.GenerateResult
		if back, err = decodeResult(stored); err == nil {
			if f := differingField(res, back); f != "" {
				err = fmt.Errorf("field %s does not read back unchanged", f)
			}
		}
	}
	if err != nil {
		return fmt.Errorf("respcache: model %q key %s: %w: %v", k.model, k.Hex()[:12], ErrNotCacheable, err)
	}
	// No HTML escaping: the stored key must stay byte-equal to the canonical one.
	data, err := canonicalJSON(entryFile{Schema: Schema, Key: k.canonical, Result: stored})
	if err == nil {
		var buf bytes.Buffer
		if err = json.Indent(&buf, data, "", "  "); err == nil {
			buf.WriteByte('\n')
			data = buf.Bytes()
		}
	}
	if err != nil {
		return fmt.Errorf("respcache: model %q key %s: encoding the entry: %w", k.model, k.Hex()[:12], err)
	}
	if err := atomicfile.Write(c.Path(k), data); err != nil {
		return fmt.Errorf("respcache: %w", err)
	}
	c.stores.Add(1)
	return nil
}

// Generate answers req's trial on the model id from the cache, or asks gen
// (one request, one batch) and stores a complete answer. cached reports a
// hit. err is gen's batch error, or a wrong result count; a request that
// failed comes back with res.Err set, as from gen, and is not stored.
//
// The cache never fails a call: a corrupt entry, a failed write or a
// request that cannot be keyed goes to Report and Stats, and the answer
// comes from gen. On a nil *Cache, Generate simply asks gen, so callers
// need no branch for a disabled cache. A call whose ctx ended is not
// stored.
func (c *Cache) Generate(ctx context.Context, gen lm.Generator, id ModelID, trial int, req lm.GenerateRequest) (res lm.GenerateResult, cached bool, err error) {
	if c == nil {
		res, err = lm.GenerateOne(ctx, gen, req)
		return res, false, err
	}
	key, kerr := NewKey(id, req, trial)
	if kerr != nil {
		c.problem(kerr)
	} else {
		hit, ok, gerr := c.Get(key)
		if ok {
			return hit, true, nil
		}
		if gerr != nil {
			c.problem(gerr)
		}
	}
	res, err = lm.GenerateOne(ctx, gen, req)
	if err != nil || kerr != nil || ctx.Err() != nil || !Cacheable(res) {
		return res, false, err
	}
	if perr := c.Put(key, res); perr != nil {
		c.problem(perr)
	}
	return res, false, nil
}

func (c *Cache) problem(err error) {
	c.problems.Add(1)
	if c.Report != nil {
		c.Report(err)
	}
}

// Wrap returns g answering from c first: the response cache as an
// lm.Generator. id names the model. Each request is keyed as the model
// will receive it, its unset fields filled from the catalog defaults in
// id, and with the trial number lm.Trial(ctx), so trials of one prompt
// stay independent answers. A hit comes back with Cached set. Requests
// are asked one by one (Featherbench sends one per call). On a nil *Cache
// Wrap returns g itself.
func (c *Cache) Wrap(g lm.Generator, id ModelID) lm.Generator {
	if c == nil {
		return g
	}
	d := lm.Defaults{MaxNewTokens: id.MaxTokens}
	if id.Sampling != nil {
		d.Sampling = *id.Sampling
	}
	return cached{c: c, g: g, id: id, defaults: d}
}

type cached struct {
	c        *Cache
	g        lm.Generator
	id       ModelID
	defaults lm.Defaults
}

func (w cached) Generate(ctx context.Context, reqs []lm.GenerateRequest) ([]lm.GenerateResult, error) {
	out := make([]lm.GenerateResult, len(reqs))
	for i, req := range reqs {
		res, hit, err := w.c.Generate(ctx, w.g, w.id, lm.Trial(ctx), w.defaults.Apply(req))
		if err != nil {
			return nil, err
		}
		res.Cached = hit
		out[i] = res
	}
	return out, nil
}
