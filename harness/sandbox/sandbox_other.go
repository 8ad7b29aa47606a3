//go:build !linux

package sandbox

import (
	"context"
	"time"
)

func runIn(context.Context, string, time.Duration, string, []string) (Result, error) {
	return Result{}, ErrUnsupported
}
