package report_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/report"
	"github.com/feather-eval/feather/harness/suites/featherbench"
)

// latencyRecords: "mixed" has two timed trials and one without a time to
// first token (a server that did not stream); "plain" has none at all.
func latencyRecords() []featherbench.Record {
	lat := func(v float64) *float64 { return &v }
	return []featherbench.Record{
		{RunID: runA, Task: "t", Model: "mixed", Trial: 1, LatencyS: lat(0.2)},
		{RunID: runA, Task: "t", Model: "mixed", Trial: 2, LatencyS: lat(0.4)},
		{RunID: runA, Task: "t", Model: "mixed", Trial: 3},
		{RunID: runA, Task: "t", Model: "plain", Trial: 1},
	}
}

// TestFeatherbenchLatencyLeavesOutUntimedTrials: the page's and the
// Markdown's median latency leave out trials without one and say how many.
func TestFeatherbenchLatencyLeavesOutUntimedTrials(t *testing.T) {
	recs := latencyRecords()
	md := report.FeatherbenchMarkdown(recs, nil)
	assert.Contains(t, md, "| mixed | — | 0 / 0 | 0 | 0 | 3 | 0.30 (1 n/a) | ")
	assert.Contains(t, md, "| plain | — | 0 / 0 | 0 | 0 | 1 | — | ")
	var page strings.Builder
	require.NoError(t, report.FeatherbenchPage(&page, recs, nil, report.PageOptions{}))
	assert.Contains(t, page.String(), `<td class="num">0.30 s (1 n/a)</td>`)
	assert.Contains(t, page.String(), `medians are over trials without errors. "(N n/a)" after a median latency counts the model's trials that have no time to first token (a server that answered without streaming): the median leaves them out.`)

	page.Reset()
	require.NoError(t, report.FeatherbenchPage(&page, recs[:2], nil, report.PageOptions{}))
	assert.Contains(t, page.String(), `<td class="num">0.30 s</td>`)
	assert.NotContains(t, page.String(), "(N n/a)", "no note without a cell that needs it")
}
