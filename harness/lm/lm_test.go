package lm

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestUnsupportedKeepsMessageAndWraps(t *testing.T) {
	err := Unsupported("the %s backend does not support tool calling", "onnx")
	assert.EqualError(t, err, "the onnx backend does not support tool calling")
	assert.True(t, errors.Is(err, ErrUnsupported))
	assert.False(t, errors.Is(errors.New("other"), ErrUnsupported))
}

func TestGreedyDeclaresDeterministicDecoding(t *testing.T) {
	g := Greedy()
	assert.Equal(t, 0.0, *g.Temperature)
	assert.Equal(t, 1.0, *g.TopP)
}
