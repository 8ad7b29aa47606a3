package meter

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestDue(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name     string
		after    time.Duration
		tty      bool
		interval time.Duration
		want     bool
	}{
		{"log, default interval, early", 29 * time.Second, false, 0, false},
		{"log, default interval, due", 30 * time.Second, false, 0, true},
		{"log, own interval", 5 * time.Second, false, 5 * time.Second, true},
		{"terminal, early", 99 * time.Millisecond, true, 0, false},
		{"terminal, due", 100 * time.Millisecond, true, time.Hour, true},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Due(t0, t0.Add(tt.after), tt.tty, tt.interval), tt.name)
	}
}

func TestRateAndETA(t *testing.T) {
	assert.Equal(t, 0.0, Rate(10, 0), "no time passed")
	assert.Equal(t, 2.5, Rate(10, 4*time.Second))
	assert.Equal(t, 6*time.Second, ETA(3<<20, 512<<10), "whole seconds")
	assert.Equal(t, 6*time.Second, ETA(13, 2), "6.5 s counts as 6")
	assert.Equal(t, 2*time.Minute+40*time.Second, ETA(80, 0.5))
}

func TestTerminalOfAFile(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, ok := Terminal(f)
	assert.False(t, ok, "a file is no terminal")
	assert.Zero(t, w)
}
