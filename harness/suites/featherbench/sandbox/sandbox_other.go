//go:build !linux

package sandbox

import (
	"context"
	"time"
)

func probe(Mode) error { return ErrUnsupported }

func runIn(context.Context, Mode, Files, time.Duration, Limits, string, []string, bool) (Result, error) {
	return Result{}, ErrUnsupported
}
