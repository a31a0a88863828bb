package serve

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"

	"github.com/acme/comments-gateway/clientaddr"
)

// clientAddrFlags are the serve flags that say which address a request
// comes from, for the per-client limits (package clientaddr).
type clientAddrFlags struct {
	cfg            clientaddr.Config
	trustedProxies string
	// trustForwardedFor is the deprecated -trust-forwarded-for: it now
	// means -trusted-proxy-hops 1.
	trustForwardedFor bool
	rule              *clientaddr.Rule // built by resolve
}

// register adds the client address flags to fs.
func (f *clientAddrFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&f.cfg.Hops, "trusted-proxy-hops", 0, "how many reverse proxies in front of the server append to -forwarded-header: the client is that many addresses from the right (0: the header is ignored)")
	fs.StringVar(&f.trustedProxies, "trusted-proxies", "", "comma-separated addresses and CIDR ranges of the trusted reverse proxies: when the peer is one, the client is the rightmost address of -forwarded-header not among them")
	fs.StringVar(&f.cfg.Header, "forwarded-header", clientaddr.HeaderXForwardedFor, "the header the trusted proxies append to: X-Forwarded-For or Forwarded (RFC 7239)")
	fs.IntVar(&f.cfg.IPv6Prefix, "client-ipv6-prefix", clientaddr.DefaultIPv6Prefix, "IPv6 clients are counted by this prefix length for the rate limit and the live connection caps (128: each address)")
	fs.BoolVar(&f.trustForwardedFor, "trust-forwarded-for", false, "deprecated: means -trusted-proxy-hops 1 (the address the nearest proxy appended, never the client-written first one)")
}

// resolve builds the client address rule from the flags (-trust-forwarded-for
// is -trusted-proxy-hops 1).
func (f *clientAddrFlags) resolve() error {
	cfg := f.cfg
	cfg.Proxies = splitList(f.trustedProxies)
	if f.trustForwardedFor {
		if cfg.Hops > 0 || len(cfg.Proxies) > 0 {
			return errors.New("-trust-forwarded-for is deprecated and contradicts -trusted-proxy-hops/-trusted-proxies: drop it")
		}
		cfg.Hops = 1
	}
	r, err := clientaddr.New(cfg)
	if err != nil {
		return fmt.Errorf("-trusted-proxy-hops, -trusted-proxies, -forwarded-header, -client-ipv6-prefix: %w", err)
	}
	f.rule = r
	return nil
}

// announce says at start-up how clients are named, and that
// -trust-forwarded-for is deprecated.
func (f *clientAddrFlags) announce(log *slog.Logger) {
	if f.trustForwardedFor {
		log.Warn("DEPRECATED: -trust-forwarded-for now means -trusted-proxy-hops 1: a client is the address the nearest proxy appended to X-Forwarded-For, not the first one (which the client writes); set -trusted-proxy-hops or -trusted-proxies to match your proxies")
	}
	log.Info("clients named by address", "rule", f.rule.String())
}
