//go:build !unix

package hub

import (
	"context"
	"fmt"
	"runtime"
)

// lockFile has no implementation off unix: without a lock two pulls
// could write one blob at once, so refuse rather than risk it.
func lockFile(ctx context.Context, path string, waiting func()) (func(), error) {
	return nil, fmt.Errorf("feather pull needs file locks, which it does not implement on %s; download with huggingface_hub and point the catalog's \"path\" at the snapshot", runtime.GOOS)
}
