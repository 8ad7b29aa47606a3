package respcache_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/lm/fake"
	"github.com/feather-eval/feather/harness/lm/respcache"
)

func openCache(t *testing.T) *respcache.Cache {
	t.Helper()
	c, err := respcache.Open(t.TempDir())
	require.NoError(t, err)
	return c
}

// echo answers with the last message, so a wrong entry would show.
func echo() *fake.Model {
	return &fake.Model{Reply: func(r lm.GenerateRequest) lm.GenerateResult {
		return lm.GenerateResult{Text: "re: " + r.Messages[len(r.Messages)-1].Content, StopReason: lm.StopEOS, InputTokens: 7, OutputTokens: 3}
	}}
}

func userReq(content string) lm.GenerateRequest {
	return lm.GenerateRequest{Messages: []lm.Message{{Role: "user", Content: content}}, MaxNewTokens: 64, Sampling: lm.Greedy()}
}

func openRouterID(key, slug string) respcache.ModelID {
	return respcache.ModelID{Key: key, Backend: "openrouter", Settings: []respcache.Field{{Name: "model", Value: slug}, {Name: "provider_order", Value: []string{"acme"}}}}
}

// entryFiles lists the cache's entry files relative to its folder.
func entryFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, filepath.ToSlash(rel))
		return nil
	}))
	return out
}

func TestGenerateMissThenHit(t *testing.T) {
	c := openCache(t)
	gen := echo()
	id := openRouterID("heron", "acme/heron-3")
	req := userReq("capital of France?")

	res, cached, err := c.Generate(context.Background(), gen, id, 1, req)
	require.NoError(t, err)
	assert.False(t, cached)
	assert.Equal(t, "re: capital of France?", res.Text)

	res, cached, err = c.Generate(context.Background(), gen, id, 1, req)
	require.NoError(t, err)
	assert.True(t, cached)
	assert.Equal(t, lm.GenerateResult{Text: "re: capital of France?", StopReason: lm.StopEOS, InputTokens: 7, OutputTokens: 3}, res)
	assert.Len(t, gen.Calls().Generate, 1)
	assert.Equal(t, respcache.Stats{Hits: 1, Misses: 1, Stores: 1}, c.Stats())

	k, err := respcache.NewKey(id, req, 1)
	require.NoError(t, err)
	h := k.Hex()
	assert.Equal(t, []string{"heron/" + h[:2] + "/" + h + ".json"}, entryFiles(t, c.Dir()))
	assert.Equal(t, filepath.Join(c.Dir(), "heron", h[:2], h+".json"), c.Path(k))
}

func TestGenerateMissesOnAnyChange(t *testing.T) {
	c := openCache(t)
	gen := echo()
	id := openRouterID("heron", "acme/heron-3")
	req := userReq("capital of France?")
	req.Tools = []lm.Tool{{Name: "search", Parameters: json.RawMessage(`{"type":"object"}`)}}
	_, _, err := c.Generate(context.Background(), gen, id, 1, req)
	require.NoError(t, err)

	for _, tc := range []struct {
		name  string
		id    func(*respcache.ModelID)
		req   func(*lm.GenerateRequest)
		trial int
	}{
		{name: "trial", trial: 2},
		{name: "model key", id: func(m *respcache.ModelID) { m.Key = "heron-b" }},
		{name: "slug", id: func(m *respcache.ModelID) { *m = openRouterID(m.Key, "acme/heron-3.1") }},
		{name: "sampling", req: func(r *lm.GenerateRequest) { r.Sampling.Temperature = ptr(1.0) }},
		{name: "message", req: func(r *lm.GenerateRequest) { r.Messages[0].Content = "capital of Spain?" }},
		{name: "tool", req: func(r *lm.GenerateRequest) { r.Tools[0].Name = "lookup" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id2, req2, trial := id, req, 1
			req2.Messages = append([]lm.Message(nil), req.Messages...)
			req2.Tools = append([]lm.Tool(nil), req.Tools...)
			if tc.id != nil {
				tc.id(&id2)
			}
			if tc.req != nil {
				tc.req(&req2)
			}
			if tc.trial != 0 {
				trial = tc.trial
			}
			before := len(gen.Calls().Generate)
			_, cached, err := c.Generate(context.Background(), gen, id2, trial, req2)
			require.NoError(t, err)
			assert.False(t, cached)
			assert.Len(t, gen.Calls().Generate, before+1)
		})
	}
	_, cached, err := c.Generate(context.Background(), gen, id, 1, req)
	require.NoError(t, err)
	assert.True(t, cached, "the first request is still cached")
	assert.Len(t, entryFiles(t, c.Dir()), 7)
}

func TestHitAcrossCacheInstances(t *testing.T) {
	dir := t.TempDir()
	id := openRouterID("heron", "acme/heron-3")
	c1, err := respcache.Open(dir)
	require.NoError(t, err)
	_, _, err = c1.Generate(context.Background(), echo(), id, 3, userReq("q"))
	require.NoError(t, err)

	c2, err := respcache.Open(dir)
	require.NoError(t, err)
	gen := echo()
	res, cached, err := c2.Generate(context.Background(), gen, id, 3, userReq("q"))
	require.NoError(t, err)
	assert.True(t, cached)
	assert.Equal(t, "re: q", res.Text)
	assert.Empty(t, gen.Calls().Generate)
}

// Two catalog entries for the same slug, asked the same thing, never share
// an answer, even when their keys map to the same folder.
func TestModelsNeverShare(t *testing.T) {
	c := openCache(t)
	answer := func(text string) *fake.Model {
		return &fake.Model{Reply: func(lm.GenerateRequest) lm.GenerateResult {
			return lm.GenerateResult{Text: text, StopReason: lm.StopEOS}
		}}
	}
	ids := []respcache.ModelID{
		openRouterID("heron", "acme/heron-3"),
		openRouterID("heron-pinned", "acme/heron-3"),
		openRouterID("a/b", "acme/heron-3"), // folder a_b
		openRouterID("a_b", "acme/heron-3"), // folder a_b too
	}
	for i, id := range ids {
		res, cached, err := c.Generate(context.Background(), answer(fmt.Sprint("from ", i)), id, 1, userReq("same"))
		require.NoError(t, err)
		assert.False(t, cached, id.Key)
		assert.Equal(t, fmt.Sprint("from ", i), res.Text)
	}
	for i, id := range ids {
		res, cached, err := c.Generate(context.Background(), answer("unused"), id, 1, userReq("same"))
		require.NoError(t, err)
		assert.True(t, cached, id.Key)
		assert.Equal(t, fmt.Sprint("from ", i), res.Text, id.Key)
	}
	var dirs []string
	for _, f := range entryFiles(t, c.Dir()) {
		dirs = append(dirs, strings.SplitN(f, "/", 2)[0])
	}
	assert.ElementsMatch(t, []string{"heron", "heron-pinned", "a_b", "a_b"}, dirs)
}

// fullResult sets every field to a value that a careless encoding would
// change: ints that look like floats, floats that look like ints, a seed
// past 2^53, nil against empty, HTML characters.
func fullResult() lm.GenerateResult {
	return lm.GenerateResult{
		Text: "Sure <b>&</b> \"quoted\" — ünïcode\n",
		ToolCalls: []lm.ToolCall{
			{Name: "search", Args: map[string]any{
				"query": "x < y", "limit": 10.0, "ratio": 0.1, "exact": true, "none": nil,
				"tags": []any{"a", 2.5, false, nil, map[string]any{"deep": math.Copysign(0, -1)}},
				"opts": map[string]any{}, "empty": []any{},
			}, RawArgs: `{"query":"x < y","limit":10}`},
			{Name: "broken", Args: nil, RawArgs: `{"query": "unterminated`},
			{Name: "noargs", Args: map[string]any{}, RawArgs: ""},
		},
		PromptSent: "<|im_start|>user\nhi<|im_end|>",
		SamplingSent: map[string]any{
			"temperature": 1.0, "top_p": 0.95, "top_k": 40, "seed": 1<<60 + 1, "max_tokens": 2048,
			"reasoning": map[string]any{"effort": "high"}, "do_sample": false, "strategy": "greedy",
			"n64": int64(-9007199254740993), "n32": int32(7), "u64": uint64(math.MaxUint64),
			"f32": float32(0.1), "num": json.Number("1.50"), "stops": []string{"\n\n", "END"},
		},
		StopReason:      lm.StopToolCalls,
		RefusalCategory: "cyber",
		InputTokens:     1234,
		OutputTokens:    567,
		CostUSD:         ptr(0.000123456789),
		TTFT:            1234567891 * time.Nanosecond,
		Wall:            9876543210 * time.Nanosecond,
		Retries:         2,
	}
}

func TestResultRoundTrip(t *testing.T) {
	dir := t.TempDir()
	c, err := respcache.Open(dir)
	require.NoError(t, err)
	k, err := respcache.NewKey(openRouterID("heron", "acme/heron-3"), userReq("q"), 1)
	require.NoError(t, err)
	want := fullResult()
	require.NoError(t, c.Put(k, want))

	fresh, err := respcache.Open(dir)
	require.NoError(t, err)
	got, ok, err := fresh.Get(k)
	require.NoError(t, err)
	require.True(t, ok)

	assert.Equal(t, want.Text, got.Text)
	require.Len(t, got.ToolCalls, 3)
	for i := range want.ToolCalls {
		assert.Equal(t, want.ToolCalls[i].Name, got.ToolCalls[i].Name, i)
		assert.Equal(t, want.ToolCalls[i].Args, got.ToolCalls[i].Args, i)
		assert.Equal(t, want.ToolCalls[i].RawArgs, got.ToolCalls[i].RawArgs, i)
	}
	assert.Nil(t, got.ToolCalls[1].Args)
	assert.NotNil(t, got.ToolCalls[2].Args)
	assert.IsType(t, 0.0, got.ToolCalls[0].Args["limit"])
	assert.True(t, math.Signbit(got.ToolCalls[0].Args["tags"].([]any)[4].(map[string]any)["deep"].(float64)), "-0 keeps its sign")
	assert.Equal(t, want.PromptSent, got.PromptSent)
	assert.Equal(t, want.SamplingSent, got.SamplingSent)
	assert.IsType(t, 0, got.SamplingSent["top_k"])
	assert.IsType(t, 0.0, got.SamplingSent["temperature"])
	assert.Equal(t, 1<<60+1, got.SamplingSent["seed"])
	assert.Equal(t, uint64(math.MaxUint64), got.SamplingSent["u64"])
	assert.Equal(t, float32(0.1), got.SamplingSent["f32"])
	assert.Equal(t, json.Number("1.50"), got.SamplingSent["num"])
	assert.Equal(t, lm.StopToolCalls, got.StopReason)
	assert.Equal(t, "cyber", got.RefusalCategory)
	assert.Equal(t, 1234, got.InputTokens)
	assert.Equal(t, 567, got.OutputTokens)
	require.NotNil(t, got.CostUSD)
	assert.Equal(t, 0.000123456789, *got.CostUSD)
	assert.Equal(t, 1234567891*time.Nanosecond, got.TTFT)
	assert.Equal(t, 9876543210*time.Nanosecond, got.Wall)
	assert.Equal(t, 2, got.Retries)
	assert.NoError(t, got.Err)
	assert.Equal(t, want, got)

	// The file is readable JSON holding the canonical key.
	data, err := os.ReadFile(c.Path(k))
	require.NoError(t, err)
	var file struct {
		Schema int             `json:"schema"`
		Key    json.RawMessage `json:"key"`
	}
	require.NoError(t, json.Unmarshal(data, &file))
	assert.Equal(t, respcache.Schema, file.Schema)
	assert.JSONEq(t, string(k.Canonical()), string(file.Key))
	assert.Contains(t, string(data), `"text": "Sure <b>&</b> \"quoted\" — ünïcode\n"`)
	assert.Contains(t, string(data), `"top_k": {`+"\n"+`          "int": 40`)
}

func TestResultRoundTripNilAndEmpty(t *testing.T) {
	c := openCache(t)
	for i, want := range []lm.GenerateResult{
		{StopReason: lm.StopEOS},
		{StopReason: lm.StopEOS, ToolCalls: []lm.ToolCall{}, SamplingSent: map[string]any{}},
		{StopReason: lm.StopLength, CostUSD: ptr(0.0), Text: "cut"},
		{StopReason: lm.StopRefusal, RefusalCategory: "violence", SamplingSent: map[string]any{"x": nil, "l": []any(nil), "m": map[string]any(nil)}},
		{StopReason: ""},
	} {
		k, err := respcache.NewKey(openRouterID("heron", "acme/heron-3"), userReq("q"), i+1)
		require.NoError(t, err)
		require.NoError(t, c.Put(k, want), i)
		got, ok, err := c.Get(k)
		require.NoError(t, err)
		require.True(t, ok)
		assert.Equal(t, want, got, i)
		assert.Equal(t, want.ToolCalls == nil, got.ToolCalls == nil, i)
		assert.Equal(t, want.SamplingSent == nil, got.SamplingSent == nil, i)
	}
}

func TestPutRefuses(t *testing.T) {
	c := openCache(t)
	k, err := respcache.NewKey(openRouterID("heron", "acme/heron-3"), userReq("q"), 1)
	require.NoError(t, err)
	prefix := `respcache: model "heron" key ` + k.Hex()[:12] + ": result not cacheable: "
	for _, tc := range []struct {
		name string
		res  lm.GenerateResult
		want string
	}{
		{name: "failed request", res: lm.GenerateResult{Text: "partial", StopReason: lm.StopEOS, Err: errors.New("stream cut")},
			want: prefix + `the request failed (stop reason "eos")`},
		{name: "error stop", res: lm.GenerateResult{StopReason: lm.StopError},
			want: prefix + `the request failed (stop reason "error")`},
		{name: "unknown type", res: lm.GenerateResult{StopReason: lm.StopEOS, SamplingSent: map[string]any{"when": time.Second}},
			want: prefix + "sampling_sent.when: a value of Go type time.Duration cannot be stored (known: nil, bool, string, float64, float32, int, int64, int32, uint64, json.Number, []string, []any, map[string]any)"},
		{name: "NaN in tool args", res: lm.GenerateResult{StopReason: lm.StopToolCalls, ToolCalls: []lm.ToolCall{{Name: "f", Args: map[string]any{"x": []any{math.NaN()}}}}},
			want: prefix + "tool_calls[0].args.x[0]: NaN cannot be stored as JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := c.Put(k, tc.res)
			require.Error(t, err)
			assert.ErrorIs(t, err, respcache.ErrNotCacheable)
			assert.Equal(t, tc.want, err.Error())
			assert.Empty(t, entryFiles(t, c.Dir()))
		})
	}
	assert.False(t, respcache.Cacheable(lm.GenerateResult{StopReason: lm.StopError}))
	assert.True(t, respcache.Cacheable(lm.GenerateResult{StopReason: lm.StopRefusal}))
}

type genFunc func(ctx context.Context, reqs []lm.GenerateRequest) ([]lm.GenerateResult, error)

func (f genFunc) Generate(ctx context.Context, reqs []lm.GenerateRequest) ([]lm.GenerateResult, error) {
	return f(ctx, reqs)
}

func TestFailuresAreNotStored(t *testing.T) {
	ok := lm.GenerateResult{Text: "fine", StopReason: lm.StopEOS}
	for _, tc := range []struct {
		name    string
		gen     genFunc
		cancel  bool
		wantErr string
		wantRes lm.GenerateResult
	}{
		{name: "result error", gen: func(context.Context, []lm.GenerateRequest) ([]lm.GenerateResult, error) {
			return []lm.GenerateResult{{Text: "half", StopReason: lm.StopError, Err: errors.New("503 overloaded")}}, nil
		}, wantRes: lm.GenerateResult{Text: "half", StopReason: lm.StopError, Err: errors.New("503 overloaded")}},
		{name: "error stop without Err", gen: func(context.Context, []lm.GenerateRequest) ([]lm.GenerateResult, error) {
			return []lm.GenerateResult{{StopReason: lm.StopError}}, nil
		}, wantRes: lm.GenerateResult{StopReason: lm.StopError}},
		{name: "batch error", gen: func(context.Context, []lm.GenerateRequest) ([]lm.GenerateResult, error) {
			return []lm.GenerateResult{ok}, errors.New("connection refused")
		}, wantErr: "connection refused"},
		{name: "wrong count", gen: func(context.Context, []lm.GenerateRequest) ([]lm.GenerateResult, error) {
			return []lm.GenerateResult{ok, ok}, nil
		}, wantErr: "the backend returned 2 results for 1 request"},
		{name: "context ended", cancel: true, gen: func(context.Context, []lm.GenerateRequest) ([]lm.GenerateResult, error) {
			return []lm.GenerateResult{ok}, nil
		}, wantRes: ok},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := openCache(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			calls := 0
			gen := genFunc(func(ctx context.Context, reqs []lm.GenerateRequest) ([]lm.GenerateResult, error) {
				calls++
				if tc.cancel {
					cancel()
				}
				return tc.gen(ctx, reqs)
			})
			for range 2 {
				res, cached, err := c.Generate(ctx, gen, openRouterID("heron", "acme/heron-3"), 1, userReq("q"))
				assert.False(t, cached)
				if tc.wantErr != "" {
					assert.EqualError(t, err, tc.wantErr)
				} else {
					assert.NoError(t, err)
				}
				assert.Equal(t, tc.wantRes, res)
			}
			assert.Equal(t, 2, calls, "nothing was served from the cache")
			assert.Empty(t, entryFiles(t, c.Dir()))
			assert.Equal(t, respcache.Stats{Misses: 2}, c.Stats())
		})
	}
}

func TestCorruptEntryIsAMiss(t *testing.T) {
	id := openRouterID("heron", "acme/heron-3")
	req := userReq("q")
	other, err := respcache.NewKey(id, req, 2)
	require.NoError(t, err)
	for _, tc := range []struct {
		name   string
		mangle func(good []byte, otherEntry []byte) []byte
		want   string
	}{
		{name: "truncated", mangle: func(g, _ []byte) []byte { return g[:len(g)/2] }, want: "not a whole entry (unexpected EOF)"},
		{name: "empty", mangle: func([]byte, []byte) []byte { return nil }, want: "not a whole entry (EOF)"},
		{name: "not JSON", mangle: func([]byte, []byte) []byte { return []byte("garbage") }, want: "not a whole entry (invalid character 'g' looking for beginning of value)"},
		{name: "two documents", mangle: func(g, _ []byte) []byte { return append(append([]byte{}, g...), g...) }, want: "data after the entry"},
		{name: "other schema", mangle: func(g, _ []byte) []byte {
			return []byte(strings.Replace(string(g), `"schema": 1`, `"schema": 99`, 1))
		}, want: "schema 99, this version reads 1"},
		{name: "unknown member", mangle: func(g, _ []byte) []byte {
			return []byte(strings.Replace(string(g), `"schema": 1`, `"schema": 1, "extra": 0`, 1))
		}, want: `not a whole entry (json: unknown field "extra")`},
		{name: "another key's entry", mangle: func(_, o []byte) []byte { return o }, want: `its "key" is not the request it is named after`},
		{name: "bad typed value", mangle: func(g, _ []byte) []byte {
			return []byte(strings.Replace(string(g), `"int": 40`, `"complex128": 40`, 1))
		}, want: `sampling_sent.top_k: unknown value type "complex128"`},
		{name: "int overflow", mangle: func(g, _ []byte) []byte {
			return []byte(strings.Replace(string(g), `"int": 40`, `"int": 1e400`, 1))
		}, want: `sampling_sent.top_k: int "1e400": strconv.ParseInt: parsing "1e400": invalid syntax`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := openCache(t)
			var reported []error
			c.Report = func(err error) { reported = append(reported, err) }
			k, err := respcache.NewKey(id, req, 1)
			require.NoError(t, err)
			good := lm.GenerateResult{Text: "stored", StopReason: lm.StopEOS, SamplingSent: map[string]any{"top_k": 40}}
			require.NoError(t, c.Put(k, good))
			require.NoError(t, c.Put(other, good))
			g, err := os.ReadFile(c.Path(k))
			require.NoError(t, err)
			o, err := os.ReadFile(c.Path(other))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(c.Path(k), tc.mangle(g, o), 0o644))

			res, hit, err := c.Get(k)
			assert.False(t, hit)
			assert.Equal(t, lm.GenerateResult{}, res)
			require.ErrorIs(t, err, respcache.ErrCorrupt)
			wantMsg := "respcache: " + c.Path(k) + ": corrupt response cache entry: " + tc.want +
				"; it counts as a miss and the next answer replaces it (or delete the file)"
			assert.Equal(t, wantMsg, err.Error())

			// Generate asks the backend, reports the entry and replaces it.
			gen := &fake.Model{Reply: fake.Text("fresh")}
			res, cached, err := c.Generate(context.Background(), gen, id, 1, req)
			require.NoError(t, err)
			assert.False(t, cached)
			assert.Equal(t, "fresh", res.Text)
			require.Len(t, reported, 1)
			assert.Equal(t, wantMsg, reported[0].Error())
			res, hit, err = c.Get(k)
			require.NoError(t, err)
			assert.True(t, hit)
			assert.Equal(t, "fresh", res.Text)
			assert.Equal(t, respcache.Stats{Hits: 1, Misses: 2, Stores: 3, Problems: 1}, c.Stats())
		})
	}
}

func TestUnreadableEntryIsReported(t *testing.T) {
	c := openCache(t)
	var reported []string
	c.Report = func(err error) { reported = append(reported, err.Error()) }
	id := openRouterID("heron", "acme/heron-3")
	k, err := respcache.NewKey(id, userReq("q"), 1)
	require.NoError(t, err)
	// A folder where the entry should be: unreadable as a file, even by root.
	require.NoError(t, os.MkdirAll(c.Path(k), 0o755))
	_, hit, err := c.Get(k)
	assert.False(t, hit)
	require.Error(t, err)
	assert.NotErrorIs(t, err, respcache.ErrCorrupt)
	want := "respcache: reading " + c.Path(k) + ": read " + c.Path(k) + ": is a directory (treated as a miss)"
	assert.Equal(t, want, err.Error())

	// Generate still answers; the store fails and is reported too.
	res, cached, err := c.Generate(context.Background(), &fake.Model{Reply: fake.Text("ok")}, id, 1, userReq("q"))
	require.NoError(t, err)
	assert.False(t, cached)
	assert.Equal(t, "ok", res.Text)
	require.Len(t, reported, 2)
	assert.Equal(t, want, reported[0])
	assert.True(t, strings.HasPrefix(reported[1], "respcache: writing "+c.Path(k)+": rename "), reported[1])
	assert.Equal(t, respcache.Stats{Misses: 2, Problems: 2}, c.Stats())
}

func TestGenerateWorksAroundAKeyError(t *testing.T) {
	c := openCache(t)
	var reported []string
	c.Report = func(err error) { reported = append(reported, err.Error()) }
	gen := &fake.Model{Reply: fake.Text("ok")}
	res, cached, err := c.Generate(context.Background(), gen, respcache.ModelID{Backend: "onnx"}, 1, userReq("q"))
	require.NoError(t, err)
	assert.False(t, cached)
	assert.Equal(t, "ok", res.Text)
	assert.Equal(t, []string{"respcache: the model identity has no catalog key; build it with catalog.Entry.CacheID from a loaded catalog entry"}, reported)
	assert.Empty(t, entryFiles(t, c.Dir()))
	assert.Equal(t, respcache.Stats{Problems: 1}, c.Stats())
}

func TestNilCacheAsksTheBackend(t *testing.T) {
	var c *respcache.Cache
	gen := &fake.Model{Reply: fake.Text("ok")}
	for range 2 {
		res, cached, err := c.Generate(context.Background(), gen, respcache.ModelID{}, 0, userReq("q"))
		require.NoError(t, err)
		assert.False(t, cached)
		assert.Equal(t, lm.GenerateResult{Text: "ok", StopReason: lm.StopEOS}, res)
	}
	assert.Len(t, gen.Calls().Generate, 2)
	assert.Equal(t, 2, gen.Calls().Batches)
}

func TestOpen(t *testing.T) {
	_, err := respcache.Open("")
	assert.EqualError(t, err, "respcache: no cache folder given; pass one, e.g. respcache.DefaultDir()")

	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	_, err = respcache.Open(filepath.Join(file, "sub"))
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "respcache: creating the cache folder: mkdir "+file+": not a directory"), err.Error())

	dir := filepath.Join(t.TempDir(), "a", "b")
	c, err := respcache.Open(dir)
	require.NoError(t, err)
	assert.Equal(t, dir, c.Dir())
	assert.DirExists(t, dir)

	t.Setenv("FEATHER_CACHE", "/tmp/feather-cache-test")
	assert.Equal(t, "/tmp/feather-cache-test/responses", respcache.DefaultDir())
}

func TestZeroKey(t *testing.T) {
	c := openCache(t)
	_, _, err := c.Get(respcache.Key{})
	assert.EqualError(t, err, "respcache: Get with a zero Key; compute it with NewKey")
	assert.EqualError(t, c.Put(respcache.Key{}, lm.GenerateResult{}), "respcache: Put with a zero Key; compute it with NewKey")
}

// Many trials in flight on overlapping keys: every answer is right, every
// entry whole, no temporary file left. Run with -race.
func TestConcurrentGenerate(t *testing.T) {
	c := openCache(t)
	var mu sync.Mutex
	var problems []error
	c.Report = func(err error) { mu.Lock(); problems = append(problems, err); mu.Unlock() }
	gen := echo()
	models := []respcache.ModelID{openRouterID("heron", "acme/heron-3"), openRouterID("wren", "acme/wren-2")}
	type job struct {
		m, trial int
		q        string
	}
	var jobs []job
	for m := range models {
		for trial := 1; trial <= 3; trial++ {
			for _, q := range []string{"alpha", "beta"} {
				jobs = append(jobs, job{m, trial, q})
			}
		}
	}
	var wg sync.WaitGroup
	var cachedCount sync.Map
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 3 * len(jobs) {
				j := jobs[(g*5+i)%len(jobs)]
				res, cached, err := c.Generate(context.Background(), gen, models[j.m], j.trial, userReq(j.q))
				if !assert.NoError(t, err) {
					return
				}
				assert.Equal(t, "re: "+j.q, res.Text)
				if cached {
					cachedCount.Store(j, true)
				}
			}
		}()
	}
	wg.Wait()
	assert.Empty(t, problems)
	files := entryFiles(t, c.Dir())
	assert.Len(t, files, len(jobs), "one whole entry per key, no temporary files: %v", files)
	for _, j := range jobs {
		k, err := respcache.NewKey(models[j.m], userReq(j.q), j.trial)
		require.NoError(t, err)
		res, hit, err := c.Get(k)
		require.NoError(t, err)
		require.True(t, hit)
		assert.Equal(t, "re: "+j.q, res.Text)
	}
	s := c.Stats()
	assert.Equal(t, int64(16*3*len(jobs)+len(jobs)), s.Hits+s.Misses)
	assert.Equal(t, s.Misses, int64(len(gen.Calls().Generate)))
	assert.Equal(t, s.Misses, s.Stores)
	assert.GreaterOrEqual(t, s.Misses, int64(len(jobs)))
}
