// Package clientaddr owns one rule: which address a request comes from,
// for the per-client limits (the rate limit and the live connection caps).
//
// Without trusted proxies the client is the connection's peer. Behind
// reverse proxies that append to X-Forwarded-For (or to Forwarded, RFC
// 7239) the client is the rightmost address that is not a trusted proxy,
// never the leftmost, which the client writes: either a fixed number of
// trusted hops (Config.Hops: the Hops-th address from the right), or the
// trusted proxies' addresses and ranges (Config.Proxies: the rightmost
// address not among them, and only when the peer itself is one). The
// strategies are realclientip-go's "rightmost trusted" ones.
//
// IPv6 clients are grouped by a prefix (a /64 by default): a host usually
// holds a whole /64, so counting single IPv6 addresses would let it rotate
// through them.
package clientaddr
