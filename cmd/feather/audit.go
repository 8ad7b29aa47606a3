package main

import (
	"fmt"
	"io"

	"github.com/feather-eval/feather/harness/backends/onnx/tokenizer"
	"github.com/feather-eval/feather/harness/suites/audit"
)

// validateTokenizer loads the -tokenizer folder for the audit's
// token-length columns; "" leaves them out.
func validateTokenizer(dir string) (audit.Tokenizer, error) {
	if dir == "" {
		return nil, nil
	}
	tok, err := tokenizer.Load(dir)
	if err != nil {
		return nil, fmt.Errorf("-tokenizer %s: %w", dir, err)
	}
	return tok, nil
}

// printAudit writes a loaded item set's shortcut audit under its validate
// line, so authors see which cue would give their answers away. A cell
// over the threshold is reported, not failed: a set can be valid and still
// need rewording.
func printAudit(w io.Writer, tab *audit.Table) {
	fmt.Fprintf(w, "\n%s\n", tab.Markdown())
}
