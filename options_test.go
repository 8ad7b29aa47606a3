package feather_test

import (
	"os"
	"strings"
	"testing"

	"github.com/feather-eval/feather/harness/run/options"
)

// TestDocsOptionsListsEveryOption keeps docs/options.md's option table true:
// every registered option must appear there with its flag and its variable.
func TestDocsOptionsListsEveryOption(t *testing.T) {
	page, err := os.ReadFile("docs/options.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range options.Default.All() {
		row := "| `-" + o.Flag + "` | `" + o.Env + "` |"
		if !strings.Contains(string(page), row) {
			t.Errorf("docs/options.md has no option row starting %q; add one with its default and meaning", row)
		}
	}
}
