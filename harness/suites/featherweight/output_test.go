package featherweight

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/feather-eval/feather/harness/lm"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func rec(id, cat string, st Style, correct, parseErr bool) Record {
	r := Record{ID: id, Category: cat, Style: st, Answer: "A", Correct: correct, ParseError: parseErr, Rule: RuleStandaloneLetter, Letter: "B"}
	if correct {
		r.Letter = "A"
	}
	if parseErr {
		r.Letter, r.Rule = "", RuleParseError
	}
	return r
}

// sampleResults: a big chat model with both styles, the smoke model with
// one style, and a model of unknown size.
func sampleResults() []ModelResult {
	return []ModelResult{
		{Model: lm.Info{Key: "big", Name: "Big | Chat", Backend: "onnx", Params: 1_100_000_000, Chat: true}, Records: []Record{
			rec("geo01", "geography", Plain, true, false), rec("his01", "history", Plain, false, true),
			rec("geo01", "geography", Completion, true, false), rec("his01", "history", Completion, true, false),
		}},
		{Model: lm.Info{Key: "api", Backend: "openai"}, Records: []Record{
			rec("geo01", "geography", Plain, false, false), rec("his01", "history", Plain, false, false),
		}},
		{Model: lm.Info{Key: "smoke", Backend: "onnx", Params: 1_234_567, Smoke: true}, Records: []Record{
			rec("geo01", "geography", Completion, true, false),
			{ID: "his01", Category: "history", Style: Completion, Answer: "A", Error: "boom"},
		}},
	}
}

var sampleData = DataInfo{File: "testdata/featherweight/featherweight.jsonl", SHA256: "0123456789abcdef0123", Name: "set", Version: "1.0", Items: 2}

func TestWriteCSV(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, WriteCSV(&b, Summarize(sampleResults())))
	// The smoke model's failed request counts in n as a wrong answer and
	// marks its row incomplete.
	assert.Equal(t, `model,name,backend,params,chat,smoke,style,n,correct,score_pct,ci_low_pct,ci_high_pct,parse_errors,errors,incomplete,geography_pct,history_pct,rule_parenthesized,rule_answer_is,rule_starts_with_letter,rule_choice_text,rule_standalone_letter,rule_first_character,rule_parse_error
big,Big | Chat,onnx,1100000000,true,false,plain,2,1,50.00,9.45,90.55,1,0,false,100.00,0.00,0,0,0,0,1,0,1
big,Big | Chat,onnx,1100000000,true,false,completion,2,2,100.00,34.24,100.00,0,0,false,100.00,100.00,0,0,0,0,2,0,0
api,,openai,,false,false,plain,2,0,0.00,0.00,65.76,0,0,false,0.00,0.00,0,0,0,0,2,0,0
smoke,,onnx,1234567,false,true,completion,2,1,50.00,9.45,90.55,0,1,true,100.00,0.00,0,0,0,0,1,0,0
`, b.String())
}

func TestWriteMarkdown(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, WriteMarkdown(&b, sampleData, Summarize(sampleResults())))
	assert.Equal(t, "# Featherweight v1\n\n"+
		"Questions: set (`featherweight.jsonl`, sha256 0123456789ab…, 2 items). Greedy decoding, at most 20 new tokens.\n"+
		"Each score is the percentage answered correctly (correct/n, n every item asked) with its 95% Wilson interval; a parse error counts as wrong and is also listed on its own. An item whose request failed also counts as wrong, is listed below with its error, and marks its score incomplete.\n\n"+
		"| model | params | plain | 95% CI | parse errors | completion | 95% CI | parse errors |\n"+
		"|---|--:|--:|:-:|--:|--:|:-:|--:|\n"+
		"| Big \\| Chat | 1.1B | 50.0% (1/2) | 9.5–90.5 | 1 | 100.0% (2/2) | 34.2–100.0 | 0 |\n"+
		"| api | — | 0.0% (0/2) | 0.0–65.8 | 0 | — | — | — |\n"+
		"| smoke † | 1.2M | — | — | — | 50.0% (1/2, incomplete) | 9.5–90.5 | 0 |\n"+
		"\n- † feather's built-in smoke model: its numbers measure the harness, not a language model.\n"+
		"- smoke, completion: incomplete: 1 item got no answer because the request failed, counted as wrong: his01 (boom).\n"+
		"\n## Per category\n\nOne question is 100/n points of its category: read small differences with care.\n\n"+
		"| model | style | geography | history |\n|---|---|--:|--:|\n"+
		"| Big \\| Chat | plain | 100% | 0% |\n"+
		"| Big \\| Chat | completion | 100% | 100% |\n"+
		"| api | plain | 0% | 0% |\n"+
		"| smoke | completion | 100% | 0% |\n", b.String())
}

// TestFailedRequestsCountWrong: a failed request is in the denominator as
// a wrong answer, listed with its error, and marks the row incomplete in
// the JSON, the CSV and the Markdown.
func TestFailedRequestsCountWrong(t *testing.T) {
	r := ModelResult{Model: lm.Info{Key: "m"}, Records: []Record{
		rec("geo01", "geography", Plain, true, false),
		{ID: "geo02", Category: "geography", Style: Plain, Answer: "B", Error: "backend: out of memory"},
		rec("his01", "history", Plain, false, true),
		{ID: "his02", Category: "history", Style: Plain, Answer: "C", Error: "429 Too Many Requests | retry later"},
		{ID: "his03", Category: "history", Style: Plain, Answer: "D", Error: "backend: out of memory"},
		rec("his04", "history", Plain, true, false),
	}}
	sums := Summarize([]ModelResult{r})
	require.Len(t, sums, 1)
	s := sums[0]
	assert.Equal(t, 6, s.N, "every item asked is in n")
	assert.Equal(t, 2, s.Correct)
	assert.InDelta(t, 100.0/3, s.ScorePct, 1e-12)
	assert.Equal(t, 1, s.ParseErrors)
	assert.Equal(t, 3, s.Errors)
	assert.True(t, s.Incomplete)
	assert.Equal(t, []FailedItem{{"geo02", "backend: out of memory"}, {"his02", "429 Too Many Requests | retry later"}, {"his03", "backend: out of memory"}}, s.Failed)
	assert.Equal(t, []CategoryScore{{"geography", 2, 1, 50}, {"history", 4, 1, 25}}, s.Categories)
	assert.Equal(t, map[Rule]int{RuleStandaloneLetter: 2, RuleParseError: 1}, s.Rules, "failed requests have no rule")

	js, err := json.Marshal(s)
	require.NoError(t, err)
	assert.Contains(t, string(js), `"errors":3,"incomplete":true,"failed":[{"id":"geo02","error":"backend: out of memory"},`)

	var md bytes.Buffer
	require.NoError(t, WriteMarkdown(&md, sampleData, sums))
	assert.Contains(t, md.String(), "| m | — | 33.3% (2/6, incomplete) | 9.7–70.0 | 1 | — | — | — |\n")
	assert.Contains(t, md.String(), "\n- m, plain: incomplete: 3 items got no answer because the request failed, counted as wrong: "+
		"geo02, his03 (backend: out of memory); his02 (429 Too Many Requests \\| retry later).\n")

	var csv bytes.Buffer
	require.NoError(t, WriteCSV(&csv, sums))
	assert.Contains(t, csv.String(), "\nm,,,,false,false,plain,6,2,33.33,9.68,70.00,1,3,true,50.00,25.00,")

	// A complete row carries no failure list in its JSON.
	js, err = json.Marshal(Summarize([]ModelResult{{Model: lm.Info{Key: "m"}, Records: r.Records[:1]}})[0])
	require.NoError(t, err)
	assert.Contains(t, string(js), `"errors":0,"incomplete":false,"score_pct"`)
}

func TestChartSortedByParams(t *testing.T) {
	c := ChartData(Summarize(sampleResults()))
	assert.Equal(t, []Style{Plain, Completion}, c.Styles)
	var order []string
	for _, m := range c.Models {
		order = append(order, m.Model)
	}
	assert.Equal(t, []string{"smoke", "big", "api"}, order, "known sizes ascending, unknown last")
	// The smoke model's failed request counts as a wrong answer.
	assert.Equal(t, map[Style]ChartBar{Completion: {ScorePct: 50, CILowPct: c.Models[0].Bars[Completion].CILowPct, CIHighPct: c.Models[0].Bars[Completion].CIHighPct, N: 2}}, c.Models[0].Bars)
	assert.InDelta(t, 9.45, c.Models[0].Bars[Completion].CILowPct, 0.01)
	assert.InDelta(t, 90.55, c.Models[0].Bars[Completion].CIHighPct, 0.01)
}

func TestParamsLabel(t *testing.T) {
	for n, want := range map[int64]string{0: "—", 950: "950", 12_000: "12K", 1_234_567: "1.2M", 81_912_576: "82M", 124_439_808: "124M", 1_100_048_384: "1.1B"} {
		assert.Equal(t, want, ParamsLabel(n), n)
	}
}

// TestFilesRoundTrip writes a run's files and regenerates the summaries
// from the per-model files alone, as a report tool would.
func TestFilesRoundTrip(t *testing.T) {
	dir := t.TempDir()
	results := sampleResults()
	for _, r := range results {
		p, err := WriteModelFile(dir, sampleData, r)
		require.NoError(t, err)
		assert.Equal(t, filepath.Join(dir, "models", r.Model.Key+".json"), p)
	}
	require.NoError(t, WriteSummaries(dir, sampleData, results))

	f, err := ReadModelFile(filepath.Join(dir, "models", "big.json"))
	require.NoError(t, err)
	assert.Equal(t, SuiteName, f.Suite)
	assert.Equal(t, sampleData, f.Data)
	assert.Equal(t, SpecDecoding(), f.Decoding)
	assert.Equal(t, results[0], f.Result())
	assert.Equal(t, Summarize(results[:1]), f.Summary)

	data, back, err := ReadModelFiles(dir)
	require.NoError(t, err)
	assert.Equal(t, sampleData, data)
	require.Len(t, back, 3) // file-name order: api, big, smoke
	byKey := map[string]ModelResult{}
	for _, r := range back {
		byKey[r.Model.Key] = r
	}
	var fromFiles []ModelResult // in the run's model order
	for _, r := range results {
		assert.Equal(t, r, byKey[r.Model.Key])
		fromFiles = append(fromFiles, byKey[r.Model.Key])
	}

	regen := t.TempDir()
	require.NoError(t, WriteSummaries(regen, data, fromFiles))
	for _, name := range []string{SummaryJSON, SummaryCSV, SummaryMD, ChartJSON} {
		a, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		b, err := os.ReadFile(filepath.Join(regen, name))
		require.NoError(t, err)
		assert.Equal(t, string(a), string(b), name)
	}

	var sj struct {
		Suite string    `json:"suite"`
		Data  DataInfo  `json:"data"`
		Rows  []Summary `json:"rows"`
	}
	b, err := os.ReadFile(filepath.Join(dir, SummaryJSON))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &sj))
	assert.Equal(t, Summarize(results), sj.Rows)

	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.Equal(t, []string{"chart.json", "models", "summary.csv", "summary.json", "summary.md"}, names, "no temporary files left behind")
}

func TestWriteModelFileBadKey(t *testing.T) {
	_, err := WriteModelFile(t.TempDir(), sampleData, ModelResult{Model: lm.Info{Key: "../x"}})
	assert.EqualError(t, err, `model key "../x" cannot name a results file; use letters, digits, '-', '_' or '.'`)
}

func TestReadModelFileErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"suite": "Featherbench"}`), 0o644))
	_, err := ReadModelFile(bad)
	assert.EqualError(t, err, bad+`: suite is "Featherbench", want "Featherweight v1"`)
	require.NoError(t, os.WriteFile(bad, []byte(`{`), 0o644))
	_, err = ReadModelFile(bad)
	assert.ErrorContains(t, err, bad+": not a Featherweight model results file")
}
