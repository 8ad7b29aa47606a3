//go:build !unix

package onnx

import "time"

func cpuTime() (time.Duration, bool) { return 0, false }
