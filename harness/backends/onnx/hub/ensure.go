package hub

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/feather-eval/feather/internal/meter"
)

// NewClient is the client the commands and the onnx backend use: the
// environment read as huggingface_hub reads it (getenv is os.Getenv
// outside tests), and progress on w for a person to watch.
func NewClient(getenv func(string) string, w io.Writer) (*Client, error) {
	env, err := FromEnv(getenv)
	if err != nil {
		return nil, err
	}
	return &Client{Env: env, Progress: NewMeter(w)}, nil
}

// NewMeter is a Meter on w: a bar redrawn in place when w is a terminal,
// plain lines elsewhere.
func NewMeter(w io.Writer) *Meter {
	m := &Meter{W: w}
	if f, ok := w.(*os.File); ok {
		m.Width, m.TTY = meter.Terminal(f)
	}
	return m
}

// PullCommand is the `feather pull` command line that fetches ref with
// variant, as a message tells a person to run it.
func PullCommand(ref Ref, variant string) string {
	cmd := "feather pull " + ref.Repo
	if ref.Revision != DefaultRevision {
		cmd += "@" + ref.Revision
	}
	if variant != "" {
		cmd += " --variant " + variant
	}
	return cmd
}

// Ensure returns the snapshot of ref holding what the onnx backend opens
// for opt.Variant: the cached one when the cache has it all, without a
// request (a branch stays at the commit the cache recorded for it until
// `feather pull` runs again), else one pulled now. With Env.Offline a
// missing snapshot is an error giving the `feather pull` command to run.
// Concurrent calls, in this process or others, are safe: Pull locks each
// blob and links by rename.
func (c *Client) Ensure(ctx context.Context, ref Ref, opt Options) (*Result, error) {
	res, err := c.cached(ref, opt)
	var miss *cacheMiss
	if !errors.As(err, &miss) {
		return res, err
	}
	if c.Env.Offline {
		return nil, fmt.Errorf("HF_HUB_OFFLINE is set and %s; unset HF_HUB_OFFLINE and run `%s`",
			miss.what, pullCommandFor(ref, opt))
	}
	return c.Pull(ctx, ref, opt)
}
