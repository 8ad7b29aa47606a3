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

func TestEveryCommandHelpExitsZero(t *testing.T) {
	for name := range commands {
		t.Run(name, func(t *testing.T) {
			var out, errb bytes.Buffer
			assert.Equal(t, 0, dispatch([]string{name, "-h"}, strings.NewReader(""), &out, &errb), errb.String())
			assert.Contains(t, strings.ToLower(errb.String()), "usage", "-h prints the usage")
		})
	}
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
