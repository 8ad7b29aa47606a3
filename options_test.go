package feather_test

import (
	"os"
	"strings"
	"testing"

	"github.com/feather-eval/feather/harness/run/options"
)

// TestReadmeDocumentsEveryOption keeps the README's option table true: every
// registered option must appear there with its flag and its variable.
func TestReadmeDocumentsEveryOption(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range options.Default.All() {
		row := "| `-" + o.Flag + "` | `" + o.Env + "` |"
		if !strings.Contains(string(readme), row) {
			t.Errorf("README.md has no option row starting %q; add one with its default and meaning", row)
		}
	}
}
