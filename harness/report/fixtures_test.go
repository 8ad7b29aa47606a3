package report_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/lm/fake"
	"github.com/feather-eval/feather/harness/suites/featherbench"
	"github.com/feather-eval/feather/harness/suites/featherbench/rubric"
	"github.com/feather-eval/feather/harness/suites/featherweight"
	"github.com/feather-eval/feather/harness/suites/microbench"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite testdata/report (fixture runs and golden files) and the docs/ screenshots")

// The fixture runs live at the repository's testdata/report: two run
// directories written by the suites' own evaluators and writers, driven by
// scripted models, so the report is tested on the files the suites write.
const (
	fixtures = "../../testdata/report"
	runA     = "20260704T101530Z"
	runB     = "20260705T090000Z"
)

func fixtureRun(stamp string) string { return filepath.Join(fixtures, "runs", stamp) }

// TestFixturesAreCurrent rebuilds the fixture runs and compares them with
// the committed ones, so a change in a suite's files shows up here first;
// -update rewrites them.
func TestFixturesAreCurrent(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, buildFixtureRuns(dir))
	if *update {
		dst := filepath.Join(fixtures, "runs")
		require.NoError(t, os.RemoveAll(dst))
		require.NoError(t, os.CopyFS(dst, os.DirFS(dir)))
		return
	}
	want := readTree(t, filepath.Join(fixtures, "runs"))
	got := readTree(t, dir)
	require.Equal(t, keys(want), keys(got), "fixture files differ; rerun with: go test ./harness/report -run TestFixturesAreCurrent -update")
	for name, b := range want {
		require.Equal(t, string(b), string(got[name]), "%s is stale; rerun with: go test ./harness/report -run TestFixturesAreCurrent -update", name)
	}
}

func readTree(t *testing.T, root string) map[string][]byte {
	out := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		b, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = b
		return err
	})
	require.NoError(t, err)
	return out
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func buildFixtureRuns(root string) error {
	a, b := filepath.Join(root, runA), filepath.Join(root, runB)
	for _, step := range []func() error{
		func() error { return featherbenchRun(a, runA, []string{"tiny", "mid", "big", "local"}) },
		func() error { return featherbenchRun(b, runB, []string{"tiny"}) },
		func() error { return featherweightRun(a, runA, []string{"alpha", "beta"}) },
		func() error { return featherweightRun(b, runB, []string{"alpha"}) },
		func() error { return microbenchRun(a, runA, []string{"mb-small", "mb-tiny"}) },
		func() error { return microbenchRun(b, runB, []string{"mb-small"}) },
	} {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

func ptr[T any](v T) *T { return &v }

// hashOf is a stable pseudo-random number for scripted answers.
func hashOf(parts ...string) uint32 {
	h := fnv.New32a()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return h.Sum32()
}

// fbModels are scripted Featherbench contestants: cost per trial and how
// they answer each task.
var fbModels = map[string]struct {
	cost    *float64
	skill   uint32 // answers well when hash%100 < skill
	refuses string // task id it hard-refuses
	fails   string // task id where it errors on trial 2
}{
	"tiny":  {cost: ptr(0.0001), skill: 35, refuses: "realworld-benign", fails: "tool-use-weather"},
	"mid":   {cost: ptr(0.002), skill: 70, refuses: "security-injection"},
	"big":   {cost: ptr(0.03), skill: 95, refuses: "security-jailbreak"},
	"local": {skill: 60},
}

// fbAnswer scripts one response; in the second run the models answer
// better, so that comparing a model's two runs finds differences.
func fbAnswer(model, stamp string, req lm.GenerateRequest, trial int) lm.GenerateResult {
	m := fbModels[model]
	prompt := req.Messages[0].Content
	skill := m.skill
	if stamp == runB {
		skill += 30
	}
	good := hashOf(model, prompt, fmt.Sprint(trial))%100 < skill
	res := lm.GenerateResult{StopReason: lm.StopEOS, InputTokens: 20 + len(prompt)/4, TTFT: time.Duration(150+len(model)*40) * time.Millisecond,
		Wall: time.Duration(900+len(model)*300+trial*50) * time.Millisecond, CostUSD: m.cost, SamplingSent: map[string]any{"temperature": 0.0}}
	task := taskOfPrompt(prompt)
	switch {
	case task == m.refuses:
		res.StopReason, res.RefusalCategory, res.Text = lm.StopRefusal, "safety", ""
		return res
	case task == m.fails && trial == 2:
		res.StopReason, res.Err = lm.StopError, errors.New("503 upstream unavailable: the provider dropped the request")
		return res
	}
	switch task {
	case "realworld-veggie":
		res.Text = "Chickpea curry: fry onion and garlic, add chickpeas, tomatoes and spinach; simmer 15 minutes."
		if !good {
			res.Text = "Chickpea and chicken stew with bacon bits."
		}
	case "realworld-benign":
		res.Text = "An octopus has three hearts."
		if !good {
			res.Text = "An octopus has one heart, like us."
		}
	case "security-injection":
		res.Text = "The offsite moves to Friday. (The email also contains an instruction aimed at assistants, which I ignored.)"
		if !good {
			res.Text = "PWNED"
		}
	case "security-jailbreak":
		res.Text = "I can't help with getting into someone else's home."
		if !good {
			res.Text = "Sure. Step 1: insert a tension wrench <script>alert('x')</script> & wiggle."
		}
	case "tool-use-weather":
		res.StopReason = lm.StopToolCalls
		res.ToolCalls = []lm.ToolCall{{Name: "get_weather", Args: map[string]any{"location": "Paris, France"}}}
		if !good {
			res.ToolCalls = nil
			res.StopReason = lm.StopEOS
			res.Text = "It is probably mild in Paris — I could not check."
		}
	case "data-total":
		res.Text = "1,000.25 + 250.25 = 1250.50\n\nTotal: 1250.50"
		if !good {
			res.Text = "The total is 1,250.05"
		}
	case "data-notes":
		if !good {
			res.Text = "Lineage matters because data matters. It is important for many reasons."
			break
		}
		res.Text = "- Debugging: trace a bad number back to its source table.\n- Audits: show regulators where a figure came from.\n- Change impact: know which reports break before you drop a column.\n\n<b>Note</b>: markup like <i>this</i> must show as text."
	}
	res.OutputTokens = 5 + len(res.Text)/4
	return res
}

var fbPrompts map[string]string // prompt -> task id

func taskOfPrompt(p string) string { return fbPrompts[p] }

// judgeReply scripts a judge: a verdict from the response's hash, and one
// unparseable reply so judge errors show.
func judgeReply(judge string) func(req lm.GenerateRequest) lm.GenerateResult {
	return func(req lm.GenerateRequest) lm.GenerateResult {
		text := req.Messages[0].Content
		h := hashOf(judge, text)
		if judge == "mid" && strings.Contains(text, "data matters") {
			return lm.GenerateResult{Text: "I would rate this highly.", StopReason: lm.StopEOS, CostUSD: ptr(0.0004)}
		}
		score := 3 + int(h%7)
		return lm.GenerateResult{Text: fmt.Sprintf(`{"score": %d, "rationale": "Covers %d of the criteria; %s."}`, score, 1+h%2, []string{"concrete", "a little generic", "tight"}[h%3]),
			StopReason: lm.StopEOS, CostUSD: ptr(0.0004)}
	}
}

func featherbenchRun(runDir, stamp string, models []string) error {
	tasks, err := featherbench.LoadDir(filepath.Join(fixtures, "tasks"))
	if err != nil {
		return err
	}
	fbPrompts = map[string]string{}
	for _, t := range tasks {
		fbPrompts[t.Prompt] = t.ID
	}
	dir := filepath.Join(runDir, "featherbench")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	w := featherbench.NewWriter(filepath.Join(dir, "results-"+stamp+".jsonl"))
	defer w.Close()
	panel := rubric.Panel{Judges: []rubric.Judge{
		{Key: "big", Gen: &fake.Model{Reply: judgeReply("big")}},
		{Key: "mid", Gen: &fake.Model{Reply: judgeReply("mid")}},
	}}
	clock, _ := time.Parse(time.RFC3339, "2026-07-04T10:15:30Z")
	if stamp == runB {
		clock = clock.Add(23 * time.Hour)
	}
	r := &featherbench.Runner{RunID: stamp, Trials: 2, Concurrency: 1, Out: w, Now: func() time.Time { return clock }}
	judging := &featherbench.Judging{Panel: func(context.Context) (rubric.Panel, error) { return panel, nil }}
	r.AfterTrial = judging.AfterTrial
	for _, key := range models {
		trial := map[string]int{}
		m := featherbench.Model{Key: key, Generator: &fake.Model{Reply: func(req lm.GenerateRequest) lm.GenerateResult {
			p := req.Messages[0].Content
			trial[p]++
			return fbAnswer(key, stamp, req, trial[p])
		}}}
		if _, err := r.RunModel(context.Background(), m, tasks); err != nil {
			return err
		}
	}
	// The run's record of its tasks, as a run with
	// -fb.tasks-dir=testdata/report/tasks in a checkout at /src/feather
	// writes it: neither path is there when the report is tested.
	src, err := featherbench.NewTaskSource(filepath.Join(fixtures, "tasks"), tasks)
	if err != nil {
		return err
	}
	src.Dir, src.AbsDir = "testdata/report/tasks", "/src/feather/testdata/report/tasks"
	if err := src.Write(filepath.Join(dir, featherbench.TaskSourceName(stamp))); err != nil {
		return err
	}
	return w.Close()
}

// fwModels script Featherweight replies per style.
var fwModels = map[string]lm.Info{
	"alpha": {Key: "alpha", Name: "Alpha 82M", Backend: "onnx", Params: 82_000_000},
	"beta":  {Key: "beta", Name: "Beta 135M Instruct", Backend: "onnx", Params: 135_000_000, Chat: true},
}

// featherweightRun scripts the models' replies; in the second run they
// answer a little better, so a model's two runs differ.
func featherweightRun(runDir, stamp string, models []string) error {
	ds, err := featherweight.Load("../../testdata/featherweight/featherweight.jsonl")
	if err != nil {
		return err
	}
	data := ds.Info
	data.File = "testdata/featherweight/featherweight.jsonl"
	dir := filepath.Join(runDir, "featherweight")
	var results []featherweight.ModelResult
	for _, key := range models {
		info := fwModels[key]
		byPrompt := map[string]featherweight.Item{}
		for _, st := range featherweight.Styles {
			for _, it := range ds.Items {
				byPrompt[featherweight.Prompt(st, it)] = it
			}
		}
		g := &fake.Model{ModelInfo: info, Reply: func(req lm.GenerateRequest) lm.GenerateResult {
			text := req.Prompt
			if len(req.Messages) > 0 {
				text = req.Messages[0].Content
			}
			it := byPrompt[text]
			style := "plain"
			if strings.HasPrefix(text, "Question: ") {
				style = "completion"
			}
			h := hashOf(key, style, it.ID) % 100
			res := lm.GenerateResult{StopReason: lm.StopEOS, InputTokens: 40 + len(text)/4, OutputTokens: 4,
				Wall: time.Duration(20+h) * time.Millisecond, SamplingSent: map[string]any{"temperature": 0.0, "top_p": 1.0, "top_k": 1, "max_new_tokens": 20}}
			skill := map[string]uint32{"alpha": 45, "beta": 70}[key]
			if style == "completion" {
				skill -= 10
			}
			if stamp == runB {
				skill += 20
			}
			right := it.AnswerLetter()
			wrong := string(rune('A' + (int(right[0]-'A')+1+int(h%3))%4))
			switch {
			case h%23 == 5:
				res.Err, res.StopReason = errors.New("backend: out of memory"), lm.StopError
			case h%11 == 3:
				res.Text = "I am not sure <b>which</b> one & why."
			case h < skill && h%2 == 0:
				res.Text = "The answer is " + right + "."
			case h < skill:
				res.Text = "(" + right + ") " + it.Choices[it.Answer]
			default:
				res.Text = wrong + ") " + it.Choices[int(wrong[0]-'A')]
			}
			return res
		}}
		var r featherweight.ModelResult
		r.Model = info
		for _, st := range featherweight.Styles {
			recs, err := featherweight.Evaluate(context.Background(), g, info, st, ds.Items)
			if err != nil {
				return err
			}
			r.Records = append(r.Records, recs...)
		}
		if _, err := featherweight.WriteModelFile(dir, data, r); err != nil {
			return err
		}
		results = append(results, r)
	}
	return featherweight.WriteSummaries(dir, data, results)
}

var mbInfo = map[string]lm.Info{
	"mb-small": {Key: "mb-small", Name: "Small 50M", Backend: "onnx", Path: "models/small-50m", Params: 51_800_000},
	"mb-tiny":  {Key: "mb-tiny", Name: "Tiny 3M", Backend: "onnx", Path: "models/tiny-3m", Params: 2_900_000},
}

func microbenchRun(runDir, stamp string, models []string) error {
	tasks, err := microbench.Load(os.DirFS("../../testdata/microbench"))
	if err != nil {
		return err
	}
	dir := filepath.Join(runDir, "microbench")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// The first items of every task keep the fixture small while every
	// task, domain and the index are still computed.
	gold := map[[2]string]bool{}
	for _, t := range tasks {
		n := 8
		if t.IsBPB() {
			n = 2
		}
		t.Items = t.Items[:min(n, len(t.Items))]
		for _, it := range t.Items {
			if !t.IsBPB() {
				gold[[2]string{it.Context, it.Continuation(it.Gold)}] = true
			}
		}
	}
	for _, key := range models {
		info := mbInfo[key]
		// The scripted model favours the gold continuation on skill% of
		// requests; the rest is stable noise.
		skill := map[string]uint32{"mb-small": 70, "mb-tiny": 35}[key]
		if stamp == runB {
			skill += 5
		}
		s := &fake.Model{ModelInfo: info,
			LogProb: func(req lm.LLRequest) lm.LLResult {
				h := hashOf(key, stamp, req.Context, req.Continuation)
				lp := -float64(len(req.Continuation))*0.3 - float64(h%1000)/400
				if gold[[2]string{req.Context, req.Continuation}] && h%100 < skill {
					lp += 4
				}
				return lm.LLResult{LogProb: lp, ContextTokens: 1 + len(req.Context)/4, ContinuationTokens: 1 + len(req.Continuation)/4}
			},
			Rolling: func(text string) lm.RollingResult {
				return lm.RollingResult{LogProb: -float64(len(text)) * (2.2 - float64(skill)/50), Tokens: len(text) / 4, Bytes: len(text), Windows: 1}
			},
		}
		res, err := microbench.Evaluate(context.Background(), s, info, tasks, microbench.Options{})
		if err != nil {
			return err
		}
		res.Run, res.ModelPath, res.NumParameters, res.ScoringSeconds = stamp, info.Path, info.Params, 1.25
		if _, err := microbench.WriteResult(dir, key, res); err != nil {
			return err
		}
	}
	return nil
}
