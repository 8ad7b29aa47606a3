package feather_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/apiopt"
	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/backends/openai/fakeserver"
	"github.com/feather-eval/feather/harness/backends/openai/fakeserver/faultmix"
	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/run/rundir"
	"github.com/feather-eval/feather/harness/run/unit"
	"github.com/feather-eval/feather/harness/suites/featherbench"
	"github.com/feather-eval/feather/harness/suites/featherweight"
	"github.com/feather-eval/feather/harness/suites/microbench"
	"github.com/feather-eval/feather/internal/diskfull"
	"github.com/feather-eval/feather/internal/plural"
	"github.com/feather-eval/feather/internal/procstat"
)

// The soak holds the harness to a long run against a provider that fails
// the ways real ones do: Featherbench through an in-process flaky server
// (faultmix) at concurrency 32, the test binary killed with SIGKILL at
// random points and resumed, the results on a disk that fills up, and
// the memory, goroutines and open files watched throughout.
// FEATHER_SOAK=full (make soak) runs 10,000 trials; short, the default
// (make test), a tenth of that with fewer kills; off skips it.

// soakSize is how big a soak is.
type soakSize struct {
	name string
	// models × tasks × trials Featherbench trials, at concurrency.
	models, tasks, trials, concurrency int
	// Kills with SIGKILL in Featherbench, Featherweight and μBench.
	fbKills, fwKills, mbKills int
	// diskTasks × trials × models trials on the disk that fills up.
	diskTasks int
	// rssLimit bounds the resident memory of a run; rssGrowth its rise
	// after warm-up (a tenth of the trials), when a leak would show.
	rssLimit, rssGrowth int64
}

func (s soakSize) total() int { return s.models * s.tasks * s.trials }

var soakSizes = map[string]soakSize{
	"full":  {name: "full", models: 4, tasks: 250, trials: 10, concurrency: 32, fbKills: 14, fwKills: 3, mbKills: 3, diskTasks: 50, rssLimit: 200e6, rssGrowth: 48e6},
	"short": {name: "short", models: 2, tasks: 50, trials: 10, concurrency: 32, fbKills: 2, fwKills: 1, mbKills: 2, diskTasks: 20, rssLimit: 200e6, rssGrowth: 32e6},
}

// soakShares are the faults injected, each in its share of requests.
var soakShares = []faultmix.Share{
	{Kind: faultmix.RateLimit, Fraction: 0.04},
	{Kind: faultmix.Status500, Fraction: 0.02},
	{Kind: faultmix.Status503, Fraction: 0.02},
	{Kind: faultmix.Reset, Fraction: 0.01},
	{Kind: faultmix.Hang, Fraction: 0.005},
	{Kind: faultmix.Malformed, Fraction: 0.01},
	{Kind: faultmix.SlowDrip, Fraction: 0.02},
	{Kind: faultmix.WrongUsage, Fraction: 0.03},
}

// The provider's pace and the waits its faults impose.
const (
	soakPace       = 5 * time.Millisecond   // between a clean answer's chunks
	soakDrip       = 50 * time.Millisecond  // between a slow drip's
	soakRetryAfter = time.Second            // 429 and 503
	soakBackoff    = 750 * time.Millisecond // the mean first backoff after a 500
	soakTimeout    = 5 * time.Second        // -api.timeout: a hung stream's cost
	soakIn         = 120                    // tokens every answer reports
	soakOut        = 22
)

func TestSoak(t *testing.T) {
	mode := os.Getenv("FEATHER_SOAK")
	if mode == "" {
		mode = "short"
	}
	if mode == "off" {
		t.Skip("FEATHER_SOAK=off")
	}
	size, ok := soakSizes[mode]
	if !ok {
		t.Fatalf("FEATHER_SOAK=%s: use full (make soak), short (the default) or off", mode)
	}
	if testing.Short() {
		t.Skip("the soak runs thousands of trials through a flaky server")
	}
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("FEATHER_SOAK_SEED"); s != "" {
		var err error
		seed, err = strconv.ParseUint(s, 10, 64)
		require.NoError(t, err, "FEATHER_SOAK_SEED must be a whole number")
	}
	t.Logf("soak %s: seed %d (FEATHER_SOAK_SEED=%d repeats its faults and kills)", size.name, seed, seed)
	fx := newSoakFixture(t, size, seed)
	start := time.Now()
	var figs soakFigures
	t.Run("faults", func(t *testing.T) { figs.faults = soakFaults(t, fx) })
	t.Run("kills", func(t *testing.T) { figs.kills = soakKills(t, fx) })
	t.Run("full-disk", func(t *testing.T) { figs.disk = soakFullDisk(t, fx) })
	figs.took = time.Since(start)
	t.Logf("soak %s figures:\n%s", size.name, figs.markdown(size))
}

// soakFixture is what the phases share: the tasks and the answers.
type soakFixture struct {
	size     soakSize
	seed     uint64
	tasksDir string
	tasks    []featherbench.Task
	models   []string       // catalog keys
	slugs    map[string]int // the model a request names → model index
	prompts  map[string]int // a task's prompt → task index
}

func newSoakFixture(t *testing.T, size soakSize, seed uint64) *soakFixture {
	fx := &soakFixture{size: size, seed: seed, tasksDir: t.TempDir(), slugs: map[string]int{}, prompts: map[string]int{}}
	for i := range size.tasks {
		task := map[string]any{
			"category": "soak",
			"prompt":   fmt.Sprintf("Soak task %04d: which fruit goes with code %04d? Answer in one sentence.", i, i),
			"checker":  map[string]any{"type": "contains", "value": fmt.Sprintf("kiwi-%04d", i)},
		}
		b, err := json.Marshal(task)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(fx.tasksDir, fmt.Sprintf("soak-%04d.json", i)), b, 0o644))
		fx.prompts[task["prompt"].(string)] = i
	}
	var err error
	fx.tasks, err = featherbench.LoadDir(fx.tasksDir)
	require.NoError(t, err)
	for k := range size.models {
		fx.models = append(fx.models, fmt.Sprintf("soak-%d", k+1))
		fx.slugs[fmt.Sprintf("vendor/soak-%d", k+1)] = k
	}
	return fx
}

// right says whether model k answers task i right: most of the time, so
// the pass rates are neither 0 nor 1.
func (fx *soakFixture) right(k, i int) bool { return (i+k)%4 != 0 }

// text is model k's answer to task i: 20 pieces as the server streams it.
func (fx *soakFixture) text(k, i int) string {
	fruit := "a mango, I am fairly sure"
	if fx.right(k, i) {
		fruit = fmt.Sprintf("kiwi-%04d, as the list says", i)
	}
	return fmt.Sprintf("The fruit that goes with code %04d is %s, and I would add nothing more to that answer today.", i, fruit)
}

// answer is the clean reply to a Featherbench request.
func (fx *soakFixture) answer(r fakeserver.Request) fakeserver.Reply {
	k, i := fx.slugs[r.Model], fx.prompts[r.Messages[0].Content]
	return fakeserver.Reply{Text: fx.text(k, i), PromptTokens: soakIn, CompletionTokens: soakOut}
}

// mix is a fresh flaky provider with the soak's shares and seed.
func (fx *soakFixture) mix() *faultmix.Mix {
	return &faultmix.Mix{Seed: fx.seed, Shares: soakShares, Answer: fx.answer, Pace: soakPace, Drip: soakDrip,
		RetryAfter: soakRetryAfter, Backoff: soakBackoff, Timeout: soakTimeout}
}

// server starts a flaky provider.
func (fx *soakFixture) server(t *testing.T) (*fakeserver.Server, *faultmix.Mix) {
	m := fx.mix()
	require.NoError(t, m.Check())
	s := fakeserver.Start(t, m.Script())
	s.SetChunkDelay(soakPace)
	s.KeepRequests(false) // the server's log would grow with the run
	return s, m
}

// catalog writes a Featherbench catalog of the soak's models at s.
func (fx *soakFixture) catalog(t *testing.T, s *fakeserver.Server) string {
	entries := map[string]any{}
	for k, key := range fx.models {
		entries[key] = map[string]any{"backend": "openai", "base_url": s.URL, "model": fmt.Sprintf("vendor/soak-%d", k+1), "enabled": true}
	}
	return soakWriteJSON(t, entries)
}

func soakWriteJSON(t *testing.T, v any) string {
	b, err := json.MarshalIndent(v, "", "  ")
	require.NoError(t, err)
	p := filepath.Join(t.TempDir(), "catalog.json")
	require.NoError(t, os.WriteFile(p, b, 0o644))
	return p
}

// trialKey names a trial.
func soakKey(model, task string, trial int) string {
	return fmt.Sprintf("%s/%s/%d", model, task, trial)
}

// expected is every trial of a run of tasks (the first n of the soak's).
func (fx *soakFixture) expected(tasks int) map[string]bool {
	out := map[string]bool{}
	for _, m := range fx.models {
		for _, task := range fx.tasks[:tasks] {
			for n := 1; n <= fx.size.trials; n++ {
				out[soakKey(m, task.ID, n)] = true
			}
		}
	}
	return out
}

// recordCheck is what a results file holds, checked record by record.
type recordCheck struct {
	records, answered, garbled int
	errors                     map[string]int // by cause
	examples                   map[string][]featherbench.Record
}

// soakCauses name an error record's cause from its message.
var soakCauses = []struct{ cause, text string }{
	{string(faultmix.Reset), "connection reset by peer"},
	{string(faultmix.Hang), "no complete answer within"},
	{string(faultmix.Malformed), "unreadable stream chunk"},
	{"retries used up", "gave up after"},
}

// checkRecords reads a run's results file and checks it: every line a
// whole record, every trial of want exactly once and nothing else, each
// answer the one the provider gave (text, verdict, tokens as reported or
// 0 when the usage was garbled), each error one the faults explain.
func (fx *soakFixture) checkRecords(t *testing.T, path string, want map[string]bool) recordCheck {
	t.Helper()
	recs, err := featherbench.ReadRecords(path)
	require.NoError(t, err, "every line of the results file is a whole record")
	c := recordCheck{records: len(recs), errors: map[string]int{}, examples: map[string][]featherbench.Record{}}
	seen := map[string]int{}
	hashes := map[string]string{}
	for _, task := range fx.tasks {
		hashes[task.ID] = task.Hash
	}
	stamp := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(path), "results-"), ".jsonl")
	for _, r := range recs {
		key := soakKey(r.Model, r.Task, r.Trial)
		seen[key]++
		if !want[key] {
			t.Errorf("%s: a record of %s, which the run does not hold", path, key)
			continue
		}
		assert.Equal(t, stamp, r.RunID, key)
		assert.Equal(t, hashes[r.Task], r.TaskHash, key)
		k := slices.Index(fx.models, r.Model)
		i, _ := strconv.Atoi(strings.TrimPrefix(r.Task, "soak-"))
		if r.Error != nil {
			cause := soakCause(*r.Error)
			c.errors[cause]++
			c.examples[cause] = append(c.examples[cause], r)
			if !strings.HasPrefix(fx.text(k, i), r.Text) {
				t.Errorf("%s: %s holds %q, which the provider never sent before the error", path, key, r.Text)
			}
			continue
		}
		c.answered++
		if r.Text != fx.text(k, i) || r.Passed == nil || *r.Passed != fx.right(k, i) {
			t.Errorf("%s: %s holds %q (passed %v), not the provider's answer", path, key, r.Text, r.Passed)
		}
		switch [2]int{r.InputTokens, r.OutputTokens} {
		case [2]int{soakIn, soakOut}:
		case [2]int{0, 0}:
			c.garbled++
		default:
			t.Errorf("%s: %s has %d/%d tokens; the provider reported %d/%d", path, key, r.InputTokens, r.OutputTokens, soakIn, soakOut)
		}
	}
	missing, twice := 0, 0
	for key := range want {
		switch seen[key] {
		case 0:
			missing++
		case 1:
		default:
			twice++
			t.Errorf("%s: %s is recorded %d times", path, key, seen[key])
		}
	}
	assert.Zero(t, twice, "no trial is recorded twice")
	assert.Zero(t, missing, "no trial is lost")
	if unknown := c.examples["other"]; len(unknown) > 0 {
		t.Errorf("%s: %s that no injected fault explains, the first: %s", path, plural.Of(len(unknown), "error record"), *unknown[0].Error)
	}
	return c
}

func soakCause(msg string) string {
	for _, c := range soakCauses {
		if strings.Contains(msg, c.text) {
			return c.cause
		}
	}
	return "other"
}

// soakResultsFile is the one results file under a run directory.
func soakResultsFile(t *testing.T, runDir string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(runDir, "featherbench", "results-*.jsonl"))
	require.NoError(t, err)
	require.Len(t, files, 1, "one results file in %s", runDir)
	return files[0]
}

// inProcessRun runs c's models side by side in this process, each opened
// from the catalog and closed after, and returns each model's error and
// Finish's.
func inProcessRun(t *testing.T, c featherbench.Config) (run *featherbench.Run, modelErrs []error, finishErr error) {
	t.Helper()
	run, err := featherbench.NewRun(c)
	require.NoError(t, err)
	models := run.Models()
	modelErrs = make([]error, len(models))
	var wg sync.WaitGroup
	for i, e := range models {
		m, err := catalog.Open(t.Context(), e)
		require.NoError(t, err)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer m.Close()
			_, modelErrs[i] = run.RunModel(t.Context(), e, m.(lm.Generator))
		}()
	}
	wg.Wait()
	return run, modelErrs, run.Finish(nil)
}

// withAPITimeout sets -api.timeout for the models a test opens.
func withAPITimeout(t *testing.T, d time.Duration) {
	saved := *apiopt.Timeout
	*apiopt.Timeout = d
	t.Cleanup(func() { *apiopt.Timeout = saved })
}

// faultFigures are what the uninterrupted run under faults measured.
type faultFigures struct {
	trials, requests                      int
	wall, ideal                           time.Duration
	injected                              map[faultmix.Kind]int
	garbled                               int
	check                                 recordCheck
	rssStart, rssWarm, rssPeak, rssGrowth int64
	goroutines, files                     [2]int    // at the start, after the run
	heap                                  [3]uint64 // live: at the start, at the end with the run, after it
}

// soakFaults runs every trial once, in this process, through the flaky
// provider: nothing lost, each fault survived as its kind should be, and
// memory flat, with goroutines and open files back where they started.
func soakFaults(t *testing.T, fx *soakFixture) faultFigures {
	size := fx.size
	withAPITimeout(t, soakTimeout)
	var f faultFigures
	f.trials = size.total()
	f.goroutines[0], f.files[0], f.heap[0] = runtime.NumGoroutine(), soakOpenFiles(t), soakHeap()
	var done atomic.Int64
	// The run's own memory is what it adds to the process: under make
	// test the same process has already opened other tests' models.
	rssStart, err := procstat.RSS(procstat.Self)
	require.NoError(t, err)
	f.rssStart = rssStart
	sampler := procstat.Start(procstat.Self, 100*time.Millisecond, func() int { return int(done.Load()) })
	var mix *faultmix.Mix
	var path string
	t.Run("run", func(t *testing.T) {
		var s *fakeserver.Server
		s, mix = fx.server(t)
		results := filepath.Join(t.TempDir(), "results")
		start := time.Now()
		run, errs, err := inProcessRun(t, featherbench.Config{
			TasksDir: fx.tasksDir, Catalog: fx.catalog(t, s), Trials: size.trials, Concurrency: size.concurrency,
			Rubric: featherbench.RubricOptions{Off: true}, Dir: rundir.New(results, time.Now()),
			OnUnit: func(string, unit.Unit) { done.Add(1) },
		})
		f.wall = time.Since(start)
		for _, err := range errs {
			require.NoError(t, err)
		}
		require.NoError(t, err)
		path = soakResultsFile(t, fbRunDir(t, results))
		f.check = fx.checkRecords(t, path, fx.expected(size.tasks))
		f.heap[1] = soakHeap() // the run holds its records for the summary
		runtime.KeepAlive(run)
	})
	series, err := sampler.Stop()
	require.NoError(t, err)
	if t.Failed() {
		return f
	}
	st := mix.Stats()
	f.requests, f.injected, f.garbled, f.ideal = st.Requests, st.Injected, st.Garbled, st.IdealWall(size.concurrency)

	// Each fault that ends a stream after its tokens began is one error
	// record; every other trial is answered, a garbled usage as no usage.
	for _, k := range faultmix.Kinds {
		if k.Terminal() && !assert.Equal(t, f.injected[k], f.check.errors[string(k)], "%s: one error record each", k) {
			for _, r := range f.check.examples[string(k)] {
				t.Logf("%s/%s/%d: %q after %v s: %s", r.Model, r.Task, r.Trial, r.Text, soakSeconds(r.WallClockS), *r.Error)
			}
		}
	}
	assert.Equal(t, f.garbled, f.check.garbled, "each garbled usage, and only those, reads as no usage")
	assert.LessOrEqual(t, f.check.errors["retries used up"]*4, f.injected[faultmix.RateLimit]+f.injected[faultmix.Status500]+f.injected[faultmix.Status503])

	warm := series.From(size.total() / 10)
	require.NotEmpty(t, warm, "readings after warm-up")
	f.rssWarm, f.rssPeak, f.rssGrowth = warm[0].RSS, series.Peak(), warm.Growth()
	if soakAlone() {
		assert.LessOrEqual(t, f.rssPeak-f.rssStart, size.rssLimit, "resident memory the run adds, at %d trials (from %s)", size.total(), soakMB(f.rssStart))
		assert.LessOrEqual(t, f.rssGrowth, size.rssGrowth, "resident memory after warm-up stays flat")
	} else {
		t.Logf("resident memory is not held to its bounds: other tests share this process and its heap (make soak, or go test -run TestSoak ., runs the soak alone)")
	}

	// The server and the models are closed: what the run started ends.
	f.goroutines[1], f.files[1] = soakSettle(t, f.goroutines[0], f.files[0])
	f.heap[2] = soakHeap()
	assert.Less(t, f.heap[2], f.heap[0]+4<<20, "the live heap returns to where it started, give or take the server's notes of the bodies it saw")
	assert.LessOrEqual(t, f.goroutines[1], f.goroutines[0], "goroutines return to their starting count")
	assert.LessOrEqual(t, f.files[1], f.files[0], "open files return to their starting count")
	return f
}

// soakAlone reports whether this binary runs the soak by itself, so its
// resident memory is the soak's: under make test other tests' models and
// heap share the process, and the collector's pace follows their heap.
func soakAlone() bool {
	p := runPattern()
	return p != "" && strings.Contains(p, "TestSoak") && !strings.Contains(p, "|")
}

// soakHeap is the live heap after a collection.
func soakHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// soakOpenFiles counts this process's open files.
func soakOpenFiles(t *testing.T) int {
	n, err := procstat.OpenFiles(procstat.Self)
	require.NoError(t, err)
	return n
}

// soakSettle waits up to 10 s for goroutines and open files to come down
// to their starting counts (connections close asynchronously) and
// returns the counts then.
func soakSettle(t *testing.T, goroutines, files int) (int, int) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		g, f := runtime.NumGoroutine(), soakOpenFiles(t)
		if (g <= goroutines && f <= files) || time.Now().After(deadline) {
			return g, f
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// killFigures are what the killed and resumed runs measured.
type killFigures struct {
	kills            map[string]int // by suite
	runs             int            // child processes
	trials           int
	torn             int // records cut short by a kill, moved aside on resume
	retried          int // error records asked again (-fb.retry-errors)
	injected         map[faultmix.Kind]int
	check            recordCheck
	fwItems, mbItems int
	rssPeak          int64
	wall             time.Duration
}

// soakChild is one run of the test binary.
type soakChild struct {
	cmd  *exec.Cmd
	out  *soakTail
	done chan struct{}
	code int
	rss  *procstat.Sampler
}

// soakTail keeps the last lines of a child's output.
type soakTail struct {
	mu    sync.Mutex
	lines []string
}

func (s *soakTail) add(line string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lines = append(s.lines, line)
	if len(s.lines) > 60 {
		s.lines = s.lines[len(s.lines)-60:]
	}
}

func (s *soakTail) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.lines, "\n")
}

// soakStart runs this test binary on the suites with args, in its own
// process group, with none of this environment's FEATHER_ variables.
func soakStart(t *testing.T, args ...string) *soakChild {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-test.run", "^(TestFeatherbench|TestFeatherweight|TestMicrobench)$"}, args...)...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "FEATHER_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "FEATHER_PROGRESS=0")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	pipe, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = cmd.Stdout
	require.NoError(t, cmd.Start())
	c := &soakChild{cmd: cmd, out: &soakTail{}, done: make(chan struct{})}
	c.rss = procstat.Start(cmd.Process.Pid, 100*time.Millisecond, nil)
	t.Cleanup(func() {
		if !c.exited() { // a failed assertion left it running
			c.kill()
			c.wait()
		}
	})
	go func() {
		defer close(c.done)
		sc := bufio.NewScanner(pipe)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			c.out.add(sc.Text())
		}
		io.Copy(io.Discard, pipe)
		err := cmd.Wait()
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee):
			c.code = ee.ExitCode()
		case err != nil:
			c.code = -2
		}
	}()
	return c
}

// kill ends the child with SIGKILL: no handler runs, nothing is flushed.
func (c *soakChild) kill() { syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL) }

// wait waits for the child and returns its exit code (-1: killed) and its
// peak resident memory.
func (c *soakChild) wait() (int, int64) {
	<-c.done
	series, _ := c.rss.Stop()
	return c.code, series.Peak()
}

func (c *soakChild) exited() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// soakKill is a point of a run to kill it at.
type soakKill struct {
	suite string
	// at is, for featherbench, the records its results file holds; for
	// the others, the requests their server has had in this run.
	at int
	// written, when set, is a file under the run directory instead: the
	// kill comes as soon as the run has rewritten it, when a suite that
	// runs again on resume has just saved its results.
	written string
}

func (k soakKill) String() string {
	if k.written != "" {
		return k.suite + " once " + k.written + " is written"
	}
	return fmt.Sprintf("%s at %d", k.suite, k.at)
}

// soakKills kills the test binary at random points of a run of the three
// suites and resumes it each time, then checks that every trial and item
// is recorded exactly once, whole, and as an uninterrupted run has it.
func soakKills(t *testing.T, fx *soakFixture) killFigures {
	size := fx.size
	rng := rand.New(rand.NewPCG(fx.seed, 0x50a4))
	fb, mix := fx.server(t)
	fw := fakeserver.Start(t, func(fakeserver.Request) fakeserver.Reply { return fakeserver.Reply{Text: "The answer is B."} })
	mb := fakeserver.Start(t, nil) // log-probs from the server's toy model
	for _, s := range []*fakeserver.Server{fw, mb} {
		s.SetChunkDelay(0)
		s.KeepRequests(false)
	}
	fwCat := soakWriteJSON(t, map[string]any{"soak-fw": map[string]any{"backend": "openai", "base_url": fw.URL, "model": "fw", "enabled": true}})
	mbCat := soakWriteJSON(t, map[string]any{"soak-mb": map[string]any{"backend": "openai", "base_url": mb.URL, "model": "mb", "chat": "no", "enabled": true}})
	args := func(results string, fbCatalog string) []string {
		return []string{"-fb.catalog", fbCatalog, "-fb.tasks-dir", fx.tasksDir, "-fb.trials", strconv.Itoa(size.trials),
			"-fb.concurrency", strconv.Itoa(size.concurrency), "-fb.no-rubric", "-fw.catalog", fwCat, "-mb.catalog", mbCat,
			"-api.timeout", soakTimeout.String(), "-api.concurrency", "8", "-results", results}
	}
	dir := t.TempDir()
	f := killFigures{kills: map[string]int{}, trials: size.total()}

	// Featherweight and μBench alone, uninterrupted: what their files must
	// hold, and how many requests a run of each makes.
	ref := filepath.Join(dir, "reference")
	child := soakStart(t, append(args(ref, fx.catalog(t, fb)), "-test.run", "^(TestFeatherweight|TestMicrobench)$")...)
	code, _ := child.wait()
	require.Equal(t, 0, code, "the reference run of Featherweight and μBench:\n%s", child.out)
	refDir := fbRunDir(t, ref)
	fwTotal, mbTotal := fw.Count(), mb.Count()

	// The kill points: Featherbench's at sorted random record counts, then
	// Featherweight's and μBench's at random requests into their run, the
	// last of each just after it saved its files, so that the next run
	// saves them again over a whole earlier attempt.
	var plan []soakKill
	for range size.fbKills {
		plan = append(plan, soakKill{suite: "featherbench", at: 1 + rng.IntN(size.total()-1)})
	}
	slices.SortFunc(plan, func(a, b soakKill) int { return a.at - b.at })
	for i := range size.fwKills {
		k := soakKill{suite: "featherweight", at: 1 + rng.IntN(fwTotal)}
		if i == size.fwKills-1 {
			k = soakKill{suite: "featherweight", written: filepath.Join("featherweight", featherweight.ModelsDir, "soak-fw.json")}
		}
		plan = append(plan, k)
	}
	for i := range size.mbKills {
		k := soakKill{suite: "microbench", at: 1 + rng.IntN(mbTotal)}
		if i == size.mbKills-1 {
			k = soakKill{suite: "microbench", written: filepath.Join("microbench", "soak-mb.json")}
		}
		plan = append(plan, k)
	}

	t.Logf("kill points: %v", plan)

	results := filepath.Join(dir, "results")
	lines := &soakLines{results: results}
	cat := fx.catalog(t, fb)
	runDir := ""
	start := time.Now()
	injectedBefore := mix.Stats()
	for _, k := range plan {
		a := args(results, cat)
		if runDir != "" {
			a = append(a, "-resume", runDir, "-fb.retry-errors")
		}
		fwAt, mbAt, started := fw.Count(), mb.Count(), time.Now()
		reached := func() bool {
			switch {
			case k.written != "":
				st, err := os.Stat(filepath.Join(runDir, k.written))
				return err == nil && st.ModTime().After(started)
			case k.suite == "featherbench":
				return lines.count() >= k.at
			case k.suite == "featherweight":
				return fw.Count()-fwAt >= k.at
			}
			return mb.Count()-mbAt >= k.at
		}
		child := soakStart(t, a...)
		f.runs++
		for !child.exited() {
			if reached() {
				time.Sleep(time.Duration(rng.IntN(20)) * time.Millisecond) // anywhere between two events
				child.kill()
				break
			}
			time.Sleep(2 * time.Millisecond)
		}
		code, peak := child.wait()
		f.rssPeak = max(f.rssPeak, peak)
		if code == -1 {
			f.kills[k.suite]++
		} else {
			t.Logf("run %d ended (exit %d) before its kill point (%v):\n%s", f.runs, code, k, child.out)
		}
		if runDir == "" {
			if dirs, _ := filepath.Glob(filepath.Join(results, "2*")); len(dirs) == 1 {
				runDir = dirs[0]
			}
		}
	}

	// Resume until a run ends whole: every error trial asked again.
	for pass := 0; ; pass++ {
		require.Less(t, pass, 8, "resumed runs until none fails")
		a := args(results, cat)
		if runDir != "" {
			a = append(a, "-resume", runDir, "-fb.retry-errors")
		}
		child := soakStart(t, a...)
		f.runs++
		code, peak := child.wait()
		f.rssPeak = max(f.rssPeak, peak)
		if runDir == "" {
			runDir = fbRunDir(t, results)
		}
		if code == 0 {
			break
		}
		recs, err := featherbench.ReadRecords(soakResultsFile(t, runDir))
		require.NoError(t, err)
		errored := 0
		for _, r := range recs {
			if r.Error != nil {
				errored++
			}
		}
		require.Positive(t, errored, "a run fails only for its error records:\n%s", child.out)
	}
	f.wall = time.Since(start)
	f.injected = mix.Stats().Sub(injectedBefore).Injected
	assert.LessOrEqual(t, f.rssPeak, size.rssLimit, "the test binary's resident memory")

	path := soakResultsFile(t, runDir)
	f.check = fx.checkRecords(t, path, fx.expected(size.tasks))
	assert.Equal(t, size.total(), f.check.answered, "every trial answered in the end")
	f.torn = soakCountLines(t, path+".torn")
	f.retried = soakCountLines(t, path+".retried")
	if f.retried > 0 {
		_, err := featherbench.ReadRecords(path + ".retried")
		assert.NoError(t, err, "the retried error records are kept whole")
	}
	f.fwItems = soakCheckFeatherweight(t, runDir, refDir)
	f.mbItems = soakCheckMicrobench(t, runDir, refDir)
	return f
}

// soakLines counts the lines of the one results file under a results
// folder as it grows, reading only what was appended since it last
// looked (a file that shrank, rewritten by -fb.retry-errors or cut by a
// resume, is counted afresh).
type soakLines struct {
	results string
	path    string
	offset  int64
	lines   int
	buf     []byte
}

func (c *soakLines) count() int {
	if c.path == "" {
		files, _ := filepath.Glob(filepath.Join(c.results, "2*", "featherbench", "results-*.jsonl"))
		if len(files) != 1 {
			return 0
		}
		c.path = files[0]
	}
	f, err := os.Open(c.path)
	if err != nil {
		return c.lines
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() < c.offset {
		c.offset, c.lines = 0, 0
	}
	if c.buf == nil {
		c.buf = make([]byte, 1<<16)
	}
	for {
		n, err := f.ReadAt(c.buf, c.offset)
		c.lines += bytes.Count(c.buf[:n], []byte("\n"))
		c.offset += int64(n)
		if err != nil || n == 0 {
			return c.lines
		}
	}
}

func soakCountLines(t *testing.T, path string) int {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0
	}
	require.NoError(t, err)
	return bytes.Count(b, []byte("\n"))
}

// soakCheckFeatherweight: the killed run's Featherweight files hold each
// item of each style once, as the uninterrupted run's do.
func soakCheckFeatherweight(t *testing.T, runDir, refDir string) int {
	t.Helper()
	read := func(dir string) featherweight.ModelFile {
		files, err := filepath.Glob(filepath.Join(dir, "featherweight", featherweight.ModelsDir, "*.json"))
		require.NoError(t, err)
		require.Equal(t, []string{filepath.Join(dir, "featherweight", featherweight.ModelsDir, "soak-fw.json")}, files, "one model file")
		f, err := featherweight.ReadModelFile(files[0])
		require.NoError(t, err)
		for i := range f.Items {
			f.Items[i].LatencyMS, f.Items[i].TTFTMS = 0, 0
		}
		return f
	}
	got, want := read(runDir), read(refDir)
	seen := map[string]int{}
	for _, r := range got.Items {
		seen[string(r.Style)+"/"+r.ID]++
	}
	for k, n := range seen {
		assert.Equal(t, 1, n, "featherweight %s recorded once", k)
	}
	assert.Equal(t, want, got, "the Featherweight model file equals an uninterrupted run's")
	for _, name := range []string{featherweight.SummaryJSON, featherweight.SummaryCSV, featherweight.SummaryMD, featherweight.ChartJSON} {
		a, err := os.ReadFile(filepath.Join(runDir, "featherweight", name))
		require.NoError(t, err)
		b, err := os.ReadFile(filepath.Join(refDir, "featherweight", name))
		require.NoError(t, err)
		assert.Equal(t, string(b), string(a), "featherweight %s", name)
	}
	return len(got.Items)
}

// soakCheckMicrobench: the killed run's μBench folder holds the model's
// result once, whole, as the uninterrupted run's, and a leaderboard of it.
func soakCheckMicrobench(t *testing.T, runDir, refDir string) int {
	t.Helper()
	read := func(dir string) *microbench.Result {
		files, err := filepath.Glob(filepath.Join(dir, "microbench", "*.json"))
		require.NoError(t, err)
		require.Equal(t, []string{filepath.Join(dir, "microbench", "soak-mb.json")}, files, "one result file for the model")
		r, err := microbench.ReadResult(files[0])
		require.NoError(t, err)
		r.Run, r.ScoringSeconds = "", 0
		return r
	}
	got, want := read(runDir), read(refDir)
	seen := map[string]int{}
	for _, r := range got.Items {
		seen[r.Task+"/"+r.ID]++
	}
	for k, n := range seen {
		assert.Equal(t, 1, n, "μBench %s recorded once", k)
	}
	assert.Equal(t, want, got, "the μBench result equals an uninterrupted run's")
	a, err := os.ReadFile(filepath.Join(runDir, "microbench", "leaderboard.md"))
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(refDir, "microbench", "leaderboard.md"))
	require.NoError(t, err)
	assert.Equal(t, string(b), string(a), "the μBench leaderboard")
	return len(got.Items) + len(got.Documents)
}

// diskFigures are what the run on a disk that fills up saw.
type diskFigures struct {
	how            string // tmpfs or the ENOSPC writer
	trials, before int    // in all; recorded when the disk filled
	check          recordCheck
}

// soakFullDisk runs Featherbench with its results on a disk that fills up
// mid-run: the run stops with an error naming the file, what it recorded
// is readable, and once there is room -resume records the rest, each
// trial once. As root the disk is a size-limited tmpfs; otherwise, or
// with FEATHER_SOAK_DISK=enospc, a writer that runs out of room.
func soakFullDisk(t *testing.T, fx *soakFixture) diskFigures {
	size := fx.size
	withAPITimeout(t, soakTimeout)
	s, _ := fx.server(t)
	want := fx.expected(size.diskTasks)
	total := len(want)
	// Room for about half the records.
	room := int64(total/2) * int64(soakRecordBytes(t, fx))
	root := t.TempDir()
	grow, how := soakDisk(t, root, room)
	f := diskFigures{how: how, trials: total}
	var open func(string) (featherbench.ResultsFile, error)
	if grow == nil {
		disk := diskfull.New(room)
		open = func(p string) (featherbench.ResultsFile, error) { return disk.OpenAppend(p) }
		grow = func() { disk.Grow(1 << 30) }
	}
	ids := make([]string, size.diskTasks)
	for i, task := range fx.tasks[:size.diskTasks] {
		ids[i] = task.ID
	}
	c := featherbench.Config{
		TasksDir: fx.tasksDir, TaskIDs: ids, Catalog: fx.catalog(t, s), Trials: size.trials, Concurrency: size.concurrency,
		Rubric: featherbench.RubricOptions{Off: true}, Dir: rundir.New(filepath.Join(root, "results"), time.Now()), OpenResults: open,
	}
	_, errs, finish := inProcessRun(t, c)
	runDir, err := c.Dir.Path()
	require.NoError(t, err)
	path := soakResultsFile(t, runDir)
	for _, err := range errs {
		require.Error(t, err, "the run stops")
		assert.Equal(t, "writing "+path+": no space left on device", err.Error(), "the error names the file")
	}
	require.Error(t, finish)
	assert.Contains(t, finish.Error(), "Make room, then continue with the same options and -resume "+runDir)
	t.Logf("on %s the run stopped: %v", how, finish)

	recs, err := featherbench.ReadRecords(path)
	require.NoError(t, err, "what was recorded before the disk filled is readable")
	f.before = len(recs)
	require.Positive(t, f.before)
	require.Less(t, f.before, total, "the disk filled mid-run")
	soakRecordsWithin(t, recs, want)

	grow()
	c.Dir, err = rundir.Existing(runDir)
	require.NoError(t, err)
	c.Resume = true
	_, errs, finish = inProcessRun(t, c)
	for _, err := range errs {
		require.NoError(t, err)
	}
	require.NoError(t, finish)
	f.check = fx.checkRecords(t, path, want)
	return f
}

// soakRecordsWithin checks that recs are trials of want, each once.
func soakRecordsWithin(t *testing.T, recs []featherbench.Record, want map[string]bool) {
	seen := map[string]bool{}
	for _, r := range recs {
		key := soakKey(r.Model, r.Task, r.Trial)
		assert.True(t, want[key], key)
		assert.False(t, seen[key], "%s recorded once", key)
		seen[key] = true
	}
}

// soakRecordBytes is the size of one record line of the soak's answers.
func soakRecordBytes(t *testing.T, fx *soakFixture) int {
	l, s := 0.5, 2.5
	b, err := json.Marshal(featherbench.Record{
		RunID: "20260704T101530Z", Task: fx.tasks[0].ID, TaskHash: fx.tasks[0].Hash, Model: fx.models[0], Trial: 10,
		Timestamp: "2026-07-04T10:15:30Z", Text: fx.text(0, 1), ToolCalls: []featherbench.ToolCall{}, Passed: new(bool),
		CheckDetail: new(string), StopReason: "eos", LatencyS: &l, WallClockS: &s, InputTokens: soakIn, OutputTokens: soakOut,
		SamplingSent: map[string]any{},
	})
	require.NoError(t, err)
	return len(b) + 60 // room for the check detail and the timings' digits
}

// soakDisk mounts a tmpfs of room bytes at root/results when it can (as
// root), and returns how to make room on it; nil when it cannot, or under
// FEATHER_SOAK_DISK=enospc.
func soakDisk(t *testing.T, root string, room int64) (grow func(), how string) {
	mnt := filepath.Join(root, "results")
	require.NoError(t, os.MkdirAll(mnt, 0o755))
	if os.Getenv("FEATHER_SOAK_DISK") == "enospc" {
		return nil, "a writer that runs out of room (FEATHER_SOAK_DISK=enospc)"
	}
	if os.Geteuid() != 0 {
		return nil, "a writer that runs out of room (not root: no tmpfs)"
	}
	size := fmt.Sprintf("size=%dk", (room+4095)/4096*4)
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, size); err != nil {
		return nil, fmt.Sprintf("a writer that runs out of room (mounting a tmpfs failed: %v)", err)
	}
	t.Cleanup(func() { syscall.Unmount(mnt, syscall.MNT_DETACH) })
	return func() {
		require.NoError(t, syscall.Mount("tmpfs", mnt, "tmpfs", syscall.MS_REMOUNT, "size=256m"))
	}, fmt.Sprintf("a %d KiB tmpfs", (room+4095)/4096*4)
}

// soakFigures are the soak's numbers, for docs/ci.md.
type soakFigures struct {
	faults faultFigures
	kills  killFigures
	disk   diskFigures
	took   time.Duration
}

func (s soakFigures) markdown(size soakSize) string {
	var b strings.Builder
	f := s.faults
	fmt.Fprintf(&b, "| figure | %s |\n|---|---|\n", size.name)
	if f.trials > 0 {
		s.faultRows(&b, size)
	}
	if k := s.kills; k.trials > 0 {
		s.killRows(&b)
	}
	if d := s.disk; d.trials > 0 {
		fmt.Fprintf(&b, "| full disk | %s: %d of %d trials recorded when it filled, all readable; resumed to %d, each once |\n", d.how, d.before, d.trials, d.check.records)
	}
	fmt.Fprintf(&b, "| soak time | %.0f s |\n", s.took.Seconds())
	return b.String()
}

func (s soakFigures) faultRows(b *strings.Builder, size soakSize) {
	f := s.faults
	fmt.Fprintf(b, "| trials, concurrency | %d (%d models × %d tasks × %d trials), %d |\n", f.trials, size.models, size.tasks, size.trials, size.concurrency)
	fmt.Fprintf(b, "| wall time, trials/s | %.1f s, %.0f trials/s |\n", f.wall.Seconds(), float64(f.trials)/f.wall.Seconds())
	fmt.Fprintf(b, "| ideal wall time, overhead | %.1f s, %+.0f%% |\n", f.ideal.Seconds(), 100*(f.wall.Seconds()/f.ideal.Seconds()-1))
	fmt.Fprintf(b, "| requests | %d |\n", f.requests)
	for _, k := range faultmix.Kinds {
		fmt.Fprintf(b, "| %s | %d injected, %d survived: %s |\n", k, f.injected[k], f.injected[k], soakHow(k, f))
	}
	fmt.Fprintf(b, "| records checked | %d (%d answered, %d error records) |\n", f.check.records, f.check.answered, f.check.records-f.check.answered)
	fmt.Fprintf(b, "| resident memory | %s before the run, %s after warm-up, %s at most, %s growth after warm-up |\n", soakMB(f.rssStart), soakMB(f.rssWarm), soakMB(f.rssPeak), soakMB(f.rssGrowth))
	fmt.Fprintf(b, "| live heap | %s at the start, %s at the end (the records the run keeps for its summary, %d B a trial), %s after |\n",
		soakMB(int64(f.heap[0])), soakMB(int64(f.heap[1])), (int64(f.heap[1])-int64(f.heap[0]))/int64(f.trials), soakMB(int64(f.heap[2])))
	fmt.Fprintf(b, "| goroutines, open files | %d → %d, %d → %d |\n", f.goroutines[0], f.goroutines[1], f.files[0], f.files[1])
}

func (s soakFigures) killRows(b *strings.Builder) {
	k := s.kills
	injected := 0
	for _, n := range k.injected {
		injected += n
	}
	fmt.Fprintf(b, "| kills survived | %d (Featherbench %d, Featherweight %d, μBench %d) in %d runs of the test binary, %.0f s, %d faults injected meanwhile |\n",
		k.kills["featherbench"]+k.kills["featherweight"]+k.kills["microbench"], k.kills["featherbench"], k.kills["featherweight"], k.kills["microbench"], k.runs, k.wall.Seconds(), injected)
	fmt.Fprintf(b, "| records checked after the kills | %d trials once each, %d cut short and moved aside, %d error records asked again; %d Featherweight and %d μBench units once each |\n",
		k.check.records, k.torn, k.retried, k.fwItems, k.mbItems)
	fmt.Fprintf(b, "| test binary's resident memory | %s at most |\n", soakMB(k.rssPeak))
}

func soakMB(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }

func soakHow(k faultmix.Kind, f faultFigures) string {
	switch {
	case k.Retried():
		how := "retried after the wait asked"
		if k == faultmix.Status500 {
			how = "retried after a backoff"
		}
		if n := f.check.errors["retries used up"]; n > 0 {
			how += fmt.Sprintf(" (%s of them ran out of -api.attempts: error records, asked again by -fb.retry-errors)", plural.Of(n, "trial"))
		}
		return how
	case k.Terminal():
		return "recorded as an error naming it, asked again by -fb.retry-errors"
	case k == faultmix.WrongUsage:
		return fmt.Sprintf("answer kept; %d garbled counts read as unreported", f.garbled)
	}
	return "answered"
}

func soakSeconds(p *float64) float64 {
	if p == nil {
		return -1
	}
	return *p
}
