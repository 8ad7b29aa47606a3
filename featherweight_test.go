package feather_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/backends/openai/fakeserver"
	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/lm/fake"
	"github.com/feather-eval/feather/harness/run/gate"
	"github.com/feather-eval/feather/harness/run/options"
	"github.com/feather-eval/feather/harness/run/runfilter"
	"github.com/feather-eval/feather/harness/stats"
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

// fwResults collects this run's Featherweight results, model by model, for
// the results files.
var fwResults struct {
	mu      sync.Mutex
	data    featherweight.DataInfo
	results []featherweight.ModelResult
}

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
	entries := selectModels(t, *optFWCatalog, suiteModels(*optFWModels))
	for _, e := range entries {
		t.Run(e.Key, func(t *testing.T) {
			skipIfStopped(t)
			selected := fwSelected(runfilter.FromFlags(), "TestFeatherweight", e.Key)
			if !anyFWItem(styles, ds.Items, selected) {
				return // -run names other items: load nothing
			}
			m := openModel(t, e)
			r := fwEvaluateModel(t, e, m, styles, ds.Items, selected, fwCheckItem, fwGate)
			fwSave(t, ds.Info, r)
		})
	}
}

// fwCheckItem decides an item's subtest: a missing answer is a harness
// error (the item also counts as wrong in the score); a wrong answer is
// the model's result unless -strict.
func fwCheckItem(t *testing.T, model string, r featherweight.Record) {
	t.Helper()
	if r.Error != "" {
		t.Fatalf("no answer: %s", r.Error)
	}
	verdict := "wrong"
	switch {
	case r.Correct:
		verdict = "correct"
	case r.ParseError:
		verdict = "parse error"
	}
	t.Logf("%s: reply %q -> %q by %s (answer %s)", verdict, r.Reply, r.Letter, r.Rule, r.Answer)
	if *optStrict && !r.Correct {
		t.Errorf("-strict: %s answered %q, want %s", model, r.Letter, r.Answer)
	}
	// The gate's own strict mode stays off: -strict is enforced just above.
	gate.Open(t, "featherweight", model+"/"+string(r.Style), *optUpdate).Item(t, r.ID, r.Correct)
}

// fwGate runs a style's gate subtest (TestFeatherweight/<model>/<style>/gate)
// once its items have run: the score against the baseline's threshold and
// the paired test on item outcomes, or recording them under -update.
func fwGate(t *testing.T, model string, st featherweight.Style, recs []featherweight.Record) {
	for _, s := range featherweight.Summarize([]featherweight.ModelResult{{Model: lm.Info{Key: model}, Records: recs}}) {
		se := 100 * stats.SEProportion(s.ScorePct/100, s.N)
		gate.Open(t, "featherweight", model+"/"+string(st), *optUpdate).Finish(t, s.ScorePct, se)
	}
}

// fwSelected asks the -run/-skip filter about an item's subtest path
// before the subtest exists, so unselected items are never sent.
func fwSelected(f *runfilter.Filter, test, model string) func(featherweight.Style, string) bool {
	return func(st featherweight.Style, id string) bool { return f.Selected(test, model, string(st), id) }
}

func anyFWItem(styles []featherweight.Style, items []featherweight.Item, selected func(featherweight.Style, string) bool) bool {
	for _, st := range styles {
		for _, it := range items {
			if selected(st, it.ID) {
				return true
			}
		}
	}
	return false
}

// fwEvaluateModel asks one model the selected items, one batch per style,
// and gives every item a subtest decided by check.
func fwEvaluateModel(t *testing.T, e catalog.Entry, m lm.Model, styles []featherweight.Style, items []featherweight.Item,
	selected func(featherweight.Style, string) bool, check func(*testing.T, string, featherweight.Record),
	finish func(*testing.T, string, featherweight.Style, []featherweight.Record)) featherweight.ModelResult {
	t.Helper()
	info := modelInfo(e, m)
	result := featherweight.ModelResult{Model: info}
	g, ok := m.(lm.Generator)
	if !ok {
		t.Fatalf("model %q (backend %s) cannot generate text, which Featherweight needs", e.Key, e.Backend)
	}
	for _, st := range styles {
		var batch []featherweight.Item
		for _, it := range items {
			if selected(st, it.ID) {
				batch = append(batch, it)
			}
		}
		if len(batch) == 0 {
			continue
		}
		t.Run(string(st), func(t *testing.T) {
			skipIfStopped(t)
			start := time.Now()
			recs, err := featherweight.Evaluate(workContext(t), g, info, st, batch)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%d %s prompts answered in %s", len(recs), st, time.Since(start).Round(time.Millisecond))
			result.Records = append(result.Records, recs...)
			for _, r := range recs {
				t.Run(r.ID, func(t *testing.T) { check(t, e.Key, r) })
			}
			if finish != nil {
				finish(t, e.Key, st, recs)
			}
		})
	}
	return result
}

// fwSave records a model's results and rewrites the run's Featherweight
// files, so every finished model is on disk even if a later one crashes.
func fwSave(t *testing.T, data featherweight.DataInfo, r featherweight.ModelResult) {
	t.Helper()
	if len(r.Records) == 0 {
		return
	}
	fwResults.mu.Lock()
	defer fwResults.mu.Unlock()
	fwResults.data = data
	fwResults.results = append(fwResults.results, r)
	dir, err := run.Sub("featherweight")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := featherweight.WriteModelFile(dir, data, r); err != nil {
		t.Fatal(err)
	}
	if err := featherweight.WriteSummaries(dir, data, fwResults.results); err != nil {
		t.Fatal(err)
	}
	for _, s := range featherweight.Summarize([]featherweight.ModelResult{r}) {
		t.Logf("%s %s: %.1f%% (%d/%d, 95%% CI %.1f–%.1f), %d parse errors%s", r.Model.Key, s.Style, s.ScorePct,
			s.Correct, s.N, s.CILowPct, s.CIHighPct, s.ParseErrors, errorsNote(s))
	}
}

// errorsNote marks a score with failed requests as incomplete: they count
// as wrong, and their item subtests have failed.
func errorsNote(s featherweight.Summary) string {
	if !s.Incomplete {
		return ""
	}
	return fmt.Sprintf(", incomplete: %d failed requests counted as wrong", s.Errors)
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
			selected := fwSelected(f, "TestFeatherweight", "m")
			m := &fake.Model{ModelInfo: lm.Info{Key: "m"}, Reply: fake.Text("A")}
			if anyFWItem(featherweight.Styles, ds.Items, selected) {
				fwEvaluateModel(t, catalog.Entry{Key: "m"}, m, featherweight.Styles, ds.Items, selected, func(*testing.T, string, featherweight.Record) {}, nil)
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

	all := func(featherweight.Style, string) bool { return true }
	check := func(t *testing.T, model string, r featherweight.Record) {
		require.Empty(t, r.Error)
		assert.True(t, r.Correct, "%s %s %s: reply %q", model, r.Style, r.ID, r.Reply)
	}
	want := map[string]featherweight.Rule{"vllm-chat": featherweight.RuleAnswerIs, "vllm-base": featherweight.RuleAnswerIs, "custom": featherweight.RuleParenthesized}
	asked := map[string]int{} // records per model; -run may cut them
	for _, e := range selectModels(t, path, []string{"vllm-chat", "vllm-base", "custom"}) {
		t.Run(e.Key, func(t *testing.T) {
			m := openModel(t, e)
			r := fwEvaluateModel(t, e, m, featherweight.Styles, ds.Items, all, check, nil)
			asked[e.Key] = len(r.Records)
			for _, s := range featherweight.Summarize([]featherweight.ModelResult{r}) {
				assert.Equal(t, s.N, s.Correct, "%s %s", e.Key, s.Style)
				assert.Equal(t, map[featherweight.Rule]int{want[e.Key]: s.N}, s.Rules, "%s %s", e.Key, s.Style)
			}
			for _, rec := range r.Records {
				assert.Equal(t, 0.0, rec.SamplingSent["temperature"], "%s %s", e.Key, rec.ID)
				assert.Equal(t, 1.0, rec.SamplingSent["top_p"], "%s %s", e.Key, rec.ID)
				assert.EqualValues(t, 20, rec.SamplingSent["max_tokens"], "%s %s", e.Key, rec.ID)
			}
		})
	}
	// A style runs all 100 items or, when -run cuts it, none.
	for k, n := range asked {
		assert.Contains(t, []int{0, 100, 200}, n, k)
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
