package redact_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/internal/redact"
)

func TestHeaders(t *testing.T) {
	env := map[string]string{"TEAM": "team-7", "REGION": "eu"}
	getenv := func(k string) string { return env[k] }
	h := http.Header{}
	secrets, err := redact.Headers(h, map[string]string{"X-Team": "${TEAM}-${REGION}", "X-Client": "feather"}, getenv)
	require.NoError(t, err)
	assert.Equal(t, http.Header{"X-Team": {"team-7-eu"}, "X-Client": {"feather"}}, h)
	assert.Equal(t, redact.Secrets{"team-7-eu", "team-7", "eu"}, secrets, "only values read from the environment are secret, whole and each variable")

	secrets, err = redact.Headers(http.Header{}, map[string]string{"Authorization": "Bearer ${TEAM}"}, getenv)
	require.NoError(t, err)
	assert.Equal(t, "invalid token [REDACTED] in [REDACTED]", secrets.String("invalid token team-7 in Bearer team-7"),
		"a server that echoes the variable alone")

	_, err = redact.Headers(http.Header{}, map[string]string{"B": "${TEAM}", "A": "${NOPE} ${ALSO_NOPE}"}, getenv)
	assert.EqualError(t, err, `header "A": variable NOPE, ALSO_NOPE is not set; export it`)
}

func TestScrubbing(t *testing.T) {
	secrets := redact.Secrets{"sk-123", ""}
	assert.Equal(t, "key [REDACTED] twice [REDACTED]", secrets.String("key sk-123 twice sk-123"))
	assert.Equal(t, "[REDACTED] and [REDACTED]", redact.Secrets{"sk-1", "sk-123"}.String("sk-123 and sk-1"), "a secret inside another is scrubbed after it")
	assert.NoError(t, secrets.Err(nil))

	err := secrets.Err(fmt.Errorf("POST with sk-123: %w", lm.Unsupported("no tools")))
	assert.EqualError(t, err, "POST with [REDACTED]: no tools")
	assert.ErrorIs(t, err, lm.ErrUnsupported, "suites still see a capability the backend lacks")
	assert.ErrorIs(t, secrets.Err(fmt.Errorf("sk-123: %w", context.Canceled)), context.Canceled)
	assert.False(t, errors.Is(secrets.Err(errors.New("sk-123")), lm.ErrUnsupported))
}

func TestSnippet(t *testing.T) {
	long := strings.Repeat("a", 299)
	for _, tc := range []struct {
		name    string
		secrets redact.Secrets
		body    string
		want    string
	}{
		{"short, trimmed", nil, "  {\"error\": \"bad\"}\n", `{"error": "bad"}`},
		{"exactly the limit", nil, long + "b", long + "b"},
		{"cut at the limit", nil, long + "bc", long + "b…"},
		{"cut between characters", nil, long + "é", long + "…"},
		{"scrubbed before the cut", redact.Secrets{"sk-123"}, long[:295] + "sk-123", long[:295] + "[REDA…"},
		{"empty", nil, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.secrets.Snippet([]byte(tc.body)))
		})
	}
}
