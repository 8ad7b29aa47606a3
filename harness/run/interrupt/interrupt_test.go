package interrupt

import (
	"bytes"
	"context"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func ended(ctx context.Context) bool { return ctx.Err() != nil }

func TestFirstSignalStopsSecondAborts(t *testing.T) {
	w := New()
	var log bytes.Buffer
	assert.False(t, w.Interrupted())
	w.Interrupt(os.Interrupt, time.Hour, &log)
	assert.True(t, ended(w.Stop()), "the first signal stops new work")
	assert.False(t, ended(w.Abort()), "calls in flight keep their grace period")
	assert.Equal(t, os.Interrupt, w.Signal())
	assert.Equal(t, "\nfeather: interrupt: starting no new work; calls in flight have 1h0m0s to finish (interrupt again cancels them); finished records and summaries are written before exit\n", log.String())

	log.Reset()
	w.Interrupt(syscall.SIGTERM, time.Hour, &log)
	assert.True(t, ended(w.Abort()), "a second signal cancels at once")
	assert.Equal(t, os.Interrupt, w.Signal(), "the first signal is the one reported")
	assert.Equal(t, "\nfeather: terminated again: cancelling the calls in flight\n", log.String())
	assert.ErrorIs(t, context.Cause(w.Abort()), ErrInterrupted)
}

func TestGraceEndsAbort(t *testing.T) {
	w := New()
	w.Interrupt(os.Interrupt, 10*time.Millisecond, &bytes.Buffer{})
	select {
	case <-w.Abort().Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the grace period never ended Abort")
	}
}

func TestWithinEndsWithParentOrAbort(t *testing.T) {
	w := New()
	parent, cancelParent := context.WithCancel(context.Background())
	ctx, release := w.Within(parent)
	defer release()
	assert.False(t, ended(ctx))
	cancelParent()
	assert.True(t, ended(ctx))

	ctx2, release2 := w.Within(context.Background())
	defer release2()
	w.Interrupt(os.Interrupt, time.Hour, &bytes.Buffer{})
	assert.False(t, ended(ctx2), "Stop alone leaves work in flight running")
	w.Interrupt(os.Interrupt, time.Hour, &bytes.Buffer{})
	<-ctx2.Done()
	assert.ErrorIs(t, context.Cause(ctx2), ErrInterrupted)
}

// TestWatchCatchesSignals delivers a real SIGINT, and a real SIGTERM, to
// this process: with the watcher in place each is an orderly stop, not
// the default exit.
func TestWatchCatchesSignals(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			var log bytes.Buffer
			w, release := Watch(time.Hour, &log)
			defer release()
			require.NoError(t, syscall.Kill(os.Getpid(), sig))
			select {
			case <-w.Stop().Done():
			case <-time.After(10 * time.Second):
				t.Fatalf("%v did not end Stop", sig)
			}
			assert.Equal(t, sig, w.Signal())
			assert.False(t, ended(w.Abort()))
		})
	}
}
