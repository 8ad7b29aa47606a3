//go:build !linux

package ckpt_test

import "os/exec"

// peakRSS is unavailable here.
func peakRSS() (int64, bool) { return 0, false }

var execCommand = exec.Command
