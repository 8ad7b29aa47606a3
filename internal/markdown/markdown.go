// Package markdown holds what the Markdown writers (reports, leaderboards,
// suite summaries) share about the format itself.
package markdown

import "strings"

var cellReplacer = strings.NewReplacer("|", `\|`, "\n", " ")

// Cell makes s safe inside one cell of a Markdown table: a '|' is escaped
// so it does not end the cell, a newline becomes a space so it does not
// end the row.
func Cell(s string) string { return cellReplacer.Replace(s) }
