//go:build !linux

package hugepage

import "errors"

// Collapse does nothing where transparent huge pages are Linux's.
func Collapse() Result { return Result{Err: errors.New("transparent huge pages are a Linux feature")} }
