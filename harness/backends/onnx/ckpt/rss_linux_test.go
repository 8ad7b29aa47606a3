package ckpt_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// peakRSS is the process's peak resident set in bytes: VmHWM, which
// starts afresh at exec (getrusage's ru_maxrss would carry the parent's
// peak at fork into the child).
func peakRSS() (int64, bool) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "VmHWM:"); ok {
			var kb int64
			if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%d kB", &kb); err == nil {
				return kb * 1024, true
			}
		}
	}
	return 0, false
}

var execCommand = exec.Command
