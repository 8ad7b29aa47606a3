package featherbench

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/backends/openai/fakeserver"
	"github.com/feather-eval/feather/harness/lm"
)

// TestRepliesNotStreamedHaveNoLatency: against a server that answers
// "stream": true with a whole JSON completion, a trial's record keeps its
// answer, tokens, cost and wall time, and latency_s is null (not 0, not
// the wall time); the summary's latency median leaves it out and counts it.
func TestRepliesNotStreamedHaveNoLatency(t *testing.T) {
	s := fakeserver.Start(t, func(r fakeserver.Request) fakeserver.Reply {
		return fakeserver.Reply{
			Text: "An apple.", PromptTokens: 4, CompletionTokens: 3, Cost: fakeserver.USD(0.001),
			// plain never streams; mixed streams one of its two trials
			// (the second to arrive repeats the body: Attempt 1).
			NoStream: r.Model == "vendor/plain" || r.Model == "vendor/mixed" && r.Attempt == 1,
		}
	})
	var models []Model
	for _, key := range []string{"mixed", "plain", "streamed"} {
		m, err := catalog.Open(context.Background(), s.Entry(key, "vendor/"+key))
		require.NoError(t, err)
		models = append(models, Model{Key: key, Generator: m.(lm.Generator)})
	}
	path := filepath.Join(t.TempDir(), "results.jsonl")
	r := &Runner{RunID: "r1", Trials: 2, Concurrency: 2, Out: NewWriter(path)}
	task := Task{ID: "realworld-fruit", Category: "realworld", Prompt: "Name a fruit.", Hash: "h"}
	_, err := r.Run(context.Background(), models, []Task{task})
	require.NoError(t, err)
	require.NoError(t, r.Out.Close())

	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	records, err := ReadRecords(path)
	require.NoError(t, err)
	require.Len(t, records, 6)
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	timed := map[string]int{}
	var mixedLatency float64
	for i, rec := range records {
		require.Nil(t, rec.Error, rec.Model)
		assert.Equal(t, "An apple.", rec.Text)
		assert.Equal(t, [2]int{4, 3}, [2]int{rec.InputTokens, rec.OutputTokens})
		require.NotNil(t, rec.CostUSD)
		assert.Equal(t, 0.001, *rec.CostUSD)
		require.NotNil(t, rec.WallClockS)
		assert.Positive(t, *rec.WallClockS)
		if rec.LatencyS == nil {
			assert.Contains(t, lines[i], `"latency_s":null,`, "the file says unavailable")
			continue
		}
		assert.Positive(t, *rec.LatencyS)
		timed[rec.Model]++
		if rec.Model == "mixed" {
			mixedLatency = *rec.LatencyS
		}
	}
	assert.Equal(t, map[string]int{"mixed": 1, "streamed": 2}, timed, "trials with a time to first token")

	sum := Summarize(records, nil)
	require.Len(t, sum.Models, 3)
	mixed, plain, streamed := sum.Models[0], sum.Models[1], sum.Models[2]
	assert.Equal(t, [3]int{1, 2, 0}, [3]int{mixed.NoLatency, plain.NoLatency, streamed.NoLatency})
	require.NotNil(t, mixed.MedianLatencyS)
	assert.Equal(t, mixedLatency, *mixed.MedianLatencyS, "the median of the one timed trial")
	assert.Nil(t, plain.MedianLatencyS)
	assert.Equal(t, FormatSeconds(mixed.MedianLatencyS)+" (1 n/a)", mixed.LatencyCell())
	assert.Equal(t, "—", plain.LatencyCell())
	assert.Equal(t, FormatSeconds(streamed.MedianLatencyS), streamed.LatencyCell())
	md := sum.Markdown()
	assert.Contains(t, md, "| mixed | — | 0 / 0 | 0 | 0 | 2 | "+mixed.LatencyCell()+" | ")
	assert.Contains(t, md, "| plain | — | 0 / 0 | 0 | 0 | 2 | — | ")
	assert.Contains(t, md, ` "(N n/a)" after a median latency counts the model's trials that have no time to first token `+
		"(a server that answered without streaming): the median leaves them out.")
}

func TestLatencyCell(t *testing.T) {
	tests := []struct {
		name   string
		lat    []*float64 // each trial's latency_s
		errors int        // error trials, no latency: not counted
		want   string
		noLat  int
	}{
		{"all timed", []*float64{ptr(0.2), ptr(0.4)}, 0, "0.30", 0},
		{"some without", []*float64{ptr(0.2), nil, ptr(0.6), nil}, 1, "0.40 (2 n/a)", 2},
		{"none timed", []*float64{nil, nil}, 1, "—", 2},
		{"only errors", nil, 2, "—", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var records []Record
			for i, lat := range tt.lat {
				r := rec("r", "t", "h", "m", i+1, nil)
				r.LatencyS = lat
				records = append(records, r)
			}
			for i := range tt.errors {
				r := rec("r", "t", "h", "m", len(tt.lat)+i+1, nil)
				r.Error = ptr("HTTP 503 Service Unavailable")
				records = append(records, r)
			}
			m := Summarize(records, nil).Models[0]
			assert.Equal(t, tt.want, m.LatencyCell())
			assert.Equal(t, tt.noLat, m.NoLatency)
			assert.Equal(t, tt.want != "—" && tt.noLat > 0, strings.Contains(Summarize(records, nil).Markdown(), `"(N n/a)"`),
				"the note comes with a cell that needs it")
		})
	}
}
