package backends

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/catalog"
	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/lm/fake"
)

func TestRegistry(t *testing.T) {
	Register("scripted-test", func(_ context.Context, e catalog.Entry) (lm.Model, error) {
		return &fake.Model{ModelInfo: lm.Info{Key: e.Key, Backend: e.Backend}}, nil
	})
	Unavailable("tagged-test", "live calls need -tags tagged")

	m, err := Open(context.Background(), catalog.Entry{Key: "k", Backend: "scripted-test"})
	require.NoError(t, err)
	assert.Equal(t, "k", m.Info().Key)

	_, err = Open(context.Background(), catalog.Entry{Key: "k", Backend: "tagged-test"})
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrUnavailable))
	assert.EqualError(t, err, `model "k": backend unavailable in this build: live calls need -tags tagged`)

	_, err = Open(context.Background(), catalog.Entry{Key: "k", Backend: "nope"})
	assert.EqualError(t, err, `model "k": backend "nope" is not registered (known: scripted-test, tagged-test)`)

	assert.Panics(t, func() { Register("scripted-test", nil) })
}
