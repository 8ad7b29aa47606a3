package feather_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/feather-eval/feather/harness/backends/openai/fakeserver"
	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/lm/fake"
	"github.com/feather-eval/feather/harness/run/options"
	"github.com/feather-eval/feather/harness/run/progress"
	"github.com/feather-eval/feather/harness/run/runfilter"
	"github.com/feather-eval/feather/harness/run/shard"
	"github.com/feather-eval/feather/harness/run/unit"
	"github.com/feather-eval/feather/harness/suites/featherweight"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	optFWCatalog = options.String("fw.catalog", "models/featherweight.example.json", "Featherweight's model catalog")
	optFWModels  = options.String("fw.models", "", "comma-separated catalog keys for Featherweight (default: -models)")
	optFWData    = options.String("fw.data", "testdata/featherweight/featherweight.jsonl", "Featherweight v1 question file (JSONL), e.g. the official featherweight.jsonl")
	optFWStyle   = options.String("fw.style", "both", "Featherweight prompt style: plain, completion or both")
)

// TestFeatherweight runs Featherweight v1: TestFeatherweight/<model>/<style>/<item-id>.
// Only the items -run selects are asked, in one batch per model and style.
func TestFeatherweight(t *testing.T) {
	styles, err := featherweight.ParseStyles(*optFWStyle)
	if err != nil {
		t.Fatalf("-fw.style: %v", err)
	}
	ds, err := featherweight.Load(*optFWData)
	if err != nil {
		t.Fatal(err)
	}
	results := featherweight.NewResults(ds.Info, func() (string, error) { return run.Sub("featherweight") })
	models := selectModels(t, *optFWCatalog, suiteModels(*optFWModels))
	requireRunSelects(t, runSelection{flag: "-fw.models", catalog: *optFWCatalog, layout: "<model>/<style>/<item-id>", selected: entryKeys(models),
		selects: func(_ string, sel func(...string) bool) bool { return fwRun(t, styles, ds.Items, sel).Any() }})
	for _, e := range models {
		t.Run(e.Key, func(t *testing.T) {
			skipIfStopped(t)
			fw := fwRun(t, styles, ds.Items, shard.And(runfilter.FromFlags().Under("TestFeatherweight", e.Key), featherweight.InShard(runShard, ds.Items)))
			if !fw.Any() {
				return // -run names other items: load nothing
			}
			info, g := openAs[lm.Generator](t, e, "generate text, which Featherweight needs")
			out := fwTracked(workContext(t), tracker, fw, e.Key, info, g)
			if err := results.Add(out.ModelResult); err != nil {
				t.Error(err)
			}
			unit.Subtests(t, unitOptions("featherweight", e.Key), out.Units, featherweight.Scores(out.Records))
		})
	}
	requireAModel(t, "-fw.models")
}

// fwRun is a Featherweight run in a model's subtest t: it starts no batch
// after Ctrl-C and logs its notes to t.
func fwRun(t *testing.T, styles []featherweight.Style, items []featherweight.Item, selected func(...string) bool) *featherweight.Run {
	return &featherweight.Run{Items: items, Styles: styles, Selected: selected, Stop: interrupts.Stop(), Logf: t.Logf}
}

// fwTracked runs one model with its progress on tr: a unit per item and
// style.
func fwTracked(ctx context.Context, tr *progress.Tracker, fw *featherweight.Run, key string, info lm.Info, g lm.Generator) featherweight.Outcome {
	task := tr.Start("featherweight", key, fw.Planned(), 0)
	defer task.End()
	fw.OnUnit = task.Unit
	return fw.Model(ctx, info, g)
}

// TestFWRunFilterCutsWork: only the items a -run pattern selects reach the
// model, in one batch per style.
func TestFWRunFilterCutsWork(t *testing.T) {
	ds, err := featherweight.Load("testdata/featherweight/featherweight.jsonl")
	require.NoError(t, err)
	tests := []struct {
		name, run, skip string
		batches         int
		ids             []string
	}{
		{"two items one style", "TestFeatherweight/m/completion/geo0[12]$", "", 1, []string{"geo01", "geo02"}},
		{"one item both styles", "TestFeatherweight/m/./rea10", "", 2, []string{"rea10", "rea10"}},
		{"skip", "TestFeatherweight/m/plain/voc", "TestFeatherweight/m/plain/voc0", 1, []string{"voc10"}},
		{"another model", "TestFeatherweight/other", "", 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := runfilter.New(tt.run, tt.skip)
			require.NoError(t, err)
			fw := fwRun(t, featherweight.Styles, ds.Items, f.Under("TestFeatherweight", "m"))
			m := &fake.Model{ModelInfo: lm.Info{Key: "m"}, Reply: fake.Text("A")}
			if fw.Any() {
				fw.Model(workContext(t), m.Info(), m)
			}
			calls := m.Calls()
			assert.Equal(t, tt.batches, calls.Batches)
			var ids []string
			for _, req := range calls.Generate {
				for _, it := range ds.Items {
					for _, st := range featherweight.Styles {
						if req.Prompt == featherweight.Prompt(st, it) {
							ids = append(ids, it.ID)
						}
					}
				}
			}
			assert.Equal(t, tt.ids, ids)
		})
	}
}

// TestFWThroughEndpoints runs the whole shipped set through the real
// catalog -> backend -> suite path against an in-process OpenAI-compatible
// server (chat and completions endpoints) and a custom HTTP server, both
// scripted to answer every question correctly in a different shape.
func TestFWThroughEndpoints(t *testing.T) {
	ds, err := featherweight.Load("testdata/featherweight/featherweight.jsonl")
	require.NoError(t, err)
	answers := map[string]featherweight.Item{}
	for _, st := range featherweight.Styles {
		for _, it := range ds.Items {
			answers[featherweight.Prompt(st, it)] = it
		}
	}

	api := fakeserver.Start(t, func(r fakeserver.Request) fakeserver.Reply {
		text := r.Prompt
		if len(r.Messages) == 1 {
			text = r.Messages[0].Content
		}
		it, ok := answers[text]
		if !ok {
			return fakeserver.Reply{Status: 400, ErrorMessage: "not a Featherweight prompt"}
		}
		return fakeserver.Reply{Text: "The answer is " + it.AnswerLetter() + "."}
	})

	var (
		customMu     sync.Mutex
		customBodies []map[string]any
	)
	custom := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		customMu.Lock()
		customBodies = append(customBodies, body)
		customMu.Unlock()
		prompt, _ := body["input"].(string)
		it, ok := answers[prompt]
		if !ok {
			http.Error(w, "not a Featherweight prompt", http.StatusBadRequest)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"output": map[string]any{"text": "(" + it.AnswerLetter() + ") " + it.Choices[it.Answer]}})
	}))
	t.Cleanup(custom.Close)

	cat := map[string]any{
		"vllm-chat": map[string]any{"backend": "openai", "base_url": api.URL, "model": "test-model"},
		"vllm-base": map[string]any{"backend": "openai", "base_url": api.URL, "model": "test-model", "chat": "no"},
		"custom": map[string]any{"backend": "http", "url": custom.URL + "/generate", "response_path": "output.text",
			"request_template": map[string]any{"input": "{{prompt}}", "max_new_tokens": "{{max_tokens}}", "temperature": "{{temperature}}", "top_p": "{{top_p}}"}},
	}
	b, err := json.Marshal(cat)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "endpoints.json")
	require.NoError(t, os.WriteFile(path, b, 0o644))

	want := map[string]featherweight.Rule{"vllm-chat": featherweight.RuleAnswerIs, "vllm-base": featherweight.RuleAnswerIs, "custom": featherweight.RuleParenthesized}
	asked := map[string]int{} // records per model; -run may cut a model
	for _, e := range selectModels(t, path, []string{"vllm-chat", "vllm-base", "custom"}) {
		t.Run(e.Key, func(t *testing.T) {
			info, g := openAs[lm.Generator](t, e, "generate text, which Featherweight needs")
			r := fwRun(t, featherweight.Styles, ds.Items, nil).Model(workContext(t), info, g)
			asked[e.Key] = len(r.Records)
			for _, s := range featherweight.Summarize([]featherweight.ModelResult{r.ModelResult}) {
				assert.Equal(t, s.N, s.Correct, "%s %s", e.Key, s.Style)
				assert.Equal(t, map[featherweight.Rule]int{want[e.Key]: s.N}, s.Rules, "%s %s", e.Key, s.Style)
			}
			for _, rec := range r.Records {
				require.Empty(t, rec.Error)
				assert.True(t, rec.Correct, "%s %s %s: reply %q", e.Key, rec.Style, rec.ID, rec.Reply)
				assert.Equal(t, 0.0, rec.SamplingSent["temperature"], "%s %s", e.Key, rec.ID)
				assert.Equal(t, 1.0, rec.SamplingSent["top_p"], "%s %s", e.Key, rec.ID)
				assert.EqualValues(t, 20, rec.SamplingSent["max_tokens"], "%s %s", e.Key, rec.ID)
			}
		})
	}
	// A model that ran was asked every item in both styles.
	for k, n := range asked {
		assert.Equal(t, 2*len(ds.Items), n, k)
	}

	// What reached the OpenAI-compatible server, on the wire.
	reqs := api.Requests()
	assert.Equal(t, asked["vllm-chat"]+asked["vllm-base"], len(reqs), "one request per item")
	paths := map[string]int{}
	for _, r := range reqs {
		paths[r.Path]++
		assert.Equal(t, 0.0, r.JSON["temperature"], "temperature in %s", r.Body)
		assert.Equal(t, 1.0, r.JSON["top_p"], "top_p in %s", r.Body)
		assert.Equal(t, 20.0, r.JSON["max_tokens"], "max_tokens in %s", r.Body)
		assert.Equal(t, 1234.0, r.JSON["seed"], "seed in %s", r.Body)
		assert.NotContains(t, r.JSON, "top_k", "OpenAI's API rejects top_k: %s", r.Body)
		if r.Path == "/v1/chat/completions" {
			if assert.Len(t, r.Messages, 1) {
				assert.Equal(t, "user", r.Messages[0].Role)
			}
		}
	}
	assert.Equal(t, asked["vllm-chat"], paths["/v1/chat/completions"])
	assert.Equal(t, asked["vllm-base"], paths["/v1/completions"])

	assert.Equal(t, asked["custom"], len(customBodies), "one request per item")
	for _, body := range customBodies {
		assert.Equal(t, 20.0, body["max_new_tokens"])
		assert.Equal(t, 0.0, body["temperature"])
		assert.Equal(t, 1.0, body["top_p"])
	}
}

// TestFWProgress: a model's run starts its progress task with the units
// planned, a unit per selected item and style, feeds it each one and ends
// it with the count.
func TestFWProgress(t *testing.T) {
	ds, err := featherweight.Load("testdata/featherweight/featherweight.jsonl")
	require.NoError(t, err)
	f, err := runfilter.New("TestFeatherweight/m/./geo0[12]$", "")
	require.NoError(t, err)
	clock := time.Date(2026, 7, 4, 10, 0, 0, 0, time.UTC)
	tick := func() time.Time { clock = clock.Add(time.Second); return clock }
	var b strings.Builder
	tr := progress.New(progress.Output{W: &b, TTY: true, Now: tick})
	m := &fake.Model{ModelInfo: lm.Info{Key: "m"}, Reply: fake.Text("A")}
	fwTracked(workContext(t), tr, fwRun(t, featherweight.Styles, ds.Items, f.Under("TestFeatherweight", "m")), "m", m.Info(), m)
	tr.Close()
	assert.Equal(t, "featherweight m  0/4"+
		"\r\033[Kfeatherweight m  4/4 units in 1s\n"+
		"feather: finished in 3s\n", b.String())
}
