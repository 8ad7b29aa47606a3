package hub

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/onnx/hub/fakehub"
	"github.com/feather-eval/feather/internal/retry"
)

// sleeps records the client's waits instead of waiting.
func sleeps(c *Client) *[]time.Duration {
	var got []time.Duration
	c.Retry = retry.Policy{
		Sleep: func(_ context.Context, d time.Duration) error { got = append(got, d); return nil },
		Rand:  func() float64 { return 0.5 },
	}
	return &got
}

func TestRetryBusyHubHonoursRetryAfter(t *testing.T) {
	h, files, commit := tinyHub(t)
	h.Busy(fakehub.Fault{Times: 2, Status: http.StatusServiceUnavailable, RetryAfter: "7"})
	c, rec := newClient(t, h)
	waits := sleeps(c)

	res, err := pull(t, c, tinyRepo, Options{})
	require.NoError(t, err)
	assert.Equal(t, commit, res.Commit)
	assert.Equal(t, []time.Duration{7 * time.Second, 7 * time.Second}, *waits)
	host := hostPort(t, h.URL)
	assert.Equal(t, []string{
		host + " answered 503 Service Unavailable; trying again in 7s (attempt 2 of 4)",
		host + " answered 503 Service Unavailable; trying again in 7s (attempt 3 of 4)",
	}, rec.Notes())
	assert.Equal(t, wantCache(tinyRepo, "main", commit, files, tinyWant), tree(t, c.Env.CacheDir))
}

func TestRetryRateLimitedDownloadBacksOff(t *testing.T) {
	h, files, commit := tinyHub(t)
	h.Fault(dataPath, fakehub.Fault{Times: 2, Status: http.StatusTooManyRequests})
	c, rec := newClient(t, h)
	waits := sleeps(c)

	_, err := pull(t, c, tinyRepo, Options{})
	require.NoError(t, err)
	// Equal jitter at 0.5: three quarters of 1 s, then of 2 s.
	assert.Equal(t, []time.Duration{750 * time.Millisecond, 1500 * time.Millisecond}, *waits)
	cdn := hostPort(t, h.CDNURL)
	assert.Equal(t, []string{
		cdn + " answered 429 Too Many Requests; trying again in 750ms (attempt 2 of 4)",
		cdn + " answered 429 Too Many Requests; trying again in 1.5s (attempt 3 of 4)",
	}, rec.Notes())
	assert.Equal(t, 3, h.Downloads()[dataPath], "two refusals, then the file")
	assert.Equal(t, wantCache(tinyRepo, "main", commit, files, tinyWant), tree(t, c.Env.CacheDir))
}

func TestRetryGivesUpAfterTheAttempts(t *testing.T) {
	h, _, _ := tinyHub(t)
	h.Busy(fakehub.Fault{Times: 4, Status: http.StatusBadGateway})
	c, _ := newClient(t, h)
	waits := sleeps(c)

	_, err := pull(t, c, tinyRepo, Options{})
	require.Error(t, err)
	assert.Equal(t, "org/tiny@main: the Hub answered 502 for the model info; try again later (what was downloaded is kept, and the next pull resumes)", err.Error())
	assert.Len(t, *waits, 3, "four attempts, three waits")
	assert.Len(t, h.Requests(), 4)
}

func TestRetryAfterLongerThanThePolicyWaitsIsNotRetried(t *testing.T) {
	h, _, _ := tinyHub(t)
	h.Busy(fakehub.Fault{Status: http.StatusTooManyRequests, RetryAfter: "3600"})
	c, _ := newClient(t, h)
	waits := sleeps(c)

	_, err := pull(t, c, tinyRepo, Options{})
	require.Error(t, err)
	assert.Equal(t, "org/tiny@main: the Hub answered 429 for the model info; try again later (what was downloaded is kept, and the next pull resumes)", err.Error())
	assert.Empty(t, *waits)
	assert.Len(t, h.Requests(), 1)
}

func TestRetryStopsWithTheContext(t *testing.T) {
	h, _, _ := tinyHub(t)
	h.Busy(fakehub.Fault{Status: http.StatusServiceUnavailable})
	c, _ := newClient(t, h)
	c.Retry = retry.Policy{Sleep: func(context.Context, time.Duration) error { return context.Canceled }}

	_, err := pull(t, c, tinyRepo, Options{})
	assert.ErrorIs(t, err, context.Canceled)
}

func hostPort(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	require.NoError(t, err)
	return u.Host
}
