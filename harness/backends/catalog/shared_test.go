package catalog

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/lm"
	"github.com/feather-eval/feather/harness/lm/fake"
)

// closing is a model that counts its Close calls.
type closing struct {
	fake.Model
	closed *int
}

func (m *closing) Close() error { *m.closed++; return nil }

func TestOpenShared(t *testing.T) {
	opens, closed := 0, 0
	r := &Registry{}
	r.Register("counted", Backend{
		Settings: func() Settings { return new(scripted) },
		Open: func(_ context.Context, e Entry) (lm.Model, error) {
			opens++
			if e.Key == "broken" {
				return nil, errors.New("no such folder")
			}
			return &closing{closed: &closed}, nil
		},
	})
	a := Entry{Key: "a", Dir: "models", Backend: "counted"}
	m1, err := r.OpenShared(a)
	require.NoError(t, err)
	m2, err := r.OpenShared(a)
	require.NoError(t, err)
	assert.Same(t, m1, m2, "one model per entry and process")
	_, err = r.OpenShared(Entry{Key: "a", Dir: "elsewhere", Backend: "counted"})
	require.NoError(t, err)
	for range 2 {
		_, err = r.OpenShared(Entry{Key: "broken", Dir: "models", Backend: "counted"})
		assert.EqualError(t, err, `model "broken": no such folder`)
	}
	assert.Equal(t, 3, opens, "a failure is kept too")
	assert.Equal(t, []string{"a", "broken"}, r.SharedKeys("models"))
	assert.Equal(t, []string{"a"}, r.SharedKeys("elsewhere"))

	r.CloseShared()
	assert.Equal(t, 2, closed)
	assert.Empty(t, r.SharedKeys("models"))
	_, err = r.OpenShared(a)
	require.NoError(t, err)
	assert.Equal(t, 4, opens, "after CloseShared an entry opens again")
}
