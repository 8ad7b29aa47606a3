package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestUnknownCommand(t *testing.T) {
	var out, errb bytes.Buffer
	code := dispatch([]string{"frobnicate"}, strings.NewReader(""), &out, &errb)
	assert.Equal(t, 2, code)
	assert.True(t, strings.HasPrefix(errb.String(), "feather: unknown command \"frobnicate\"\n\nusage: feather <command>"))
}

func TestHelpListsCommands(t *testing.T) {
	var out bytes.Buffer
	assert.Equal(t, 0, dispatch(nil, strings.NewReader(""), &out, &out))
	for name := range commands {
		assert.Contains(t, out.String(), "  "+name)
	}
}

// TestEveryCommandHelp: every command's -h exits 0 and prints, on
// stderr, the same shape: its usage line, its summary from the command
// list as a sentence, then its flags.
func TestEveryCommandHelp(t *testing.T) {
	usage := map[string]string{
		"chat":        "feather chat --model DIR [--generation-prompt] [--tools FILE] [--template NAME] < messages.json",
		"check":       "feather check TASK.json ANSWER.txt [--tool-calls calls.json] [--allow-unisolated]",
		"compare":     "feather compare A B [RUN_DIR...] [--model KEY] [--out FILE] [--fail-on-regression]",
		"generate":    "feather generate --model DIR|FILE.gguf [--chat] [--max-new-tokens N] [--json] PROMPT",
		"leaderboard": "feather leaderboard RUN_DIR... [--out DIR] [--tasks DIR]",
		"list":        "feather list models [-catalog FILE] | tasks [-tasks DIR] | microbench [-microbench DIR]",
		"pull":        "feather pull [flags] ORG/NAME[@REVISION]",
		"report":      "feather report RUN_DIR... [--events test-events.json] [--junit junit.xml] [--out DIR] [--tasks DIR]",
		"score":       "feather score --model DIR|FILE.gguf [--max-length N] < requests.jsonl",
		"tokenize":    "feather tokenize --model DIR|FILE.gguf [--special=false] < strings.json",
		"validate":    "feather validate [-catalog FILE]... [-tasks DIR] [-featherbench] [-featherweight FILE] [-microbench DIR] [-tokenizer DIR]",
	}
	for name := range commands {
		assert.Contains(t, usage, name, "a new command's usage line belongs in this table")
	}
	for name, line := range usage {
		t.Run(name, func(t *testing.T) {
			summary := commands[name].summary
			head := "usage: " + line + "\n\n" + strings.ToUpper(summary[:1]) + summary[1:] + ".\n"
			for _, args := range [][]string{{name, "-h"}, {name, "--help"}} {
				var out, errb bytes.Buffer
				assert.Equal(t, 0, dispatch(args, strings.NewReader(""), &out, &errb), "%q", args)
				assert.Empty(t, out.String(), "%q: help goes to stderr", args)
				assert.True(t, strings.HasPrefix(errb.String(), head), "%q prints\n%s", args, errb.String())
				assert.Regexp(t, `\n\nflags:\n  -[a-z]`, errb.String(), "%q lists the flags", args)
			}
		})
	}
	// list's help is there after the list's name too.
	var out, errb bytes.Buffer
	assert.Equal(t, 0, dispatch([]string{"list", "tasks", "-h"}, strings.NewReader(""), &out, &errb))
	assert.True(t, strings.HasPrefix(errb.String(), "usage: "+usage["list"]+"\n"), errb.String())
}

// The help says the suites are go tests, with the commands that run them
// and where their results land.
func TestHelpSaysHowToRunTheSuites(t *testing.T) {
	for _, args := range [][]string{nil, {"-h"}, {"--help"}, {"help"}} {
		var out bytes.Buffer
		assert.Equal(t, 0, dispatch(args, strings.NewReader(""), &out, &out), "%q", args)
		for _, want := range []string{
			"The suites run under go test",
			"make bench",
			"go test -run TestFeatherweight .",
			"go test -run TestMicrobench .",
			"go test -run TestFeatherbench .",
			"-models=",
			"results/latest",
		} {
			assert.Contains(t, out.String(), want, "%q", args)
		}
	}
}
