// Package malformed_test feeds every hand-written input format the harness
// loads a corpus of broken files (testdata/malformed/<kind>/) through the
// real loaders, and holds each error message to the text stored beside the
// file (<name>.want): a message that names the file, the line or field,
// and the fix is part of the format's contract. Run with -update to
// rewrite the .want files, then read every changed message.
package malformed_test

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/backends/llamacpp/gguf"
	"github.com/feather-eval/feather/harness/backends/safetensors"
	"github.com/feather-eval/feather/harness/run/gate"
	"github.com/feather-eval/feather/harness/suites/featherbench"
	"github.com/feather-eval/feather/harness/suites/featherweight"
	"github.com/feather-eval/feather/harness/suites/microbench"
)

var update = flag.Bool("update", false, "rewrite testdata/malformed/*/*.want from the loaders' current errors")

// corpus is the malformed corpus relative to the repository root, where
// the test runs so that messages carry stable relative paths.
const corpus = "testdata/malformed"

// mbData is μBench's real data folder; a malformed μBench file is loaded
// in place of (or next to) one of its files, as a user would edit it.
const mbData = "testdata/microbench"

// A loader reads one file the way the harness does and returns its error.
// shown is the name the loader's messages use for the file.
type loader struct {
	load  func(file string) error
	shown func(file string) string
}

// kinds maps each corpus folder to the loader of its format.
var kinds = map[string]loader{
	"featherbench": {
		load:  func(file string) error { _, err := featherbench.LoadFile(file); return err },
		shown: same,
	},
	"catalog": {
		load:  func(file string) error { _, err := catalog.Load(file); return err },
		shown: same,
	},
	"featherweight": {
		load:  func(file string) error { _, err := featherweight.Load(file); return err },
		shown: same,
	},
	"microbench": {
		load:  func(file string) error { return loadMicrobench(file, mbPlace(file)) },
		shown: mbPlace,
	},
	"baselines": {
		load:  func(file string) error { _, err := gate.Load(file); return err },
		shown: same,
	},
	// GGUF headers, checked before llama.cpp sees a file; the files are
	// generated (harness/backends/llamacpp/gguf's malformedCases).
	"gguf": {
		load:  func(file string) error { _, err := gguf.Open(file); return err },
		shown: same,
	},
	// safetensors headers, checked before any weight is read; the files
	// are generated (harness/backends/safetensors' malformedCases).
	"safetensors": {
		load:  func(file string) error { _, err := safetensors.Open(file); return err },
		shown: same,
	},
}

func same(file string) string { return file }

// mbPlace is where a μBench corpus file goes in the data folder, replacing
// the file there: bpb.<doc>.<case>.txt is the document bpb/<doc>.txt, and
// <task>.<case>.jsonl is the hand-written file <task>.jsonl.
func mbPlace(file string) string {
	base := filepath.Base(file)
	first, rest, _ := strings.Cut(base, ".")
	if first == "bpb" && strings.HasSuffix(base, ".txt") {
		doc, _, _ := strings.Cut(rest, ".")
		return "bpb/" + doc + ".txt"
	}
	return first + ".jsonl"
}

// mbReal is the real μBench data folder, read once.
var mbReal = sync.OnceValues(func() (fstest.MapFS, error) {
	out := fstest.MapFS{}
	dir := os.DirFS(mbData)
	err := fs.WalkDir(dir, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(dir, p)
		out[p] = &fstest.MapFile{Data: data}
		return err
	})
	return out, err
})

// loadMicrobench loads μBench with file's contents at name in the real
// data folder.
func loadMicrobench(file, name string) error {
	real, err := mbReal()
	if err != nil {
		return err
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	fsys := maps.Clone(real)
	fsys[name] = &fstest.MapFile{Data: data}
	_, err = microbench.Load(fsys)
	return err
}

// crossLoaders also feed every other kind's file to μBench as a
// hand-written item file and as a bits-per-byte document, whatever its
// name.
var crossLoaders = map[string]func(file string) error{
	"microbench-items": func(file string) error { return loadMicrobench(file, "capitals.jsonl") },
	"microbench-bpb":   func(file string) error { return loadMicrobench(file, "bpb/kite.txt") },
}

type input struct{ kind, file string }

// inputs lists the corpus, kind by kind, in name order.
func inputs(t *testing.T) []input {
	t.Helper()
	var out []input
	for _, kind := range sortedKinds() {
		entries, err := os.ReadDir(filepath.Join(corpus, kind))
		require.NoError(t, err)
		for _, e := range entries {
			if !e.IsDir() && !strings.HasSuffix(e.Name(), ".want") {
				out = append(out, input{kind, path.Join(corpus, kind, e.Name())})
			}
		}
	}
	return out
}

func sortedKinds() []string {
	out := make([]string, 0, len(kinds))
	for k := range kinds {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// run calls load and turns a panic into an error, so one bad loader
// reports every input that trips it instead of ending the test binary.
func run(load func(string) error, file string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("PANIC: %v", r)
		}
	}()
	return load(file)
}

func TestMalformedInputs(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	all := inputs(t)
	count := map[string]int{}
	for _, in := range all {
		count[in.kind]++
		t.Run(strings.TrimPrefix(in.file, corpus+"/"), func(t *testing.T) {
			l := kinds[in.kind]
			err := run(l.load, in.file)
			require.Error(t, err, "a malformed file must not load")
			got := err.Error()
			require.False(t, strings.HasPrefix(got, "PANIC"), got)
			want := strings.TrimSuffix(in.file, path.Ext(in.file)) + ".want"
			if *update {
				require.NoError(t, os.WriteFile(want, []byte(got+"\n"), 0o644))
				return
			}
			b, err := os.ReadFile(want)
			require.NoError(t, err, "record the expected message with -update")
			assert.Equal(t, strings.TrimSuffix(string(b), "\n"), got)
			// Every line of the message says which file it is about.
			for _, line := range strings.Split(got, "\n") {
				assert.Contains(t, line, l.shown(in.file))
			}
		})
	}
	t.Logf("malformed inputs per kind: %v", count)
	for _, kind := range sortedKinds() {
		assert.NotZero(t, count[kind], "no malformed %s inputs", kind)
	}
}

// Every .want file belongs to an input, so a renamed input cannot leave a
// stale expectation behind.
func TestNoStaleWants(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	stems := map[string]bool{}
	for _, in := range inputs(t) {
		stem := strings.TrimSuffix(in.file, path.Ext(in.file))
		assert.False(t, stems[stem], "two inputs share the expectation %s.want", stem)
		stems[stem] = true
	}
	wants, err := filepath.Glob(filepath.Join(corpus, "*", "*.want"))
	require.NoError(t, err)
	for _, w := range wants {
		assert.True(t, stems[strings.TrimSuffix(filepath.ToSlash(w), ".want")], "%s has no input", w)
	}
}

// Every loader rejects every other kind's malformed file with an error,
// not a panic and not a silent success.
func TestCrossFeeding(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	all := inputs(t)
	loaders := map[string]func(string) error{}
	for k, l := range kinds {
		loaders[k] = l.load
	}
	maps.Copy(loaders, crossLoaders)
	names := make([]string, 0, len(loaders))
	for k := range loaders {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			for _, in := range all {
				if kind, _, _ := strings.Cut(name, "-"); in.kind == kind {
					continue // the kind's own files are TestMalformedInputs' job
				}
				err := run(loaders[name], in.file)
				if !assert.Error(t, err, "%s loaded %s", name, in.file) {
					continue
				}
				assert.False(t, strings.HasPrefix(err.Error(), "PANIC"), "%s on %s: %v", name, in.file, err)
				assert.False(t, errors.Is(err, fs.ErrNotExist), "%s on %s: %v", name, in.file, err)
			}
		})
	}
}

// The files the repository ships still load: the checks the corpus pins
// must not reject real inputs.
func TestShippedInputsLoad(t *testing.T) {
	t.Chdir(filepath.Join("..", ".."))
	for _, dir := range []string{"tasks", "testdata/featherbench/tasks", "testdata/report/tasks"} {
		_, err := featherbench.LoadDir(dir)
		assert.NoError(t, err, dir)
	}
	catalogs, err := filepath.Glob("models/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, catalogs)
	for _, c := range catalogs {
		_, err := catalog.Load(c)
		assert.NoError(t, err, c)
	}
	_, err = featherweight.Load("testdata/featherweight/featherweight.jsonl")
	assert.NoError(t, err)
	_, err = microbench.Load(os.DirFS(mbData))
	assert.NoError(t, err)
	baselines, err := filepath.Glob(filepath.Join(gate.DefaultDir, "*", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, baselines)
	for _, b := range baselines {
		_, err := gate.Load(b)
		assert.NoError(t, err, b)
	}
}
