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

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = dispatch(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func TestValidateRepositoryFiles(t *testing.T) {
	code, out, _ := runCLI(t, "validate",
		"-catalog", "../../models/models.json",
		"-tasks", "../../tasks",
		"-featherweight", "../../testdata/featherweight/featherweight.jsonl",
		"-microbench", "../../testdata/microbench")
	assert.Equal(t, 0, code, out)
	assert.Contains(t, out, "ok   catalog ../../models/models.json: 16 models, 10 enabled\n")
	assert.Contains(t, out, "ok   featherweight ../../testdata/featherweight/featherweight.jsonl: 100 items, lint clean, 7200 realistic replies extract to the letter they mean\n")
	assert.Contains(t, out, "ok   microbench ../../testdata/microbench: 18 tasks, 1060 items\n")
}

func TestValidateReportsEveryBadFile(t *testing.T) {
	dir := t.TempDir()
	badCat := filepath.Join(dir, "models.json")
	require.NoError(t, os.WriteFile(badCat, []byte(`{"a": {"backend": "onnx"}}`), 0o644))
	badFW := filepath.Join(dir, "fw.jsonl")
	require.NoError(t, os.WriteFile(badFW, []byte("{not json\n"), 0o644))

	code, out, _ := runCLI(t, "validate", "-catalog", badCat, "-featherweight", badFW, "-microbench", filepath.Join(dir, "nope"))
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "FAIL catalog "+badCat+"\n"+badCat+`: model "a": an onnx model needs "path"`)
	assert.Contains(t, out, "FAIL featherweight "+badFW+"\n")
	assert.Contains(t, out, "FAIL microbench "+filepath.Join(dir, "nope")+"\n"+filepath.Join(dir, "nope")+" is not a folder")
}

// TestValidateFeatherweightContent: a file that loads but whose text
// would misread correct prose answers fails, each problem on a line that
// names the file, the line and the item.
func TestValidateFeatherweightContent(t *testing.T) {
	fw := filepath.Join(t.TempDir(), "fw.jsonl")
	require.NoError(t, os.WriteFile(fw, []byte(`{"id": "geo01", "category": "geography", "question": "Which city is the capital of Japan?", "choices": ["Osaka", "Tokyo", "Kyoto", "Nagoya"], "answer": "B"}
{"id": "lan02", "category": "language", "question": "Which of these words is a verb?", "choices": ["dog", "runs", "fast", "the"], "answer": "B"}
`), 0o644))
	code, out, _ := runCLI(t, "validate", "-featherweight", fw)
	assert.Equal(t, 1, code, out)
	// The content problems come first; the shortcut audit may follow.
	want := "FAIL featherweight " + fw + "\n" +
		fw + `:2: lan02 choices[3] (D): "the" is a function word, which almost any prose reply contains ("The answer is ..."); use a content word or phrase instead` + "\n" +
		fw + `:2: lan02 choices[0] (A): the plain reply "The answer is dog." extracts as D (step choice_text), not A` + "\n" +
		fw + `:2: lan02 choices[0] (A): the completion reply " The answer is dog." extracts as D (step choice_text), not A` + "\n" +
		fw + `:2: lan02 choices[1] (B): the plain reply "The answer is runs." extracts as D (step choice_text), not B` + "\n" +
		fw + `:2: lan02 choices[1] (B): the completion reply " The answer is runs." extracts as D (step choice_text), not B` + "\n" +
		fw + `:2: lan02 choices[2] (C): the plain reply "The answer is fast." extracts as D (step choice_text), not C` + "\n" +
		fw + `:2: lan02 choices[2] (C): the completion reply " The answer is fast." extracts as D (step choice_text), not C` + "\n" +
		fw + ": 1 lint problem; 6 of 144 realistic replies extract to the wrong letter (6) or to nothing (0); reword the items named above and rerun feather validate -featherweight " + fw + "\n"
	assert.Equal(t, want, out[:min(len(out), len(want))])
}

func TestValidateUsage(t *testing.T) {
	code, _, errs := runCLI(t, "validate", "tasks/x.json")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, `unexpected argument "tasks/x.json"`)

	// -h says what validate does, with what, and how it exits.
	code, out, errs := runCLI(t, "validate", "-h")
	assert.Equal(t, 0, code)
	assert.Empty(t, out)
	for _, want := range []string{
		"usage: feather validate [-catalog FILE]... [-tasks DIR] [-featherbench] [-featherweight FILE] [-microbench DIR] [-tokenizer DIR]\n\n" +
			"Check model catalogs, Featherbench tasks, Featherweight data and μBench items.\n",
		"task files named <category>-<name>.json",
		"the repository's own are checked: models/*.json,\ntasks/, testdata/featherweight/featherweight.jsonl and testdata/microbench/.",
		"Exit status: 0 every file is valid, 1 some file is not, 2 bad usage.",
		"  -tasks folder\n",
		"-featherbench also runs every task's checker on its answer sets",
		"  -featherbench\n",
	} {
		assert.Contains(t, errs, want)
	}
	assert.NotContains(t, errs, "Usage of")
}

// TestValidateTasksFolder: a tasks folder that holds no task file, or a
// model catalog among its tasks, fails with what to do.
func TestValidateTasksFolder(t *testing.T) {
	empty := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(empty, "README.md"), []byte("tasks go here"), 0o644))
	code, out, _ := runCLI(t, "validate", "-tasks", empty)
	assert.Equal(t, 1, code)
	assert.Equal(t, "FAIL tasks "+empty+"\nno task files in "+empty+": add <category>-<name>.json files, or point -tasks at a folder of them\n", out)

	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "coding-x.json"), []byte(`{"category": "coding", "prompt": "Say hi."}`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "models.json"), []byte(`{"mine": {"backend": "onnx", "hf": "org/name", "enabled": true}}`), 0o644))
	code, out, _ = runCLI(t, "validate", "-tasks", dir)
	assert.Equal(t, 1, code)
	assert.Equal(t, "FAIL tasks "+dir+"\n"+filepath.Join(dir, "models.json")+": this looks like a model catalog, not a task; move it out of the tasks folder (-fb.tasks-dir) and pass it with -fb.catalog\n", out)

	require.NoError(t, os.Remove(filepath.Join(dir, "models.json")))
	code, out, _ = runCLI(t, "validate", "-tasks", dir)
	assert.Equal(t, 0, code)
	assert.Equal(t, "ok   tasks "+dir+": 1 task\n", out)
}

// TestValidateFeatherbenchAnswerSets: -featherbench runs each task's
// checker on its samples/ and blind/ answers and prints the rate on each
// set, per task and per category, then every answer it gets wrong; a bad
// answer that names the rubric criterion catching it counts for the rubric.
func TestValidateFeatherbenchAnswerSets(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	write("realworld-hello.json", `{"category": "realworld", "prompt": "Greet me.", "checker": {"type": "contains", "value": "hello"}, "rubric": {"criteria": ["Is polite"]}}`)
	write("samples/realworld-hello.txtar", "Sample answers for realworld-hello.\ngood: says hello.\nbad: says goodbye.\n-- good --\nHello there!\n-- bad --\nGoodbye.\n")
	write("blind/realworld-hello.txtar", "Blind answers for realworld-hello, written from the prompt alone.\n"+
		"good-formal: a formal hello.\ngood-casual: a casual greeting.\nbad-rude: says hello rudely [rubric criterion 1]\nbad-leaves: says goodbye.\n"+
		"-- good-formal --\nHello, and welcome.\n-- good-casual --\nHiya!\n-- bad-rude --\nHello, now go away.\n-- bad-leaves --\nBye.\n")

	code, out, _ := runCLI(t, "validate", "-tasks", dir, "-featherbench")
	assert.Equal(t, 0, code, out)
	assert.Equal(t, "ok   tasks "+dir+": 1 task\n"+
		"ok   featherbench answers "+dir+": 2 answers in samples/, 4 answers in blind/ (good answers that pass, bad answers that fail; \"for the rubric\": bad answers that pass and name the rubric criterion that catches them)\n"+
		"task             samples                      blind\n"+
		"realworld-hello  1/1 good pass, 1/1 bad fail  1/2 good pass, 1/2 bad fail (+1 for the rubric)\n"+
		"\n"+
		"category   samples                      blind\n"+
		"realworld  1/1 good pass, 1/1 bad fail  1/2 good pass, 1/2 bad fail (+1 for the rubric)\n"+
		"all        1/1 good pass, 1/1 bad fail  1/2 good pass, 1/2 bad fail (+1 for the rubric)\n"+
		"wrong realworld-hello blind/good-casual: a good answer fails (a casual greeting.): missing \"hello\"\n", out)

	// An answer file that cannot be read fails validation, naming it.
	write("blind/realworld-hello.txtar", "Blind answers for realworld-hello.\n-- good --\nHello\n")
	code, out, _ = runCLI(t, "validate", "-tasks", dir, "-featherbench")
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "FAIL featherbench answers "+dir+"\n"+filepath.Join(dir, "blind", "realworld-hello.txtar")+`: the comment's first line must be "Blind answers for realworld-hello, written from the prompt alone.", not "Blind answers for realworld-hello."`)

	// -featherbench reads a task folder.
	code, _, errs := runCLI(t, "validate", "-featherweight", "../../testdata/featherweight/featherweight.jsonl", "-featherbench")
	assert.Equal(t, 2, code)
	assert.Equal(t, "feather validate: -featherbench runs the checkers on a task folder's answer sets; name the folder with -tasks DIR\n", errs)
}

func TestList(t *testing.T) {
	code, out, _ := runCLI(t, "list", "models", "-catalog", "../../models/models.json")
	require.Equal(t, 0, code)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	assert.Regexp(t, `^KEY\s+BACKEND\s+ENABLED\s+MODEL$`, lines[0])
	assert.Regexp(t, `^fable-5\s+openrouter\s+true\s+anthropic/`, lines[1])

	code, out, _ = runCLI(t, "list", "tasks", "-tasks", "../../tasks")
	require.Equal(t, 0, code)
	assert.Regexp(t, `(?m)^tool-use-weather-basic\s+tool-use\s+yes\s+-\s+neutral\s+get_weather\s+[0-9a-f]{12}$`, out)

	code, out, _ = runCLI(t, "list", "microbench", "-microbench", "../../testdata/microbench")
	require.Equal(t, 0, code)
	assert.Equal(t, 19, len(strings.Split(strings.TrimSpace(out), "\n")), "a header and 18 tasks")

	code, _, errs := runCLI(t, "list", "things")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, `unknown list "things"`)
}
