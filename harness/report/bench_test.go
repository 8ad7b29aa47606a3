package report_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/feather-eval/feather/harness/report"
	"github.com/feather-eval/feather/harness/suites/featherbench"
)

// manyRecords builds n Featherbench trials shaped like a large real run:
// 20 models, 10 trials per task, answers of a few hundred characters, tool
// calls, refusals, errors and a two-judge rubric on a tenth of the tasks.
func manyRecords(n int) ([]featherbench.Record, map[string]string) { return manyRecordsOf(n, 20) }

// manyRecordsOf is manyRecords with that many models.
func manyRecordsOf(n, models int) ([]featherbench.Record, map[string]string) {
	r := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("the model answered with a short plan covering costs pacing and safety while keeping to the brief " +
		"chickpeas paris invoice total lineage audit regulator schema column index cache latency budget")
	const trials = 10
	tasks := n / (models * trials)
	cats := map[string]string{}
	out := make([]featherbench.Record, 0, n)
	for i := 0; len(out) < n; i++ {
		// Every model answers every task: trial i of each model is the
		// same task and trial.
		k := (i / models / trials) % max(tasks, 1)
		task := fmt.Sprintf("cat%d-task%04d", k%5, k)
		cats[task] = fmt.Sprintf("cat%d", k%5)
		var text strings.Builder
		for w := 0; w < 40+r.IntN(60); w++ {
			text.WriteString(words[r.IntN(len(words))])
			text.WriteByte(' ')
		}
		cost, lat, wall := 0.0001*float64(1+i%models), 0.2+r.Float64(), 1+3*r.Float64()
		passed := r.IntN(100) < 30+3*(i%models)
		rec := featherbench.Record{
			RunID: "20260704T101530Z", Task: task, TaskHash: "0123456789ab", Model: fmt.Sprintf("model-%02d", i%models),
			Trial: 1 + (i/models)%trials, Timestamp: "2026-07-04T10:15:30Z", Text: text.String(), ToolCalls: []featherbench.ToolCall{},
			Passed: &passed, StopReason: "eos", LatencyS: &lat, WallClockS: &wall, InputTokens: 200, OutputTokens: 120, CostUSD: &cost,
		}
		detail := "all: 2 of 2 checks passed"
		rec.CheckDetail = &detail
		switch {
		case i%97 == 0:
			msg := "503 upstream unavailable"
			rec.Error, rec.Passed, rec.CheckDetail = &msg, nil, nil
		case i%89 == 0:
			cat := "safety"
			rec.Refusal, rec.RefusalCategory, rec.Passed, rec.Text = true, &cat, nil, ""
		case i%13 == 0:
			rec.ToolCalls = []featherbench.ToolCall{{Name: "get_weather", Args: map[string]any{"location": "Paris, France"}}}
		}
		if i%10 == 0 && rec.Error == nil {
			grid := fmt.Sprintf(`[{"judge":"model-00","score":%d,"rationale":"Covers the criteria; a little generic.","raw":"{}"},{"judge":"model-01","score":%d,"rationale":"Concrete and complete.","raw":"{}"}]`, 3+r.IntN(7), 3+r.IntN(7))
			rec.Rubric = json.RawMessage(grid)
			m := 6.5
			rec.RubricMean = &m
		}
		out = append(out, rec)
	}
	return out, cats
}

// BenchmarkReport100k renders the Featherbench summary and review page for
// 100,000 trials; it reports the page size and, for scale, the size of the
// same records as a results JSONL file.
func BenchmarkReport100k(b *testing.B) {
	recs, cats := manyRecords(100_000)
	var jsonl bytes.Buffer
	enc := json.NewEncoder(&jsonl)
	for _, r := range recs {
		enc.Encode(r)
	}
	var page counter
	b.ReportAllocs()
	for b.Loop() {
		page = 0
		md := report.FeatherbenchMarkdown(recs, cats)
		if err := report.FeatherbenchPage(&page, recs, nil, report.PageOptions{}); err != nil {
			b.Fatal(err)
		}
		io.WriteString(io.Discard, md)
	}
	b.ReportMetric(float64(page)/1e6, "html-MB")
	b.ReportMetric(float64(jsonl.Len())/1e6, "jsonl-MB")
}

// counter counts the bytes written to it, like a file would hold them.
type counter int

func (c *counter) Write(p []byte) (int, error) {
	*c += counter(len(p))
	return len(p), nil
}
