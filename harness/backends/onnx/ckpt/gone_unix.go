//go:build unix

package ckpt

import (
	"errors"
	"syscall"
)

// gone reports that no process has the id pid.
func gone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
