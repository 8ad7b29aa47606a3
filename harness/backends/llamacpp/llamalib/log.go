package llamalib

import (
	"strings"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// LogLevel is the severity llama.cpp and ggml give a log line (enum
// ggml_log_level).
type LogLevel int

// Log levels.
const (
	LogDebug LogLevel = 1
	LogInfo  LogLevel = 2
	LogWarn  LogLevel = 3
	LogError LogLevel = 4
)

// SetLogger sends llama.cpp's and ggml's log lines to fn; nil (the
// default) drops them, so their chatter stays out of test and run output.
// Error lines are kept either way: the errors this package returns quote
// the ones a failed call logged.
func SetLogger(fn func(LogLevel, string)) {
	logs.mu.Lock()
	defer logs.mu.Unlock()
	logs.sink = fn
}

// logState assembles lines from the callback's pieces (a message may
// arrive in parts, continued with GGML_LOG_LEVEL_CONT) and remembers the
// latest error lines, numbered so a call can pick out its own.
type logState struct {
	mu      sync.Mutex
	sink    func(LogLevel, string)
	level   LogLevel
	partial strings.Builder
	errs    []string // the latest error lines, at most maxErrs
	nErrs   int      // error lines seen so far
}

const maxErrs = 16

var logs logState

var (
	cbOnce sync.Once
	cb     uintptr
)

// logCallback is the C function pointer llama_log_set gets. purego
// callbacks are never freed and limited in number, so there is one.
func logCallback() uintptr {
	cbOnce.Do(func() {
		cb = purego.NewCallback(func(level int32, text *byte, _ unsafe.Pointer) {
			logs.write(LogLevel(level), goString(text))
		})
	})
	return cb
}

func (l *logState) write(level LogLevel, text string) {
	l.mu.Lock()
	if level == logLevelCont {
		level = l.level
	} else if level != l.level && l.partial.Len() > 0 {
		l.flushLocked() // a new message without a newline ends the last one
	}
	l.level = level
	var out []string
	for {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			l.partial.WriteString(text)
			break
		}
		l.partial.WriteString(text[:i])
		out = append(out, l.flushLocked())
		text = text[i+1:]
	}
	sink := l.sink
	l.mu.Unlock()
	if sink != nil {
		for _, line := range out {
			if line != "" {
				sink(level, line)
			}
		}
	}
}

// flushLocked ends the line being assembled, keeps it if it is an error,
// and returns it.
func (l *logState) flushLocked() string {
	line := strings.TrimSpace(l.partial.String())
	l.partial.Reset()
	if l.level == logLevelError && line != "" {
		l.nErrs++
		l.errs = append(l.errs, line)
		if len(l.errs) > maxErrs {
			l.errs = l.errs[len(l.errs)-maxErrs:]
		}
	}
	return line
}

// mark numbers the error lines logged so far.
func (l *logState) mark() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.nErrs
}

// since returns the error lines logged after mark as ": a; b", or "" when
// there were none.
func (l *logState) since(mark int) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.partial.Len() > 0 && l.level == logLevelError {
		l.flushLocked()
	}
	n := l.nErrs - mark
	if n <= 0 {
		return ""
	}
	n = min(n, len(l.errs))
	return ": " + strings.Join(l.errs[len(l.errs)-n:], "; ")
}

// goString copies a NUL-terminated C string.
func goString(p *byte) string {
	if p == nil {
		return ""
	}
	n := 0
	for *(*byte)(unsafe.Add(unsafe.Pointer(p), n)) != 0 {
		n++
	}
	return string(unsafe.Slice(p, n))
}
