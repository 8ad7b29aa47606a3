package onnx

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSharePrefixes(t *testing.T) {
	seq := func(from, n int) []int {
		out := make([]int, n)
		for i := range out {
			out[i] = from + i
		}
		return out
	}
	cat := func(parts ...[]int) []int {
		var out []int
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	// row is a group's context, whose one target reads its last position.
	row := func(tokens []int) stageRow {
		return stageRow{tokens: tokens, targets: []target{{pos: len(tokens) - 1}}}
	}
	shared := seq(100, 10)
	tests := []struct {
		name   string
		rows   []stageRow
		budget int
		want   []int // prefix lengths, in the rows' sorted order
		starts []int // each row's start afterwards
	}{
		{"three rows share 10 tokens, one shares nothing",
			[]stageRow{row(cat(shared, seq(1, 3))), row(seq(500, 20)), row(cat(shared, seq(7, 5))), row(cat(shared, seq(3, 2)))},
			1000, []int{10}, []int{10, 0, 10, 10}},
		{"two rows save 10 tokens, less than a call costs",
			[]stageRow{row(cat(shared, seq(1, 3))), row(cat(shared, seq(7, 5)))},
			1000, nil, []int{0, 0}},
		{"a run grows only while it saves more: 2×20 shared, then 5 with a third row",
			[]stageRow{row(cat(seq(100, 20), seq(1, 4))), row(cat(seq(100, 20), seq(9, 4))), row(cat(seq(100, 5), seq(50, 30)))},
			1000, []int{20}, []int{20, 20, 0}},
		{"a prefix stops before a row's first target",
			[]stageRow{
				row(cat(shared, seq(1, 3))), row(cat(shared, seq(7, 5))),
				{tokens: cat(shared, seq(30, 4)), targets: []target{{pos: 8}, {pos: 13}}}, // a sequence alone, scored from position 8
			},
			1000, []int{8}, []int{8, 8, 8}},
		{"prefixes shorter than the minimum are not shared",
			[]stageRow{row(cat(seq(100, 3), seq(1, 9))), row(cat(seq(100, 3), seq(20, 9))), row(cat(seq(100, 3), seq(40, 9))),
				row(cat(seq(100, 3), seq(60, 9))), row(cat(seq(100, 3), seq(80, 9))), row(cat(seq(100, 3), seq(90, 9))),
				row(cat(seq(100, 3), seq(200, 9))), row(cat(seq(100, 3), seq(300, 9))), row(cat(seq(100, 3), seq(400, 9)))},
			1000, nil, []int{0, 0, 0, 0, 0, 0, 0, 0, 0}},
		{"within the budget, the runs that save most: 3×12 before 2×20",
			[]stageRow{row(cat(seq(100, 20), seq(1, 4))), row(cat(seq(100, 20), seq(9, 4))),
				row(cat(seq(300, 12), seq(1, 4))), row(cat(seq(300, 12), seq(9, 4))), row(cat(seq(300, 12), seq(20, 4)))},
			25, []int{12}, []int{0, 0, 12, 12, 12}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := make([]stageRow, len(tt.rows))
			for i, r := range tt.rows {
				before[i] = r
				before[i].targets = append([]target(nil), r.targets...)
			}
			got := sharePrefixes(tt.rows, tt.budget)
			var lens []int
			for _, p := range got {
				lens = append(lens, len(p.tokens))
			}
			assert.Equal(t, tt.want, lens)
			for i, r := range tt.rows {
				assert.Equal(t, tt.starts[i], r.start, "row %d", i)
				// The row and its prefix are the tokens it had; targets move
				// with the tokens.
				full := r.tokens
				if r.shared != nil {
					full = cat(r.shared.tokens, r.tokens)
				}
				assert.Equal(t, before[i].tokens, full, "row %d", i)
				for k, tg := range r.targets {
					assert.Equal(t, before[i].targets[k].pos-r.start, tg.pos, "row %d target %d", i, k)
				}
			}
		})
	}
}
