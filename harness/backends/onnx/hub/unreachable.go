package hub

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
)

// netFailure is a request that got no answer because its server could
// not be reached: its name did not resolve, the connection (or the
// proxy's) was refused, found no route or timed out, or the TLS
// handshake timed out. Such a request is not sent again: a name that
// does not resolve or a refused connection does not mend within a
// backoff of seconds, and a dial that timed out has already waited.
type netFailure struct {
	host  string // the server asked, host[:port]
	cause string // the failure without the URL, which for a CDN is long and signed
}

// unreachable reports whether err is a netFailure. A request cut short
// by its context is not one, nor is a connection that broke after it
// was made (a transfer resumes from that).
func unreachable(err error) (netFailure, bool) {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return netFailure{}, false
	}
	var ue *url.Error
	if !errors.As(err, &ue) {
		return netFailure{}, false
	}
	f := netFailure{host: ue.URL}
	if u, err := url.Parse(ue.URL); err == nil && u.Host != "" {
		f.host = u.Host
	}
	var dns *net.DNSError
	var op *net.OpError
	switch {
	case errors.As(ue.Err, &dns):
		// Without the resolver's address, which says nothing to act on.
		f.cause = "lookup " + dns.Name + ": " + dns.Err
	case errors.As(ue.Err, &op):
		if op.Op != "dial" && op.Op != "proxyconnect" {
			return netFailure{}, false
		}
		f.cause = op.Error()
	case ue.Timeout():
		f.cause = ue.Err.Error()
	default:
		return netFailure{}, false
	}
	return f, true
}

// hubName names the endpoint, and HF_ENDPOINT when that chose it.
func (c *Client) hubName() string {
	if c.Env.Endpoint == DefaultEndpoint {
		return "the Hugging Face Hub at " + DefaultEndpoint
	}
	return "the Hugging Face Hub at " + c.Env.Endpoint + " (HF_ENDPOINT)"
}

// unreachableHub says that the endpoint could not be reached and what to
// do, which depends on what the cache has of ref: HF_HUB_OFFLINE=1 when
// it has the snapshot, a mirror (or the network) when it does not, with
// the offline check's account of what is missing.
func (c *Client) unreachableHub(f netFailure, ref Ref, opt Options) error {
	lead := fmt.Sprintf("%s could not be reached (%s)", c.hubName(), f.cause)
	res, err := c.cached(ref, opt)
	var miss *cacheMiss
	switch {
	case err == nil:
		return fmt.Errorf("%s; set HF_HUB_OFFLINE=1 to use the cached snapshot of %s (%s) without the Hub, or set HF_ENDPOINT to a mirror you can reach",
			lead, ref, res.Snapshot)
	case errors.As(err, &miss):
		return fmt.Errorf("%s; check the network, or set HF_ENDPOINT to a mirror you can reach. HF_HUB_OFFLINE=1 would use only the cache, and %s",
			lead, miss.what)
	}
	return fmt.Errorf("%s; check the network, set HF_ENDPOINT to a mirror you can reach, or set HF_HUB_OFFLINE=1 to use only the cache", lead)
}

// unreachableServer says that the server holding file could not be
// reached mid-pull: the endpoint, or the CDN it redirects to.
func (c *Client) unreachableServer(f netFailure, file string) error {
	who := c.hubName()
	if u, err := url.Parse(c.Env.Endpoint); err != nil || u.Host != f.host {
		who = "the download server " + f.host
	}
	return fmt.Errorf("downloading %s: %s could not be reached (%s); check the network, or set HF_ENDPOINT to a mirror you can reach, then pull again (what arrived is kept, and the next pull resumes)",
		file, who, f.cause)
}
