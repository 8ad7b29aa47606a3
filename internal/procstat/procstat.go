// Package procstat reads a process's resident memory and open files from
// /proc (Linux), and samples them through a run: what a soak test needs
// to show that memory stays flat and that nothing leaks.
package procstat

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"
)

// Self is the pid that names the calling process.
const Self = 0

func procPath(pid int, name string) string {
	if pid == Self {
		return "/proc/self/" + name
	}
	return "/proc/" + strconv.Itoa(pid) + "/" + name
}

// RSS is the process's resident set size in bytes (VmRSS in
// /proc/<pid>/status).
func RSS(pid int) (int64, error) {
	data, err := os.ReadFile(procPath(pid, "status"))
	if err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		rest, ok := bytes.CutPrefix(sc.Bytes(), []byte("VmRSS:"))
		if !ok {
			continue
		}
		f := bytes.Fields(rest)
		if len(f) != 2 || string(f[1]) != "kB" {
			break
		}
		kb, err := strconv.ParseInt(string(f[0]), 10, 64)
		if err != nil {
			break
		}
		return kb << 10, nil
	}
	return 0, fmt.Errorf("%s: no VmRSS line in kB", procPath(pid, "status"))
}

// OpenFiles is how many file descriptors the process holds open
// (/proc/<pid>/fd), sockets and pipes included.
func OpenFiles(pid int) (int, error) {
	entries, err := os.ReadDir(procPath(pid, "fd"))
	if err != nil {
		return 0, err
	}
	n := len(entries)
	if pid == Self || pid == os.Getpid() {
		n-- // the descriptor ReadDir itself held open
	}
	return n, nil
}

// Sample is one reading: when, how far the run was, and the resident size.
type Sample struct {
	At       time.Duration // since the sampler started
	Progress int           // the run's progress then (its units done)
	RSS      int64
}

// Sampler reads a process's RSS at a fixed interval, with the run's
// progress beside each reading.
type Sampler struct {
	stop chan struct{}
	done chan struct{}

	mu      sync.Mutex
	samples []Sample
	err     error
}

// Start samples pid's RSS every interval, and once at once, until Stop.
// progress (nil: none) says how far the run is.
func Start(pid int, every time.Duration, progress func() int) *Sampler {
	s := &Sampler{stop: make(chan struct{}), done: make(chan struct{})}
	start := time.Now()
	read := func() bool {
		rss, err := RSS(pid)
		s.mu.Lock()
		defer s.mu.Unlock()
		if err != nil {
			s.err = err
			return false
		}
		p := 0
		if progress != nil {
			p = progress()
		}
		s.samples = append(s.samples, Sample{At: time.Since(start), Progress: p, RSS: rss})
		return true
	}
	go func() {
		defer close(s.done)
		t := time.NewTicker(every)
		defer t.Stop()
		for read() {
			select {
			case <-s.stop:
				read()
				return
			case <-t.C:
			}
		}
	}()
	return s
}

// Stop ends the sampling, takes a last reading, and returns every reading
// and the error that ended the sampling early (the process exited, say).
func (s *Sampler) Stop() (Series, error) {
	close(s.stop)
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	return Series(s.samples), s.err
}

// Series are readings in time order.
type Series []Sample

// Peak is the largest RSS read.
func (s Series) Peak() int64 {
	var p int64
	for _, x := range s {
		p = max(p, x.RSS)
	}
	return p
}

// From are the readings taken once the run's progress reached p.
func (s Series) From(p int) Series {
	for i, x := range s {
		if x.Progress >= p {
			return s[i:]
		}
	}
	return nil
}

// Growth is how much the RSS rose over the readings: the peak of their
// last quarter less the lowest reading of their first quarter, so that
// one garbage collection's swing reads as noise rather than a trend.
func (s Series) Growth() int64 {
	if len(s) < 4 {
		return 0
	}
	q := len(s) / 4
	low := s[0].RSS
	for _, x := range s[:q] {
		low = min(low, x.RSS)
	}
	return s[len(s)-q:].Peak() - low
}
