package llamalib

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestLogLines: pieces become lines (a continuation joins the message it
// continues), the sink gets them with their level, and a call picks out
// the error lines logged since its mark.
func TestLogLines(t *testing.T) {
	var l logState
	var got []string
	l.sink = func(level LogLevel, line string) {
		got = append(got, map[LogLevel]string{LogInfo: "I ", LogWarn: "W ", LogError: "E "}[level]+line)
	}
	l.write(LogInfo, "loading")
	l.write(logLevelCont, ".")
	l.write(logLevelCont, ".\n")
	mark := l.mark()
	l.write(LogError, "gguf_init: bad magic\n")
	l.write(LogWarn, "warn one\nwarn two\n")
	l.write(LogError, "failed to load ")
	l.write(logLevelCont, "model")
	assert.Equal(t, ": gguf_init: bad magic; failed to load model", l.since(mark))
	assert.Equal(t, "", l.since(l.mark()))
	assert.Equal(t, []string{"I loading..", "E gguf_init: bad magic", "W warn one", "W warn two"}, got)

	for range maxErrs + 5 {
		l.write(LogError, "x\n")
	}
	assert.Len(t, l.errs, maxErrs)
}
