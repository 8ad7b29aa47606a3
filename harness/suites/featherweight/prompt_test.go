package featherweight

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/internal/testenv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the prompt golden files from the current code")

// goldenDir holds byte-exact prompts for item geo01 of the shipped set.
func goldenDir() string {
	return filepath.Join(testenv.RepoRoot(), "testdata", "featherweight", "golden")
}

func item(t testing.TB, ds *Dataset, id string) Item {
	t.Helper()
	for _, it := range ds.Items {
		if it.ID == id {
			return it
		}
	}
	t.Fatalf("no item %s", id)
	return Item{}
}

// TestPromptGolden compares both templates with golden files typed from the
// spec's "Two formats" section.
func TestPromptGolden(t *testing.T) {
	geo01 := item(t, shippedData(t), "geo01")
	for _, st := range Styles {
		t.Run(string(st), func(t *testing.T) {
			p := filepath.Join(goldenDir(), "geo01-"+string(st)+".txt")
			got := Prompt(st, geo01)
			if *update {
				require.NoError(t, os.WriteFile(p, []byte(got), 0o644))
			}
			want, err := os.ReadFile(p)
			require.NoError(t, err)
			assert.Equal(t, string(want), got)
		})
	}
}

func TestPromptTemplates(t *testing.T) {
	it := Item{Question: "What is the capital of France?", Choices: [4]string{"Paris", "Berlin", "Madrid", "Rome"}}
	assert.Equal(t, "What is the capital of France?\n\nA) Paris\nB) Berlin\nC) Madrid\nD) Rome\n\nAnswer with just the letter of the correct choice.", Prompt(Plain, it))
	assert.Equal(t, "Question: What is the capital of France?\nA) Paris\nB) Berlin\nC) Madrid\nD) Rome\nAnswer:", Prompt(Completion, it))
}

func TestRequest(t *testing.T) {
	it := Item{Question: "Q?", Choices: [4]string{"w", "x", "y", "z"}}
	zero, one, seed := 0.0, 1.0, 1234
	greedy := lm.Sampling{Temperature: &zero, TopP: &one, Seed: &seed}
	for _, st := range Styles {
		base := Request(st, it, false)
		assert.Equal(t, lm.GenerateRequest{Prompt: Prompt(st, it), MaxNewTokens: 20, Sampling: greedy}, base)
		chat := Request(st, it, true)
		assert.Equal(t, lm.GenerateRequest{Messages: []lm.Message{{Role: "user", Content: Prompt(st, it)}}, MaxNewTokens: 20, Sampling: greedy}, chat)
	}
}

func TestParseStyles(t *testing.T) {
	tests := []struct {
		in   string
		want []Style
		err  string
	}{
		{"both", []Style{Plain, Completion}, ""},
		{"", []Style{Plain, Completion}, ""},
		{"plain", []Style{Plain}, ""},
		{" Completion ", []Style{Completion}, ""},
		{"chat", nil, `prompt style "chat": want plain, completion or both`},
	}
	for _, tt := range tests {
		got, err := ParseStyles(tt.in)
		if tt.err != "" {
			assert.EqualError(t, err, tt.err)
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, tt.want, got)
	}
}
