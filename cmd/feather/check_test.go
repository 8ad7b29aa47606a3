package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
		return p
	}
	veggie := write("realworld-veggie.json", `{"prompt": "A vegetarian dinner?", "checker": {"type": "all", "checks": [
		{"type": "contains", "value": "chickpea", "label": "uses chickpeas"},
		{"type": "not_contains", "values": ["chicken", "bacon"], "whole_word": true, "label": "vegetarian"}]}}`)
	weather := write("tool-use-weather.json", `{"prompt": "Weather in Paris?", "tools": [{"name": "get_weather"}],
		"checker": {"type": "tool_called", "tool": "get_weather", "args": {"location": "Paris"}}}`)
	good := write("good.txt", "Chickpea curry.")
	bad := write("bad.txt", "Chicken curry.")
	paris := write("paris.json", `[{"name": "get_weather", "args": {"location": "Paris, France"}}]`)
	rawArgs := write("raw.json", `[{"name": "get_weather", "args": "{\"location\": \"Paris\"}"}]`)
	london := write("london.json", `[{"name": "get_weather", "args": {"location": "London"}}]`)

	tests := []struct {
		name   string
		args   []string
		stdin  string
		code   int
		stdout string
		stderr string
	}{
		{"good answer", []string{veggie, good}, "", 0, "PASS: all 2 checks passed\n", ""},
		{"bad answer", []string{veggie, bad}, "", 1, `FAIL: 2 of 2 checks failed: uses chickpeas: missing "chickpea"; vegetarian: found forbidden "Chicken" on line 1 (in "Chicken curry.")` + "\n", ""},
		{"answer on stdin", []string{veggie, "-"}, "chickpea stew", 0, "PASS: all 2 checks passed\n", ""},
		{"tool calls", []string{weather, good, "--tool-calls", paris}, "", 0, `PASS: called get_weather({"location":"Paris, France"})` + "\n", ""},
		{"flag first, raw arguments string", []string{"--tool-calls", rawArgs, weather, good}, "", 0, `PASS: called get_weather({"location":"Paris"})` + "\n", ""},
		{"wrong tool args", []string{weather, good, "--tool-calls", london}, "", 1, `FAIL: get_weather called, but the arguments did not match: get_weather({"location":"London"}): location is "London", want it to contain "Paris"` + "\n", ""},
		{"no tool calls", []string{weather, good}, "", 1, "FAIL: get_weather not called (calls: none)\n", ""},
		{"missing answer", []string{veggie, filepath.Join(dir, "nope.txt")}, "", 2, "", "feather check: reading the answer: open " + filepath.Join(dir, "nope.txt") + ": no such file or directory\n"},
		{"bad task", []string{write("coding-x.json", `{"prompt": "x", "checker": {"type": "regex", "pattern": "(a"}}`), good}, "", 2, "",
			"feather check: " + filepath.Join(dir, "coding-x.json") + ": checker.pattern: invalid regex: error parsing regexp: missing closing ) in `(a`\n"},
		{"task without checker", []string{write("notes.json", `{"prompt": "x"}`), good}, "", 2, "",
			"feather check: " + filepath.Join(dir, "notes.json") + " has no checker: there is nothing to check (add a \"checker\")\n"},
		{"one call, not a list", []string{weather, good, "--tool-calls", write("calls.json", `{"name": "get_weather"}`)}, "", 2, "",
			"feather check: " + filepath.Join(dir, "calls.json") + ` holds an object, not a list of calls (for one call, put it in a list: [ {...} ]); write a JSON list such as [{"name": "get_weather", "args": {"location": "Paris"}}]` + "\n"},
		{"a string, not a list", []string{weather, good, "--tool-calls", write("str.json", `"get_weather"`)}, "", 2, "",
			"feather check: " + filepath.Join(dir, "str.json") + ` holds a string, not a list of calls; write a JSON list such as [{"name": "get_weather", "args": {"location": "Paris"}}]` + "\n"},
		{"a list of names", []string{weather, good, "--tool-calls", write("names.json", `["get_weather"]`)}, "", 2, "",
			"feather check: " + filepath.Join(dir, "names.json") + `: call [0] is a string; each call is an object such as {"name": "get_weather", "args": {"location": "Paris"}}` + "\n"},
		{"the API's field names", []string{weather, good, "--tool-calls", write("api.json", `[{"name": "get_weather", "arguments": "{}"}]`)}, "", 2, "",
			"feather check: " + filepath.Join(dir, "api.json") + `: call [0] has the field "arguments"; a call has only "name" and "args" (the arguments object)` + "\n"},
		{"two unknown fields name the first in order", []string{weather, good, "--tool-calls", write("fn.json", `[{"name": "get_weather", "type": "function", "arguments": "{}"}]`)}, "", 2, "",
			"feather check: " + filepath.Join(dir, "fn.json") + `: call [0] has the field "arguments"; a call has only "name" and "args" (the arguments object)` + "\n"},
		{"broken JSON", []string{weather, good, "--tool-calls", write("broken.json", "[{\"name\": \"get_weather\",\n}]")}, "", 2, "",
			"feather check: " + filepath.Join(dir, "broken.json") + `:2:1: invalid JSON: invalid character '}' looking for beginning of object key string; a tool-calls file is a JSON list such as [{"name": "get_weather", "args": {"location": "Paris"}}]` + "\n"},
		{"args of the wrong kind", []string{weather, good, "--tool-calls", write("args.json", `[{"name": "get_weather", "args": ["Paris"]}]`)}, "", 2, "",
			"feather check: " + filepath.Join(dir, "args.json") + `: [0].args is a list; want an object (or the arguments string an API returned)` + "\n"},
		{"call without name", []string{weather, good, "--tool-calls", write("noname.json", `[{"args": {}}]`)}, "", 2, "",
			"feather check: " + filepath.Join(dir, "noname.json") + ": [0].name: want the tool's name as a string\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := dispatch(append([]string{"check"}, tt.args...), strings.NewReader(tt.stdin), &stdout, &stderr)
			assert.Equal(t, tt.code, code)
			assert.Equal(t, tt.stdout, stdout.String())
			assert.Equal(t, tt.stderr, stderr.String())
		})
	}
}

func TestCheckUsage(t *testing.T) {
	var stdout, stderr bytes.Buffer
	assert.Equal(t, 2, dispatch([]string{"check", "only-one.json"}, strings.NewReader(""), &stdout, &stderr))
	assert.Contains(t, stderr.String(), "usage: feather check TASK.json ANSWER.txt [--tool-calls calls.json]")
	assert.Contains(t, stderr.String(), "feather check: want a task file and an answer file, got 1 argument(s)\n")
	stderr.Reset()
	assert.Equal(t, 0, dispatch([]string{"check", "-h"}, strings.NewReader(""), &stdout, &stderr))
}
