// Package diskfull is a disk that fills up, for tests that must see a
// full file system where a size-limited one cannot be mounted (a tmpfs
// needs root). Files opened through a Disk share its free bytes; a write
// past them writes what fits and fails with ENOSPC, as a full file system
// does, and truncating a file gives its bytes back.
package diskfull

import (
	"io/fs"
	"os"
	"sync"
	"syscall"
)

// Disk is a budget of free bytes shared by the files opened through it.
type Disk struct {
	mu   sync.Mutex
	free int64
}

// New is a disk with free bytes of room.
func New(free int64) *Disk { return &Disk{free: free} }

// Free is the room left.
func (d *Disk) Free() int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.free
}

// Grow makes n more bytes of room, as deleting other files does.
func (d *Disk) Grow(n int64) {
	d.mu.Lock()
	d.free += n
	d.mu.Unlock()
}

// take reserves up to n bytes and returns how many it got.
func (d *Disk) take(n int) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	got := min(int64(n), max(d.free, 0))
	d.free -= got
	return int(got)
}

// OpenAppend opens path for appending, creating it (mode 0644), on d.
func (d *Disk) OpenAppend(path string) (*File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	return &File{File: f, disk: d}, nil
}

// File is an *os.File on a Disk.
type File struct {
	*os.File
	disk *Disk
}

// Write writes what fits; the rest fails as os.File's writes do on a
// full disk: a *fs.PathError wrapping syscall.ENOSPC.
func (f *File) Write(p []byte) (int, error) {
	room := f.disk.take(len(p))
	n, err := f.File.Write(p[:room])
	if n < room {
		f.disk.Grow(int64(room - n))
	}
	if err == nil && n < len(p) {
		err = &fs.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC}
	}
	return n, err
}

// Truncate changes the file's size; the bytes it cuts are free again,
// the bytes it adds are taken (ENOSPC when they do not fit).
func (f *File) Truncate(size int64) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	grow := size - st.Size()
	if grow > 0 {
		if got := f.disk.take(int(grow)); int64(got) < grow {
			f.disk.Grow(int64(got))
			return &fs.PathError{Op: "truncate", Path: f.Name(), Err: syscall.ENOSPC}
		}
	}
	if err := f.File.Truncate(size); err != nil {
		if grow > 0 {
			f.disk.Grow(grow)
		}
		return err
	}
	if grow < 0 {
		f.disk.Grow(-grow)
	}
	return nil
}
