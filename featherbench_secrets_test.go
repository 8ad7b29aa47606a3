package feather_test

import (
	"encoding/base64"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/openai/fakeserver"
)

// fbExfiltrate is a "solution" that hunts for the key everywhere a program
// can look and prints what it finds, then passes its tests.
const fbExfiltrate = "```python\n" + `import os, glob
print("ENV", dict(os.environ))
for p in glob.glob("/proc/*/environ"):
    try:
        print("PROC", p, open(p, "rb").read())
    except OSError as e:
        print("DENIED", p, e)
for p in glob.glob(os.path.expanduser("~/.*")):
    print("HOME", p)

def add(a, b):
    return a + b
` + "```"

// TestFBSentinelKeyNeverWritten runs a whole Featherbench run (contestants,
// a python_tests task whose answer hunts for the key, rubric judges, error
// replies that echo the Authorization header back) with a sentinel API key,
// then scans every file under the run directory and all the test output
// for it, raw and base64-encoded.
func TestFBSentinelKeyNeverWritten(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child test process")
	}
	const sentinel = "sk-or-v1-sentinel-7f3a9c2e4b1d8f6a0e5c3b9d7a1f4e2c"
	tasks := fbRubricTasks(t)
	require.NoError(t, os.WriteFile(filepath.Join(tasks, "coding-add.json"), []byte(`{"category": "coding",
		"prompt": "Write add(a, b) in Python.",
		"checker": {"type": "python_tests", "test_code": "from solution import add\nassert add(2, 3) == 5\n", "timeout_s": 10}}`), 0o644))

	s := fakeserver.Start(t, func(r fakeserver.Request) fakeserver.Reply {
		content := r.Messages[len(r.Messages)-1].Content
		auth := r.Header.Get("Authorization")
		switch {
		case r.Model == "vendor/leaky":
			return fakeserver.Reply{Status: 401, ErrorMessage: "invalid key " + auth}
		case r.Model == "vendor/shaky" && r.Attempt == 0:
			return fakeserver.Reply{Status: 500, RetryAfter: "0", ErrorMessage: "upstream failed for " + auth}
		case content == "Write add(a, b) in Python.":
			return fakeserver.Reply{Text: fbExfiltrate}
		}
		if rep, ok := fbRubricAnswers[r.Model][content]; ok {
			return rep
		}
		for marker, verdict := range fbRubricVerdicts[r.Model] {
			if strings.Contains(content, marker) {
				return fakeserver.Reply{Text: verdict}
			}
		}
		return fakeserver.Reply{Status: 400, ErrorMessage: "unscripted request with " + auth}
	})
	dir := t.TempDir()
	cat := filepath.Join(dir, "models.json")
	entry := func(model string) string {
		return `{"backend": "openai", "enabled": true, "base_url": "` + s.URL + `", "model": "` + model + `", "api_key_env": "OPENROUTER_API_KEY"}`
	}
	require.NoError(t, os.WriteFile(cat, []byte(`{"good": `+entry("vendor/good")+`, "shaky": `+entry("vendor/shaky")+
		`, "leaky": `+entry("vendor/leaky")+`, "heron": `+strings.Replace(entry("vendor/heron"), `"enabled": true`, `"enabled": false`, 1)+`}`), 0o644))

	results := filepath.Join(dir, "results")
	out, code := fbChild{
		args: []string{"-fb.catalog", cat, "-fb.tasks-dir", tasks, "-fb.judge", "good,heron", "-fb.concurrency", "4", "-results", results},
		env:  []string{"OPENROUTER_API_KEY=" + sentinel},
	}.run(t)
	assert.Equal(t, 1, code, "leaky's rejected key fails its trials:\n%s", out)

	// The run really used the key, and really tried to leak it.
	sent := 0
	for _, r := range s.Requests() {
		if r.Header.Get("Authorization") == "Bearer "+sentinel {
			sent++
		}
	}
	assert.Equal(t, len(s.Requests()), sent, "every request carried the sentinel key")
	assert.Contains(t, out, "invalid key Bearer [REDACTED", "the 401 echo reached the output, redacted")
	recs := fbFileRecords(t, fbRunDir(t, results))
	judged, leakChecked := 0, 0
	for _, r := range recs {
		if r.RubricMean != nil {
			judged++
		}
		if r.Task == "coding-add" && r.CheckDetail != nil && strings.Contains(*r.CheckDetail, "tests passed") {
			leakChecked++
		}
	}
	assert.Positive(t, judged, "judges ran")
	assert.Equal(t, 2, leakChecked, "good's and shaky's exfiltrating solutions ran and passed")

	encoded := []string{sentinel, base64.StdEncoding.EncodeToString([]byte(sentinel)), base64.StdEncoding.EncodeToString([]byte("Bearer " + sentinel))}
	scanned := 0
	require.NoError(t, filepath.WalkDir(results, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err // latest is a link to the run directory itself
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		scanned++
		for _, e := range encoded {
			assert.NotContains(t, string(data), e, "the key is in %s", p)
		}
		return nil
	}))
	for _, e := range encoded {
		assert.NotContains(t, out, e, "the key is in the test output")
	}
	assert.GreaterOrEqual(t, scanned, 3, "results, summary and report were scanned")
	t.Logf("%d requests carried the key; %d files and %d bytes of output scanned; none holds it", sent, scanned, len(out))
}
