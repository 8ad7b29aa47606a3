// Package interrupt turns Ctrl-C into an orderly stop in two steps, so a
// long paid run keeps what it has bought. The first SIGINT or SIGTERM ends
// Stop: suites start no new work and let the calls in flight finish. Abort
// ends when the grace period has passed after that, or at a second signal:
// the calls still in flight are cancelled. Either way the suites then write
// every finished record and the summaries of what finished.
package interrupt

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// Watcher holds the two contexts of one process's interrupt handling.
type Watcher struct {
	stop, abort             context.Context
	cancelStop, cancelAbort context.CancelCauseFunc

	mu     sync.Mutex
	signal os.Signal
}

// ErrInterrupted is the cause of both contexts when a signal ended them.
var ErrInterrupted = errors.New("interrupted")

// New returns a Watcher that no signal reaches: Interrupt drives it (tests,
// and Watch's signal loop).
func New() *Watcher {
	w := &Watcher{}
	w.stop, w.cancelStop = context.WithCancelCause(context.Background())
	w.abort, w.cancelAbort = context.WithCancelCause(context.Background())
	return w
}

// Watch handles SIGINT and SIGTERM for the process until release is
// called, which restores the default handling (a later Ctrl-C kills).
// Messages about what happens go to log.
func Watch(grace time.Duration, log io.Writer) (w *Watcher, release func()) {
	w = New()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				w.Interrupt(s, grace, log)
			case <-done:
				return
			}
		}
	}()
	var once sync.Once
	return w, func() {
		once.Do(func() {
			signal.Stop(sigs)
			close(done)
		})
	}
}

// Interrupt acts on one signal: the first ends Stop and schedules Abort
// after grace; the next ends Abort at once.
func (w *Watcher) Interrupt(s os.Signal, grace time.Duration, log io.Writer) {
	w.mu.Lock()
	first := w.signal == nil
	if first {
		w.signal = s
	}
	w.mu.Unlock()
	if !first {
		fmt.Fprintf(log, "\nfeather: %v again: cancelling the calls in flight\n", s)
		w.cancelAbort(ErrInterrupted)
		return
	}
	fmt.Fprintf(log, "\nfeather: %v: starting no new work; calls in flight have %v to finish (%v again cancels them); finished records and summaries are written before exit\n", s, grace, s)
	w.cancelStop(ErrInterrupted)
	time.AfterFunc(grace, func() { w.cancelAbort(ErrInterrupted) })
}

// Stop ends at the first signal: start no new work.
func (w *Watcher) Stop() context.Context { return w.stop }

// Abort ends at the second signal or when the grace period has passed:
// cancel the work in flight.
func (w *Watcher) Abort() context.Context { return w.abort }

// Signal is the first signal received, or nil.
func (w *Watcher) Signal() os.Signal {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.signal
}

// Interrupted reports whether a signal has arrived.
func (w *Watcher) Interrupted() bool { return w.Signal() != nil }

// Within returns a context that ends with parent or with Abort, whichever
// comes first: the context for work in flight.
func (w *Watcher) Within(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	stop := context.AfterFunc(w.abort, func() { cancel(context.Cause(w.abort)) })
	return ctx, func() {
		stop()
		cancel(context.Canceled)
	}
}
