package checkers

import (
	"strings"
	"testing"
)

const (
	lisbonOver = "## Lisbon, 4 days (budget €1,200)\n\n- Flights: €320 return\n- Hotel: 3 nights × €140 = €420\n- Food: €60 a day × 4 = €240\n- Oceanário tickets: €25–€30\n- Sintra day trip: €280\n\n**Total: €1,150** — comfortably under budget!\n"
	lisbonGood = "| Item | Cost |\n|---|---|\n| Flights | €320 |\n| Hotel (3 nights) | €420 |\n| Food | €240 |\n| Oceanário | €30 |\n| **Total** | **€1,010** |\n\nThat leaves €190 of the €1,200 budget spare.\n"
	prosePlan  = "Day 2 starts at the castle. Tickets are €15 per adult and free for under-12s, so €30. Lunch at a tasca in Alfama runs about €40. Dinner near Rossio is about €45.\nThe tram is €3 each, so €6 for two.\n\n**Total:**\n€121\n"
	shopping   = "- Milk 2 pints: £1.45\n- Bread: 95p\n- Eggs (6): £2.10\n\nTotal: £4.50\n"
)

func TestItemisedTotal(t *testing.T) {
	runCases(t, []checkCase{
		{"items over budget, stated total under", `{"type": "itemised_total", "currency": "€", "max": 1200}`, lisbonOver, nil, false,
			`items add up to €1,290 (5 lines: line 3 €320, line 4 €420, line 5 €240, line 6 €30, line 7 €280); stated total €1,150 on line 9: the items are €90 over the maximum of €1,200; the stated total is €140 below the items' sum (tolerance €64.50)`},
		{"a loose tolerance still fails the budget", `{"type": "itemised_total", "currency": "€", "max": 1200, "rel_tol": 0.2}`, lisbonOver, nil, false,
			`items add up to €1,290 (5 lines: line 3 €320, line 4 €420, line 5 €240, line 6 €30, line 7 €280); stated total €1,150 on line 9: the items are €90 over the maximum of €1,200`},
		{"a table within budget", `{"type": "itemised_total", "currency": "EUR", "max": 1200, "total_required": true}`, lisbonGood, nil, true,
			`items add up to €1,010 (4 lines: line 3 €320, line 4 €420, line 5 €240, line 6 €30); stated total €1,010 on line 7; at most €1,200`},
		{"pence add up", `{"type": "itemised_total", "currency": "£", "max": 5}`, shopping, nil, true,
			`items add up to £4.50 (3 lines: line 1 £1.45, line 2 £0.95, line 3 £2.10); stated total £4.50 on line 5; at most £5`},
		{"a wrong stated total", `{"type": "itemised_total", "currency": "£", "max": 10, "rel_tol": 0}`, "- Milk: £1.45\n- Eggs: £2.10\n\nTotal: £80.90\n", nil, false,
			`items add up to £3.55 (2 lines: line 1 £1.45, line 2 £2.10); stated total £80.90 on line 4: the stated total is not at most £10; the stated total is £77.35 above the items' sum (tolerance £1)`},
		{"item lines chosen by pattern", `{"type": "itemised_total", "items": "^(?:Flights|Hotel)", "max": 700}`, lisbonOver, nil, false,
			`items add up to €740 (2 lines: line 3 €320, line 4 €420); stated total €1,150 on line 9: the items are €40 over the maximum of €700; the stated total is not at most €700; the stated total is €410 above the items' sum (tolerance €37)`},
		{"prose: one item per sentence", `{"type": "itemised_total", "currency": "€", "max": 150, "per": "sentence"}`, prosePlan, nil, true,
			`items add up to €121 (4 lines: line 1 €30, line 1 €40, line 1 €45, line 2 €6); stated total €121 on line 4; at most €150`},
		{"prose read per line misses items", `{"type": "itemised_total", "currency": "€", "max": 150}`, prosePlan, nil, false,
			`items add up to €51 (2 lines: line 1 €45, line 2 €6); stated total €121 on line 4: the stated total is €70 above the items' sum (tolerance €2.55)`},
		{"a stated range counts its top", `{"type": "itemised_total", "currency": "€", "max": 450}`, "- Castle: €30\n- Lunch: €35–€40\n\n**Trip total: €383–€444**", nil, false,
			`items add up to €70 (2 lines: line 1 €30, line 2 €40); stated total €444 on line 4: the stated total is €374 above the items' sum (tolerance €3.50)`},
		{"a discount takes off", `{"type": "itemised_total", "currency": "£", "max": 10}`, "- Zoo tickets: £12\n- Member discount: -£4\n\nTotal: £8", nil, true,
			`items add up to £8 (2 lines: line 1 £12, line 2 -£4); stated total £8 on line 4; at most £10`},
		{"no items", `{"type": "itemised_total", "currency": "€", "max": 1200}`, "A lovely trip for about 1,000 euros.", nil, false,
			`no item lines with a € amount`},
		{"total required", `{"type": "itemised_total", "total_required": true}`, "- Milk: £1.45", nil, false,
			`items add up to £1.45 (1 line: line 1 £1.45): no stated total (a line matching /(?i)\btotal\b/ with an amount)`},
	})
}

// Plans written the way people write them: a worked sum of the items, day
// subtotals, unit prices with what they come to, the budget restated.
const (
	dateNight = "(Train fares aren't part of the £80.)\n\n- 17:15 Drink at the pub: *~£12*\n- 18:45 Dinner: *~£38*\n- 20:30 Cocktails: *~£24*\n- 22:00 Walk back: *£0*\n\nCosts: £12 + £38 + £24 = £74, leaving about £6 spare.\n\nTotal: £74 for two"
	daysPlan  = "## Day 1\n- Breakfast: €12\n- Castle, ~€15 per adult, child free: €30\n- Dinner: €45\n- *Day 1: €87*\n\n## Day 2\n- Lunch: €35\n- Oceanário (adults €25, child €15): €65\n- *Day 2: €100*\n\n€87 + €100 = €187, within your €450.\n\nTrip total: €187"
	proseDays = "Day 1: breakfast (about €12), then 24-hour passes — roughly €7 each, so €21 — and lunch around €35, and dinner about €48. Day 1 comes to €116.\n\nTrip total: €116"
)

func TestItemisedReading(t *testing.T) {
	const dateCheck = `{"type": "itemised_total", "currency": "£", "total": "(?i)^\\W*total\\b", "max": 80}`
	runCases(t, []checkCase{
		{"a worked sum restates the items, the budget is not spend", dateCheck, dateNight, nil, true,
			`items add up to £74 (1 line: line 8 £74 (subtotal of 3)); stated total £74 on line 10; at most £80`},
		{"a worked sum that does not add up", dateCheck, strings.Replace(dateNight, "= £74", "= £64", 1), nil, false,
			`items add up to £138 (4 lines: line 3 £12, line 4 £38, line 5 £24, line 8 £64); stated total £74 on line 10: line 8 writes £12 + £38 + £24 = £64, but that adds up to £74; the items are £58 over the maximum of £80; the stated total is £64 below the items' sum (tolerance £6.90)`},
		{"day subtotals and a sum of them", `{"type": "itemised_total", "currency": "€", "total": "(?i)trip total", "max": 450, "per": "sentence"}`, daysPlan, nil, true,
			`items add up to €187 (1 line: line 12 €187 (subtotal of 5)); stated total €187 on line 14; at most €450`},
		{"day subtotals, read per line", `{"type": "itemised_total", "currency": "€", "total": "(?i)trip total", "max": 450}`, daysPlan, nil, true,
			`items add up to €187 (1 line: line 12 €187 (subtotal of 5)); stated total €187 on line 14; at most €450`},
		{"prose: one item a clause, unit prices with what they come to", `{"type": "itemised_total", "currency": "€", "total": "(?i)trip total", "max": 450, "per": "sentence"}`, proseDays, nil, true,
			`items add up to €116 (1 line: line 1 €116 (subtotal of 4)); stated total €116 on line 3; at most €450`},
		{"a breakdown's result is an item, not a subtotal", `{"type": "itemised_total", "currency": "€", "max": 450, "per": "sentence"}`,
			"- Lunch: €30\n- Dinner: €35\n- Oceanário: adults €25, child €15 = €65\n\nTotal: €130", nil, true,
			`items add up to €130 (3 lines: line 1 €30, line 2 €35, line 3 €65); stated total €130 on line 5; at most €450`},
	})
}
