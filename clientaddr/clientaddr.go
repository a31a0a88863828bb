package clientaddr

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/realclientip/realclientip-go"
)

// The headers a proxy may append the client address to.
const (
	HeaderXForwardedFor = "X-Forwarded-For"
	HeaderForwarded     = "Forwarded"
)

// DefaultIPv6Prefix is the prefix length IPv6 clients are grouped by.
const DefaultIPv6Prefix = 64

// Config says where a request's client address comes from.
type Config struct {
	// Header is the header trusted proxies append to: X-Forwarded-For (the
	// default when empty) or Forwarded (RFC 7239).
	Header string
	// Hops is how many trusted reverse proxies append to Header in front
	// of the server: the client is the Hops-th address from the right.
	// 0, without Proxies: the header is ignored and the peer is the client.
	Hops int
	// Proxies are the trusted proxies' addresses and CIDR ranges: when the
	// peer is one, the client is the rightmost address of Header not among
	// them. Exclusive with Hops.
	Proxies []string
	// IPv6Prefix is the prefix length IPv6 clients are grouped by, 1 to 128
	// (DefaultIPv6Prefix when 0; 128: every address on its own).
	IPv6Prefix int
}

// Rule names the client of a request (Client). The zero value and nil
// take the peer's address, IPv6 grouped by DefaultIPv6Prefix.
type Rule struct {
	cfg       Config
	forwarded realclientip.Strategy // nil: the peer is the client
	proxies   []net.IPNet           // with Config.Proxies: the peer must be one
}

// New checks cfg and returns its rule.
func New(cfg Config) (*Rule, error) {
	if cfg.IPv6Prefix == 0 {
		cfg.IPv6Prefix = DefaultIPv6Prefix
	}
	if cfg.IPv6Prefix < 1 || cfg.IPv6Prefix > 128 {
		return nil, fmt.Errorf("IPv6 prefix /%d: want 1 to 128", cfg.IPv6Prefix)
	}
	if cfg.Header == "" {
		cfg.Header = HeaderXForwardedFor
	}
	switch http.CanonicalHeaderKey(cfg.Header) {
	case HeaderXForwardedFor, HeaderForwarded:
	default:
		return nil, fmt.Errorf("header %q: want %s or %s", cfg.Header, HeaderXForwardedFor, HeaderForwarded)
	}
	r := &Rule{cfg: cfg}
	var err error
	switch {
	case cfg.Hops < 0:
		return nil, fmt.Errorf("trusted proxy hops %d: want 0 or more", cfg.Hops)
	case cfg.Hops > 0 && len(cfg.Proxies) > 0:
		return nil, errors.New("trusted proxies are given both as a hop count and as addresses: give one")
	case cfg.Hops > 0:
		r.forwarded, err = realclientip.NewRightmostTrustedCountStrategy(cfg.Header, cfg.Hops)
	case len(cfg.Proxies) > 0:
		if r.proxies, err = realclientip.AddressesAndRangesToIPNets(cfg.Proxies...); err != nil {
			return nil, fmt.Errorf("trusted proxies: %w", err)
		}
		r.forwarded, err = realclientip.NewRightmostTrustedRangeStrategy(cfg.Header, r.proxies)
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

// Client names the client of req: its IPv4 address, or its IPv6 address's
// prefix ("2001:db8:1:2::/64"). Behind trusted proxies it is the address
// they appended; a request whose header lacks it (one that did not come
// through them all) is named by its peer, the nearest proxy.
func (r *Rule) Client(req *http.Request) string {
	peer := peerAddr(req.RemoteAddr)
	if r == nil {
		return group(peer, DefaultIPv6Prefix)
	}
	addr := peer
	if r.forwarded != nil && r.trustsPeer(peer) {
		if a := r.forwarded.ClientIP(req.Header, req.RemoteAddr); a != "" {
			addr = a
		}
	}
	return group(addr, r.cfg.IPv6Prefix)
}

// trustsPeer reports whether the peer may have set the forwarded header:
// with Hops, always (the proxies are known by count, not by address); with
// Proxies, when the peer is one of them.
func (r *Rule) trustsPeer(peer string) bool {
	if r.proxies == nil {
		return true
	}
	ip := net.ParseIP(peer)
	for _, n := range r.proxies {
		if ip != nil && n.Contains(ip) {
			return true
		}
	}
	return false
}

// String describes the rule, for the server's start-up log.
func (r *Rule) String() string {
	if r == nil {
		return fmt.Sprintf("the peer's address (IPv6 by /%d)", DefaultIPv6Prefix)
	}
	switch {
	case r.cfg.Hops > 0:
		return fmt.Sprintf("%s, %d trusted hop(s) from the right (IPv6 by /%d)", r.cfg.Header, r.cfg.Hops, r.cfg.IPv6Prefix)
	case len(r.cfg.Proxies) > 0:
		return fmt.Sprintf("%s, the rightmost address not in %s (IPv6 by /%d)", r.cfg.Header, strings.Join(r.cfg.Proxies, ","), r.cfg.IPv6Prefix)
	}
	return fmt.Sprintf("the peer's address (IPv6 by /%d)", r.cfg.IPv6Prefix)
}

// peerAddr is the address of a RemoteAddr ("host:port"), or RemoteAddr
// itself when it has no port.
func peerAddr(remote string) string {
	if host, _, err := net.SplitHostPort(remote); err == nil {
		return host
	}
	return remote
}

// group is an address as a client's name: an IPv4 address (IPv4-mapped
// IPv6 ones unmapped), or an IPv6 address's prefix of length bits, without
// a zone. Anything else is returned as is.
func group(addr string, bits int) string {
	ip, err := netip.ParseAddr(addr)
	if err != nil {
		return addr
	}
	ip = ip.Unmap().WithZone("")
	if ip.Is4() {
		return ip.String()
	}
	p, _ := ip.Prefix(bits)
	return p.String()
}

type ctxKey struct{}

// Middleware stores each request's client (Client) in its context, for
// Of.
func (r *Rule) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		ctx := context.WithValue(req.Context(), ctxKey{}, r.Client(req))
		next.ServeHTTP(w, req.WithContext(ctx))
	})
}

// Of names the client of req: what Middleware stored, or else the peer's
// address by the default rule.
func Of(req *http.Request) string {
	if c, ok := req.Context().Value(ctxKey{}).(string); ok {
		return c
	}
	return (*Rule)(nil).Client(req)
}
