package feather_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// docCommand is one command a documentation page shows in a sh or yaml
// code block.
type docCommand struct {
	page, line string // where it is written, for messages
	cmd        string // the command as written, continuation lines joined
	env        []string
	// needs is what the command's comment says it needs beyond a fresh
	// clone ("needs …", "after …"); such a command is not run.
	needs string
	exit  int // the exit status the comment promises ("exit 1"), else 0
}

// TestDocumentedCommands runs every command that README.md and docs/*.md
// show, as written, in a fresh copy of the repository with an empty
// Hugging Face cache and HF_HUB_OFFLINE=1, unless its comment says what it
// needs ("# needs -tags openrouter and OPENROUTER_API_KEY"). A command
// must exit as its comment says (0 unless "exit N") and must not end in
// "no tests to run". `go test` runs this package's test binary, `go run
// ./cmd/feather` and `feather` a feather binary built here; `make` targets
// compile and run whole suites, so they are only expanded (`make -n`): the
// commands they run are tested where they are defined.
func TestDocumentedCommands(t *testing.T) {
	if os.Getenv("FEATHER_DOCS_CHILD") != "" {
		t.Skip("a documented command's own run")
	}
	if testing.Short() {
		t.Skip("-short: runs every documented command")
	}
	cmds := documentedCommands(t, docPages(t, "."))
	require.NotEmpty(t, cmds)
	env := docsEnv(t)
	copies := map[string]string{} // a fresh copy per page, so a page's commands see what its earlier ones wrote
	parent := t
	for _, c := range cmds {
		t.Run(c.line, func(t *testing.T) {
			if c.needs != "" {
				t.Logf("not run, %s: %s", c.needs, c.cmd)
				return
			}
			dir, ok := copies[c.page]
			if !ok {
				dir = freshClone(parent)
				copies[c.page] = dir
			}
			ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
			defer cancel()
			run := exec.CommandContext(ctx, "bash", "-o", "pipefail", "-c", c.cmd)
			run.Dir, run.Env = dir, append(env, c.env...)
			out, err := run.CombinedOutput()
			code := 0
			if err != nil {
				var exit *exec.ExitError
				require.ErrorAs(t, err, &exit, "%s", out)
				code = exit.ExitCode()
			}
			assert.Equal(t, c.exit, code, "%s exits %d; if it needs something a fresh clone lacks, say so on its line (# needs …):\n%s", c.cmd, code, out)
			assert.NotRegexp(t, `no tests to run|no test files`, string(out), "%s runs no test", c.cmd)
		})
	}
}

// docsEnv is a fresh machine's environment for the documented commands:
// no FEATHER_* settings of the surrounding run, an empty Hub cache that
// must not be filled from the network, and the tools on PATH.
func docsEnv(t *testing.T) []string {
	t.Helper()
	bin := t.TempDir()
	feather := filepath.Join(t.TempDir(), "feather")
	build := exec.Command("go", "build", "-o", feather, "./cmd/feather")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build ./cmd/feather: %s", out)
	require.NoError(t, os.Symlink(feather, filepath.Join(bin, "feather")))
	self, err := os.Executable()
	require.NoError(t, err)
	make, err := exec.LookPath("make")
	require.NoError(t, err)
	for name, script := range map[string]string{"go": goShim, "make": "#!/bin/sh\nexec " + make + " -n \"$@\"\n"} {
		require.NoError(t, os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755))
	}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		keep := !strings.HasPrefix(k, "FEATHER_") || k == "FEATHER_CACHE"
		if keep && k != "PATH" && k != "OPENROUTER_API_KEY" && !strings.HasPrefix(k, "HF_") {
			env = append(env, kv)
		}
	}
	return append(env, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"FEATHER_BIN="+feather, "FEATHER_TEST_BIN="+self, "FEATHER_DOCS_CHILD=1", "FEATHER_PROGRESS=0",
		"HF_HUB_OFFLINE=1", "HF_HUB_CACHE="+t.TempDir(), "GOFLAGS=")
}

// goShim is `go` for the documented commands: `go run ./cmd/feather` is
// the feather binary and `go test .` this package's test binary with go
// test's own flags spelled as the binary takes them.
const goShim = `#!/usr/bin/env bash
case "$1" in
run)
  [ "$2" = ./cmd/feather ] || { echo "documented commands: only go run ./cmd/feather can run here: go $*" >&2; exit 90; }
  shift 2; exec "$FEATHER_BIN" "$@" ;;
test)
  shift; args=()
  while [ $# -gt 0 ]; do
    case "$1" in
      -tags|-tags=*) echo "documented commands: a build with $1 $2 cannot run here" >&2; exit 91 ;;
      -run|-skip|-count|-timeout) args+=("-test.${1#-}=$2"); shift ;;
      -run=*|-skip=*|-count=*|-timeout=*) args+=("-test.${1#-}") ;;
      -v) args+=(-test.v) ;;
      .) ;;
      ./*) echo "documented commands: only the root package (.) can run here: $1" >&2; exit 92 ;;
      *) args+=("$1") ;;
    esac
    shift
  done
  exec "$FEATHER_TEST_BIN" "${args[@]}" ;;
*) echo "documented commands: go $1 cannot run here" >&2; exit 93 ;;
esac
`

// freshClone copies the repository's files as a clone has them (tracked
// and new, nothing ignored) into a temporary folder.
func freshClone(t *testing.T) string {
	t.Helper()
	list, err := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	require.NoError(t, err, "git ls-files: the documented commands run in a copy of the checkout's files")
	dir := t.TempDir()
	for _, name := range strings.Split(strings.TrimRight(string(list), "\x00"), "\x00") {
		b, err := os.ReadFile(name)
		if os.IsNotExist(err) {
			continue // deleted in the work tree
		}
		require.NoError(t, err)
		info, err := os.Stat(name)
		require.NoError(t, err)
		dst := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(dst), 0o755))
		require.NoError(t, os.WriteFile(dst, b, info.Mode().Perm()))
	}
	return dir
}

// documentedCommands are the commands of the pages' sh and yaml blocks.
func documentedCommands(t *testing.T, pages []string) []docCommand {
	t.Helper()
	var out []docCommand
	for _, page := range pages {
		text, err := os.ReadFile(page)
		require.NoError(t, err)
		for _, b := range codeBlocks(string(text)) {
			switch b.lang {
			case "sh", "bash", "shell":
				out = append(out, shellCommands(page, b)...)
			case "yaml", "yml":
				cmds, err := yamlCommands(page, b)
				require.NoError(t, err)
				out = append(out, cmds...)
			}
		}
	}
	return out
}

type codeBlock struct {
	lang  string
	line  int // the first line of the body
	lines []string
}

// codeBlocks are a page's fenced blocks.
func codeBlocks(text string) []codeBlock {
	var out []codeBlock
	var cur *codeBlock
	for i, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case cur == nil && strings.HasPrefix(trimmed, "```"):
			cur = &codeBlock{lang: strings.TrimSpace(strings.TrimPrefix(trimmed, "```")), line: i + 2}
		case cur != nil && trimmed == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.lines = append(cur.lines, line)
		}
	}
	return out
}

// shellCommands are a sh block's commands: in a transcript (lines that
// start with "$ ") those lines, else every line that is not a comment,
// with a trailing \ or | joining the next line.
func shellCommands(page string, b codeBlock) []docCommand {
	transcript := false
	for _, l := range b.lines {
		transcript = transcript || strings.HasPrefix(l, "$ ")
	}
	var out []docCommand
	for i := 0; i < len(b.lines); i++ {
		l, at := b.lines[i], b.line+i
		if transcript {
			if !strings.HasPrefix(l, "$ ") {
				continue
			}
			l = strings.TrimPrefix(l, "$ ")
		}
		if t := strings.TrimSpace(l); t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		cmd := l
		for (strings.HasSuffix(strings.TrimSpace(cmd), `\`) || strings.HasSuffix(strings.TrimSpace(cmd), "|")) && i+1 < len(b.lines) {
			i++
			cmd += "\n" + b.lines[i]
		}
		out = append(out, newDocCommand(page, at, cmd, nil))
	}
	return out
}

// matrixRE is a GitHub Actions matrix value in a run line.
var matrixRE = regexp.MustCompile(`\$\{\{\s*matrix\.(\w+)\s*\}\}`)

// yamlCommands are a workflow block's run steps, each with its env and
// the first value of each matrix entry it uses.
func yamlCommands(page string, b codeBlock) ([]docCommand, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(strings.Join(b.lines, "\n")), &doc); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", page, b.line, err)
	}
	matrix := map[string]string{}
	var steps []*yaml.Node
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				switch {
				case k.Value == "matrix" && v.Kind == yaml.MappingNode:
					for j := 0; j+1 < len(v.Content); j += 2 {
						if vals := v.Content[j+1]; vals.Kind == yaml.SequenceNode && len(vals.Content) > 0 {
							matrix[v.Content[j].Value] = vals.Content[0].Value
						}
					}
				case k.Value == "run" && v.Kind == yaml.ScalarNode:
					steps = append(steps, n)
				}
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(&doc)
	var out []docCommand
	for _, step := range steps {
		var run *yaml.Node
		var env []string
		for i := 0; i+1 < len(step.Content); i += 2 {
			switch k, v := step.Content[i], step.Content[i+1]; k.Value {
			case "run":
				run = v
			case "env":
				for j := 0; j+1 < len(v.Content); j += 2 {
					env = append(env, v.Content[j].Value+"="+v.Content[j+1].Value)
				}
			}
		}
		fill := func(s string) string {
			return matrixRE.ReplaceAllStringFunc(s, func(m string) string { return matrix[matrixRE.FindStringSubmatch(m)[1]] })
		}
		for i := range env {
			env[i] = fill(env[i])
		}
		cmd := newDocCommand(page, b.line+run.Line-1, fill(run.Value), env)
		if c := strings.TrimSpace(strings.TrimPrefix(run.LineComment, "#")); c != "" {
			cmd.needs, cmd.exit = commentNeeds(c)
		}
		out = append(out, cmd)
	}
	return out, nil
}

var exitRE = regexp.MustCompile(`\bexit (\d+)\b`)

// newDocCommand reads a command's trailing comment for what it needs and
// the exit status it promises.
func newDocCommand(page string, line int, cmd string, env []string) docCommand {
	c := docCommand{page: page, line: fmt.Sprintf("%s:%d", page, line), cmd: cmd, env: env}
	last := cmd[strings.LastIndex(cmd, "\n")+1:]
	if i := commentStart(last); i >= 0 {
		c.needs, c.exit = commentNeeds(strings.TrimSpace(last[i+1:]))
	}
	return c
}

// commentNeeds is what a command's comment says it needs ("needs …",
// "after …"; "" when nothing) and the exit status it promises.
func commentNeeds(comment string) (needs string, exit int) {
	if m := exitRE.FindStringSubmatch(comment); m != nil {
		exit, _ = strconv.Atoi(m[1])
	}
	for _, word := range []string{"needs ", "after "} {
		if i := strings.Index(comment, word); i >= 0 {
			return comment[i:], exit
		}
	}
	return "", exit
}

// commentStart is the index of the # that starts a shell comment in line,
// or -1.
func commentStart(line string) int {
	var quote byte
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t'):
			return i
		}
	}
	return -1
}

// TestDocumentedCommandsParse pins how commands, their comments and
// workflow steps are read from the pages.
func TestDocumentedCommandsParse(t *testing.T) {
	page := filepath.Join(t.TempDir(), "page.md")
	require.NoError(t, os.WriteFile(page, []byte(strings.Join([]string{
		"# Page",
		"```sh",
		"go test -run 'TestX/#1' .   # one item",
		"# a comment line",
		"OPENROUTER_API_KEY=sk go test -tags openrouter . # needs -tags openrouter and OPENROUTER_API_KEY",
		"feather check t.json bad.txt   # FAIL, exit 1",
		"printf 'a\\n' |",
		"  go run ./cmd/feather score --model m \\",
		"  --json   # needs a model folder",
		"```",
		"```sh",
		"$ feather pull x   # after a pull",
		"downloaded",
		"```",
		"```yaml",
		"jobs:",
		"  a:",
		"    strategy: {matrix: {shard: [2, 3]}}",
		"    steps:",
		"      - run: go test .",
		"        env: {FEATHER_SHARD: '${{ matrix.shard }}/3'}",
		"      - run: feather report shards   # needs the shards",
		"```",
	}, "\n")), 0o644))
	got := documentedCommands(t, []string{page})
	want := []docCommand{
		{page: page, line: page + ":3", cmd: "go test -run 'TestX/#1' .   # one item"},
		{page: page, line: page + ":5", cmd: "OPENROUTER_API_KEY=sk go test -tags openrouter . # needs -tags openrouter and OPENROUTER_API_KEY", needs: "needs -tags openrouter and OPENROUTER_API_KEY"},
		{page: page, line: page + ":6", cmd: "feather check t.json bad.txt   # FAIL, exit 1", exit: 1},
		{page: page, line: page + ":7", cmd: "printf 'a\\n' |\n  go run ./cmd/feather score --model m \\\n  --json   # needs a model folder", needs: "needs a model folder"},
		{page: page, line: page + ":12", cmd: "feather pull x   # after a pull", needs: "after a pull"},
		{page: page, line: page + ":20", cmd: "go test .", env: []string{"FEATHER_SHARD=2/3"}},
		{page: page, line: page + ":22", cmd: "feather report shards", needs: "needs the shards"},
	}
	assert.Equal(t, want, got)
}
