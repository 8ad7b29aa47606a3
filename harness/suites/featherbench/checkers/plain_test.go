package checkers

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPlain(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"bold label", "**Total time:** 25 minutes", "Total time: 25 minutes"},
		{"underscore bold", "__Serves:__ 4", "Serves: 4"},
		{"italic user story", "*As a* data engineer, *I want* daily loads, _so that_ reports are fresh", "As a data engineer, I want daily loads, so that reports are fresh"},
		{"snake_case survives", "call load_daily_orders() then set is_active", "call load_daily_orders() then set is_active"},
		{"arithmetic stars survive", "2 * 3 * 4 = 24", "2 * 3 * 4 = 24"},
		{"inline code", "Run `pip install x` first", "Run pip install x first"},
		{"heading", "## Ingredients ##", "Ingredients"},
		{"blockquote", "> **Note:** check the label", "Note: check the label"},
		{"bullets and numbers", "- one\n* two\n+ three\n• four\n1. five\n2) six\n- [x] seven", "one\ntwo\nthree\nfour\nfive\nsix\nseven"},
		{"en dash range", "25–30 minutes", "25-30 minutes"},
		{"spaced em dash range", "£20 — £30", "£20-£30"},
		{"em dash in prose kept", "Grab a coat—it's cold", "Grab a coat—it's cold"},
		{"unicode minus", "−5°C", "-5°C"},
		{"curly quotes", "“Claim today” isn’t real", `"Claim today" isn't real`},
		{"wide spaces", "25\u00a0minutes,\u2009£1\u202f250", "25 minutes, £1 250"},
		{"table", "| Week | Miles |\n|---|---:|\n| **16** | 26.2 |", "Week Miles\n16 26.2"},
		{"table without outer pipes", "Week | Miles\n--- | ---\n16 | 26.2", "Week Miles\n16 26.2"},
		{"table empty cells and br", "| Total | | €1,150<br>incl. tax |", "Total €1,150 incl. tax"},
		{"link", "See [the guide](https://example.com/g) or <https://x.io>", "See the guide (https://example.com/g) or <https://x.io>"},
		{"escapes", `Price: \$40 \*each\*`, "Price: $40 *each*"},
		{"code fence kept verbatim", "Use:\n```python\nx = a_b_c * 2  # **not bold**\n```\nDone", "Use:\nx = a_b_c * 2  # **not bold**\nDone"},
		{"horizontal rule dropped", "Part one\n\n---\n\nPart two", "Part one\n\n\nPart two"},
		{"setext heading", "Method\n------\nStir.", "Method\nStir."},
		{"strikethrough markers", "~~€1,500~~ €1,200", "€1,500 €1,200"},
		{"crlf", "**a**\r\n- b\r\n", "a\nb\n"},
		{"runs of spaces", "a   b\t\tc  ", "a b c"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, Plain(tt.in))
		})
	}
}

func TestLines(t *testing.T) {
	ls := Lines("## Costs\n**Ingredients:**\nFor the sauce:\n- tofu\n| Item | € |\n|---|---|\n| Hotel | 360 |\n```\ncode\n```")
	assert.Len(t, ls, 10)
	assert.Equal(t, 2, ls[0].Heading)
	assert.True(t, ls[1].Label)
	assert.Equal(t, 8, headerKind(ls[2]), "a plain line ending in ':' opens a section")
	assert.True(t, ls[3].Item)
	assert.True(t, ls[4].Header)
	assert.Equal(t, []string{"Item", "€"}, ls[4].Cells)
	assert.True(t, ls[5].Drop)
	assert.False(t, ls[6].Header)
	assert.Equal(t, []string{"Hotel", "360"}, ls[6].Cells)
	assert.True(t, ls[7].Drop)
	assert.True(t, ls[8].Code)
	assert.Equal(t, 9, ls[8].N)
}

func TestQuantities(t *testing.T) {
	tests := []struct {
		in   string
		want []string // describeQty + "@" + cur
	}{
		{"25–30 minutes", []string{"25@", "30@"}}, // a raw en dash is a range only once made plain
		{"25-30 minutes", []string{"25-30@"}},
		{"25 to 30 minutes", []string{"25-30@"}},
		{"£1,250.50 and 80p", []string{"1250.5@£", "0.8@£"}},
		{"€20-€30, 45€, 12 EUR", []string{"20-30@€", "45@€", "12@€"}},
		{"Day 1 - €120", []string{"1@", "120@€"}},
		{"3 nights × €120 = €360", []string{"3@", "120@€", "360@€"}},
		{"15% off, 10pm", []string{"15@", "10@"}},
		{"$5 or 50¢", []string{"5@$", "0.5@$"}},
	}
	for _, tt := range tests {
		var got []string
		for _, q := range quantities(tt.in) {
			got = append(got, describeQty(q)+"@"+q.cur)
		}
		assert.Equal(t, tt.want, got, tt.in)
	}
}
