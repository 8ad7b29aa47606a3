package onnx

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/catalog"
)

func parseEntry(t *testing.T, file, fields string) (catalog.Entry, error) {
	t.Helper()
	c, err := catalog.Parse(file, []byte(`{"m": {"backend": "onnx", `+fields+`}}`))
	if err != nil {
		return catalog.Entry{}, err
	}
	return c.Entries[0], nil
}

func TestSettingsValidate(t *testing.T) {
	for _, tc := range []struct{ name, fields, err string }{
		{"folder, repository or built-in needed", `"threads": 2`,
			`m.json: model "m": an onnx model needs "path" (a Hugging Face ONNX export folder), "hf" (a Hub repository, ORG/NAME[@REVISION]) or "builtin" (e.g. "smoke")`},
		{"not both", `"path": "p", "builtin": "smoke"`, `m.json: model "m": set one of "path", "hf" and "builtin", not "path" and "builtin"`},
		{"not all three", `"path": "p", "hf": "org/name", "builtin": "smoke"`, `m.json: model "m": set one of "path", "hf" and "builtin", not "path" and "hf" and "builtin"`},
		{"hf not a repository", `"hf": "smollm2"`,
			`m.json: model "m": "hf": "smollm2" is not a model repository; write ORG/NAME[@REVISION], e.g. HuggingFaceTB/SmolLM2-135M-Instruct@main`},
		{"hf empty revision", `"hf": "org/name@"`,
			`m.json: model "m": "hf": "org/name@" has an empty revision after @; write ORG/NAME@REVISION (a branch, tag or commit) or leave out the @`},
		{"revision goes inside hf", `"hf": "org/name", "revision": "v2"`,
			`m.json: model "m": "revision" is not a field of its own: write it into "hf" as ORG/NAME@REVISION (a branch, tag or commit), e.g. "hf": "org/name@v2"`},
		{"revision without hf", `"path": "p", "revision": "v2"`,
			`m.json: model "m": "revision" is not a field of its own: write it into "hf" as ORG/NAME@REVISION (a branch, tag or commit), e.g. "hf": "ORG/NAME@v2"`},
		{"threads", `"path": "p", "threads": -1`, `m.json: model "m": "threads" must be 0 (all cores) or more, not -1`},
		{"device", `"path": "p", "device_id": -2`, `m.json: model "m": "device_id" must be 0 or more, not -2`},
		{"sessions", `"path": "p", "sessions": -1`, `m.json: model "m": "sessions" must be 0 (one) or more, not -1`},
		{"max_tokens, checked before chat", `"path": "p", "max_tokens": -5, "chat": "maybe"`, `m.json: model "m": "max_tokens" must be positive, not -5`},
		{"chat", `"path": "p", "chat": "maybe"`, `m.json: model "m": "chat" must be one of yes, no, auto, not "maybe"`},
		{"provider", `"path": "p", "provider": "rocm"`, `m.json: model "m": "provider" must be one of cpu, cuda, not "rocm"`},
		{"dtype", `"path": "p", "dtype": "bfloat16"`, `m.json: model "m": "dtype" must be one of float32, float16, int8, not "bfloat16"`},
		{"variant", `"path": "p", "variant": "../x"`,
			`m.json: model "m": "variant" "../x" is not a file-name suffix such as quantized, fp16, int8, q4 or q4f16`},
		{"sampling is not a default onnx applies", `"path": "p", "sampling": {"seed": 1}`,
			`m.json: model "m": "sampling" is not used by backend "onnx"; remove it or change the backend`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseEntry(t, "m.json", tc.fields)
			require.Error(t, err)
			assert.Equal(t, tc.err, err.Error())
		})
	}
}

func TestSettingsParsed(t *testing.T) {
	e, err := parseEntry(t, "cat/m.json", `"path": "models/tiny", "variant": "int8", "threads": 4, "sessions": 2, "chat": "no", "provider": "cuda", "device_id": 1, "max_tokens": 9`)
	require.NoError(t, err)
	assert.Equal(t, &Settings{Path: "models/tiny", Variant: "int8", Threads: 4, Sessions: 2, Chat: "no", Provider: "cuda", DeviceID: 1, dir: "cat"}, e.Settings)
	assert.Equal(t, 9, e.MaxTokens)
	assert.Equal(t, filepath.Join("cat", "models/tiny"), e.Settings.(*Settings).ResolvedPath())
	assert.Equal(t, "models/tiny", e.Settings.Target())

	home, err := os.UserHomeDir()
	require.NoError(t, err)
	e, err = parseEntry(t, "cat/m.json", `"path": "~/models/tiny"`)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(home, "models/tiny"), e.Settings.(*Settings).ResolvedPath())
}

// The identity holds what changes an answer (chat mode, resolved folder or
// built-in, variant, a checkpoint's dtype, provider, the engine's
// revision) and not speed or placement (threads,
// sessions, device_id).
func TestSettingsIdentity(t *testing.T) {
	e, err := parseEntry(t, "/cat/m.json", `"path": "models/tiny", "variant": "int8", "threads": 4, "sessions": 2, "chat": "no", "provider": "cuda", "device_id": 1`)
	require.NoError(t, err)
	assert.Equal(t, []catalog.Field{
		{Name: "chat", Value: "no"}, {Name: "path", Value: "/cat/models/tiny"}, {Name: "hf", Value: ""}, {Name: "commit", Value: ""},
		{Name: "builtin", Value: ""}, {Name: "variant", Value: "int8"}, {Name: "dtype", Value: ""}, {Name: "provider", Value: "cuda"},
		{Name: "engine", Value: engineRevision},
	}, e.Settings.Identity())

	smoke := &Settings{Builtin: "smoke"}
	assert.Equal(t, []catalog.Field{
		{Name: "chat", Value: ""}, {Name: "path", Value: ""}, {Name: "hf", Value: ""}, {Name: "commit", Value: ""},
		{Name: "builtin", Value: "smoke"}, {Name: "variant", Value: ""}, {Name: "dtype", Value: ""}, {Name: "provider", Value: ""},
		{Name: "engine", Value: engineRevision},
	}, smoke.Identity(), "no folder, no path: the catalog's folder alone is not an identity")
	assert.Equal(t, "builtin:smoke", smoke.Target())
}

// An hf entry's identity is the repository and revision, the commit the
// revision resolved to once the cache knows it, and the variant.
func TestSettingsIdentityHF(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("HF_HUB_CACHE", cache)
	const commit = "0123456789abcdef0123456789abcdef01234567"
	identity := func(hf string) []catalog.Field {
		e, err := parseEntry(t, "/cat/m.json", `"hf": "`+hf+`", "variant": "q4"`)
		require.NoError(t, err)
		assert.Equal(t, "hf:"+hf, e.Settings.Target())
		return e.Settings.Identity()
	}
	want := func(hf, commit string) []catalog.Field {
		return []catalog.Field{
			{Name: "chat", Value: ""}, {Name: "path", Value: ""}, {Name: "hf", Value: hf}, {Name: "commit", Value: commit},
			{Name: "builtin", Value: ""}, {Name: "variant", Value: "q4"}, {Name: "dtype", Value: ""}, {Name: "provider", Value: ""},
			{Name: "engine", Value: engineRevision},
		}
	}
	assert.Equal(t, want("org/name@main", ""), identity("org/name"), "not pulled yet: the commit is unknown")
	assert.Equal(t, want("org/name@"+commit, commit), identity("org/name@"+commit), "a commit is its own")

	ref := filepath.Join(cache, "models--org--name", "refs", "main")
	require.NoError(t, os.MkdirAll(filepath.Dir(ref), 0o755))
	require.NoError(t, os.WriteFile(ref, []byte(commit), 0o644))
	assert.Equal(t, want("org/name@main", commit), identity("org/name"), "the commit the cache recorded for main")
}

// The package registers itself: a catalog entry opens through catalog.Open
// (an unknown built-in fails before ONNX Runtime is needed).
func TestRegistered(t *testing.T) {
	assert.Contains(t, catalog.Names(), Name)
	_, err := catalog.Open(context.Background(), catalog.Entry{Key: "x", Backend: Name, Settings: &Settings{Builtin: "large"}})
	assert.EqualError(t, err, `model "x": unknown builtin "large"; the onnx backend has "smoke"`)
	_, err = catalog.Open(context.Background(), catalog.Entry{Key: "x", Backend: Name})
	assert.EqualError(t, err, `model "x": the entry has no onnx settings`)
}
