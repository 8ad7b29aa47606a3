package featherbench

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/run/rundir"
	"github.com/feather-eval/feather/internal/diskfull"
)

// TestWriterOnAFullDisk: the write that does not fit is cut back off, so
// the file holds only whole records and stays readable; the error names
// the file; the writer takes nothing more; and appending goes on after
// the last whole record once there is room.
func TestWriterOnAFullDisk(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.jsonl")
	rec := func(trial int) Record {
		return Record{RunID: "r", Task: "t", Model: "m", Trial: trial, Text: strings.Repeat("answer ", 20), ToolCalls: []ToolCall{}}
	}
	line, err := json.Marshal(rec(1))
	require.NoError(t, err)
	room := int64(len(line)+1)*5/2 + 1 // two records and half of a third
	disk := diskfull.New(room)
	w := NewWriter(path)
	w.Open = func(p string) (ResultsFile, error) { return disk.OpenAppend(p) }
	require.NoError(t, w.Write(rec(1)))
	require.NoError(t, w.Write(rec(2)))
	err = w.Write(rec(3))
	require.Error(t, err)
	assert.EqualError(t, err, "writing "+path+": no space left on device")
	assert.ErrorIs(t, err, syscall.ENOSPC)
	assert.Equal(t, err, w.Err())
	select {
	case <-w.Failed():
	default:
		t.Fatal("Failed is closed")
	}
	assert.Equal(t, err, w.Write(rec(4)), "the first failure is final")
	assert.Equal(t, 2, w.Count())
	require.NoError(t, w.Close())

	recs, err := ReadRecords(path)
	require.NoError(t, err, "what was recorded before stays readable")
	assert.Equal(t, []Record{rec(1), rec(2)}, recs)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, room-int64(len(data)), disk.Free(), "the cut part of the third record is free again")

	disk.Grow(1 << 20)
	w = NewWriter(path)
	w.Open = func(p string) (ResultsFile, error) { return disk.OpenAppend(p) }
	require.NoError(t, w.Write(rec(3)))
	require.NoError(t, w.Close())
	recs, err = ReadRecords(path)
	require.NoError(t, err)
	assert.Equal(t, []Record{rec(1), rec(2), rec(3)}, recs)
}

// TestRunStopsOnAFullDisk: a run whose results file fills its disk stops
// every model, starts no trial after the failed write, keeps no record it
// could not write, says what it holds and how to go on, and, once there
// is room, its -resume records each remaining trial once.
func TestRunStopsOnAFullDisk(t *testing.T) {
	c := runConfig(t)
	c.Rubric.Off, c.Concurrency = true, 1
	disk := diskfull.New(1500)
	c.OpenResults = func(p string) (ResultsFile, error) { return disk.OpenAppend(p) }
	r, err := NewRun(c)
	require.NoError(t, err)
	good, shaky := runModels()
	errs := runBoth(t, r, c, good, shaky)
	runDir, err := c.Dir.Path()
	require.NoError(t, err)
	results := filepath.Join(runDir, "featherbench", "results-20260704T101530Z.jsonl")
	for _, err := range errs {
		assert.EqualError(t, err, "writing "+results+": no space left on device", "each model stops with the error")
	}
	onDisk, err := ReadRecords(results)
	require.NoError(t, err, "the records written before the disk filled stay readable")
	written := len(onDisk)
	require.Positive(t, written)
	require.Less(t, written, 12)
	assert.Len(t, r.Records(), written, "a record that could not be written is not the run's")
	asked := len(good.Calls().Generate) + len(shaky.Calls().Generate)
	assert.Equal(t, written+1, asked, "no trial starts after the write that failed")

	err = r.Finish(nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the run stopped: writing "+results+": no space left on device. "+
		strconv.Itoa(12-written)+" of 12 selected trials were not run; the "+strconv.Itoa(written)+" recorded before it are whole in "+results+
		". Make room, then continue with the same options and -resume "+runDir)

	disk.Grow(1 << 20)
	c.Dir, err = rundir.Existing(runDir)
	require.NoError(t, err)
	c.Resume = true
	r, err = NewRun(c)
	require.NoError(t, err)
	good, shaky = runModels()
	for _, err := range runBoth(t, r, c, good, shaky) {
		require.NoError(t, err)
	}
	require.NoError(t, r.Finish(nil))
	assert.Equal(t, 12-written, len(good.Calls().Generate)+len(shaky.Calls().Generate), "only the trials not recorded are asked")
	all, err := ReadRecords(results)
	require.NoError(t, err)
	seen := map[string]int{}
	for _, rec := range all {
		seen[rec.Model+"/"+strings.Join(rec.Path(), "/")]++
	}
	assert.Len(t, seen, 12)
	for k, n := range seen {
		assert.Equal(t, 1, n, "%s recorded once", k)
	}
}

// runBoth runs good and shaky side by side, as go test does, and returns
// their errors.
func runBoth(t *testing.T, r *Run, c Config, good, shaky lm.Generator) []error {
	t.Helper()
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, m := range []struct {
		key string
		gen lm.Generator
	}{{"good", good}, {"shaky", shaky}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = r.RunModel(context.Background(), entry(t, c, m.key), m.gen)
		}()
	}
	wg.Wait()
	return errs
}
