//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package meter

import (
	"os"

	"golang.org/x/sys/unix"
)

// foreground reports whether this process's group is the terminal's
// foreground one. A background job (a test's child in its own process
// group) writing there would mix into the shell's output, or stop on
// SIGTTOU where the terminal is set to stop it. A terminal that cannot
// say counts as ours.
func foreground(f *os.File) bool {
	pgrp, err := unix.IoctlGetInt(int(f.Fd()), unix.TIOCGPGRP)
	return err != nil || pgrp == unix.Getpgrp()
}
