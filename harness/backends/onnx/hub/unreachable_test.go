package hub

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/feather-eval/feather/harness/backends/onnx/hub/fakehub"
)

// timeoutErr stands for net/http's TLS handshake timeout, whose type is
// not exported.
type timeoutErr struct{}

func (timeoutErr) Error() string   { return "net/http: TLS handshake timeout" }
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

func dialErr(addr string, errno syscall.Errno) *net.OpError {
	a, _ := net.ResolveTCPAddr("tcp", addr)
	return &net.OpError{Op: "dial", Net: "tcp", Addr: a, Err: os.NewSyscallError("connect", errno)}
}

func noSuchHost(name string) *net.OpError {
	return &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: name, Server: "127.0.0.53:53", IsNotFound: true}}
}

func TestUnreachableClassifies(t *testing.T) {
	const api = "https://huggingface.co/api/models/org/x/revision/main"
	get := func(err error) error { return &url.Error{Op: "Get", URL: api, Err: err} }
	tests := []struct {
		name  string
		err   error
		cause string // "" when err is not a failure to reach the server
	}{
		{"no such host", get(noSuchHost("huggingface.co")), "lookup huggingface.co: no such host"},
		{"resolver timed out", get(&net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "i/o timeout", Name: "huggingface.co", Server: "10.0.0.2:53", IsTimeout: true}}),
			"lookup huggingface.co: i/o timeout"},
		{"refused", get(dialErr("127.0.0.1:1", syscall.ECONNREFUSED)), "dial tcp 127.0.0.1:1: connect: connection refused"},
		{"no route", get(dialErr("10.1.2.3:443", syscall.ENETUNREACH)), "dial tcp 10.1.2.3:443: connect: network is unreachable"},
		{"dial timed out", get(&net.OpError{Op: "dial", Net: "tcp", Err: os.ErrDeadlineExceeded}), "dial tcp: i/o timeout"},
		{"proxy refused", get(&net.OpError{Op: "proxyconnect", Net: "tcp", Err: dialErr("127.0.0.1:3128", syscall.ECONNREFUSED)}),
			"proxyconnect tcp: dial tcp 127.0.0.1:3128: connect: connection refused"},
		{"TLS handshake timed out", get(timeoutErr{}), "net/http: TLS handshake timeout"},
		{"wrapped further", errors.Join(errors.New("context"), get(noSuchHost("huggingface.co"))), "lookup huggingface.co: no such host"},

		{"connection reset after it was made", get(&net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}), ""},
		{"canceled", get(context.Canceled), ""},
		{"dial canceled", get(&net.OpError{Op: "dial", Net: "tcp", Err: context.Canceled}), ""},
		{"deadline", get(context.DeadlineExceeded), ""},
		{"an answer", &statusError{Status: http.StatusBadGateway, URL: api}, ""},
		{"not a request", noSuchHost("huggingface.co"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, ok := unreachable(tt.err)
			assert.Equal(t, tt.cause != "", ok)
			if ok {
				assert.Equal(t, netFailure{host: "huggingface.co", cause: tt.cause}, f)
			}
		})
	}
}

// A Hub that refuses connections is named with its address, and the
// advice depends on what the cache holds of the ref asked for.
func TestPullUnreachableHub(t *testing.T) {
	h, _, commit := tinyHub(t)
	c, _ := newClient(t, h)
	_, err := pull(t, c, tinyRepo, Options{})
	require.NoError(t, err)
	snap := filepath.Join(c.Env.CacheDir, "models--org--tiny", "snapshots", commit)

	closed := fakehub.Closed(t)
	c.Env.Endpoint = closed
	lead := "the Hugging Face Hub at " + closed + " (HF_ENDPOINT) could not be reached (dial tcp " + hostPort(t, closed) + ": connect: connection refused); "
	tests := []struct {
		name, ref, variant, want string
	}{
		{name: "cached", ref: tinyRepo,
			want: lead + "set HF_HUB_OFFLINE=1 to use the cached snapshot of org/tiny@main (" + snap + ") without the Hub, or set HF_ENDPOINT to a mirror you can reach"},
		{name: "cached commit", ref: tinyRepo + "@" + commit,
			want: lead + "set HF_HUB_OFFLINE=1 to use the cached snapshot of org/tiny@" + commit + " (" + snap + ") without the Hub, or set HF_ENDPOINT to a mirror you can reach"},
		{name: "not cached", ref: "nobody/x",
			want: lead + "check the network, or set HF_ENDPOINT to a mirror you can reach. HF_HUB_OFFLINE=1 would use only the cache, and the cache has no nobody/x@main (" +
				filepath.Join(c.Env.CacheDir, "models--nobody--x", "refs", "main") + " is missing)"},
		{name: "variant not cached", ref: tinyRepo, variant: "fp16",
			want: lead + "check the network, or set HF_ENDPOINT to a mirror you can reach. HF_HUB_OFFLINE=1 would use only the cache, and the cached snapshot of org/tiny@main (" + snap +
				") lacks what the onnx backend needs: no fp16 variant (looked for model_fp16.onnx, onnx/model_fp16.onnx, decoder_model_merged_fp16.onnx, onnx/decoder_model_merged_fp16.onnx); " +
				"it has onnx/model.onnx (fp32). Choose one (--variant, or a catalog entry's \"variant\") of: fp32"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := tree(t, c.Env.CacheDir)
			_, err := pull(t, c, tt.ref, Options{Variant: tt.variant})
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
			assert.Equal(t, before, tree(t, c.Env.CacheDir), "nothing written")
		})
	}
}

// dialer is a transport whose connections fail with fail(addr) where it
// returns an error, and counts the dials to each address.
func dialer(fail func(addr string) error) (*http.Client, func(addr string) int) {
	var mu sync.Mutex
	dials := map[string]int{}
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		mu.Lock()
		dials[addr]++
		mu.Unlock()
		if err := fail(addr); err != nil {
			return nil, err
		}
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}}
	return &http.Client{Transport: tr}, func(addr string) int { mu.Lock(); defer mu.Unlock(); return dials[addr] }
}

// A name that does not resolve ends the pull at the first request: it is
// asked once, not retried.
func TestPullHubNameDoesNotResolve(t *testing.T) {
	c := &Client{Env: Env{Endpoint: DefaultEndpoint, CacheDir: filepath.Join(t.TempDir(), "hub")}}
	var dials func(string) int
	c.HTTP, dials = dialer(func(addr string) error { return noSuchHost("huggingface.co") })
	waits := sleeps(c)

	_, err := pull(t, c, "nobody/x", Options{})
	require.Error(t, err)
	assert.Equal(t, "the Hugging Face Hub at https://huggingface.co could not be reached (lookup huggingface.co: no such host); "+
		"check the network, or set HF_ENDPOINT to a mirror you can reach. HF_HUB_OFFLINE=1 would use only the cache, and the cache has no nobody/x@main ("+
		filepath.Join(c.Env.CacheDir, "models--nobody--x", "refs", "main")+" is missing)", err.Error())
	assert.Equal(t, 1, dials("huggingface.co:443"))
	assert.Empty(t, *waits)
}

// A server that refuses connections mid-pull, the CDN a download is
// redirected to or the Hub itself, ends the pull with that server's name,
// without repeating the download.
func TestPullUnreachableDownloadServer(t *testing.T) {
	h, _, _ := tinyHub(t)
	hub, cdn := hostPort(t, h.URL), hostPort(t, h.CDNURL)
	tests := []struct {
		name, addr string
		after      int // dials that succeed first
		want       string
	}{
		{name: "CDN", addr: cdn, want: "downloading onnx/model.onnx: the download server " + cdn + " could not be reached (dial tcp " + cdn + ": connect: connection refused); " +
			"check the network, or set HF_ENDPOINT to a mirror you can reach, then pull again (what arrived is kept, and the next pull resumes)"},
		{name: "Hub after the listing", addr: hub, after: 2, want: "downloading chat_template.jinja: the Hugging Face Hub at " + h.URL + " (HF_ENDPOINT) could not be reached (dial tcp " + hub + ": connect: connection refused); " +
			"check the network, or set HF_ENDPOINT to a mirror you can reach, then pull again (what arrived is kept, and the next pull resumes)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, _ := newClient(t, h)
			var dials func(string) int
			c.HTTP, dials = dialer(func(addr string) error {
				if addr == tt.addr && dials(addr) > tt.after {
					return dialErr(addr, syscall.ECONNREFUSED)
				}
				return nil
			})
			// A connection each request, so the Hub's is dialled again.
			c.HTTP.Transport.(*http.Transport).DisableKeepAlives = true

			_, err := pull(t, c, tinyRepo, Options{})
			require.Error(t, err)
			assert.Equal(t, tt.want, err.Error())
			assert.Equal(t, tt.after+1, dials(tt.addr))
		})
	}
}
