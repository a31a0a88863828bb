package clientaddr_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/acme/comments-gateway/clientaddr"
)

func TestClient(t *testing.T) {
	hops1 := clientaddr.Config{Hops: 1}
	hops2 := clientaddr.Config{Hops: 2}
	proxies := clientaddr.Config{Proxies: []string{"10.0.0.0/8", "2001:db8:ffff::/48"}}
	fwd := clientaddr.Config{Header: "Forwarded", Hops: 1}
	for _, c := range []struct {
		name   string
		cfg    clientaddr.Config
		remote string
		header map[string][]string
		want   string
	}{
		{"peer", clientaddr.Config{}, "203.0.113.7:5000", nil, "203.0.113.7"},
		{"peer ignores the header without trusted proxies", clientaddr.Config{}, "203.0.113.7:5000",
			map[string][]string{"X-Forwarded-For": {"198.51.100.1"}}, "203.0.113.7"},
		{"peer IPv6 by /64", clientaddr.Config{}, "[2001:db8:1:2:3:4:5:6]:5000", nil, "2001:db8:1:2::/64"},
		{"peer IPv6 by /56", clientaddr.Config{IPv6Prefix: 56}, "[2001:db8:1:2ff:3:4:5:6]:5000", nil, "2001:db8:1:200::/56"},
		{"peer IPv6 by /128", clientaddr.Config{IPv6Prefix: 128}, "[2001:db8::6]:5000", nil, "2001:db8::6/128"},
		{"peer IPv4-mapped", clientaddr.Config{}, "[::ffff:203.0.113.7]:5000", nil, "203.0.113.7"},
		{"peer with a zone", clientaddr.Config{}, "[fe80::1%eth0]:5000", nil, "fe80::/64"},
		{"peer without a port", clientaddr.Config{}, "pipe", nil, "pipe"},
		{"one hop: the rightmost, not the client-written leftmost", hops1, "10.0.0.5:1",
			map[string][]string{"X-Forwarded-For": {"1.2.3.4, 198.51.100.9"}}, "198.51.100.9"},
		{"one hop over several header lines", hops1, "10.0.0.5:1",
			map[string][]string{"X-Forwarded-For": {"1.2.3.4", "5.6.7.8, 198.51.100.9"}}, "198.51.100.9"},
		{"two hops", hops2, "10.0.0.5:1",
			map[string][]string{"X-Forwarded-For": {"1.2.3.4, 198.51.100.9, 192.0.2.1"}}, "198.51.100.9"},
		{"two hops, the header too short: the peer", hops2, "10.0.0.5:1",
			map[string][]string{"X-Forwarded-For": {"198.51.100.9"}}, "10.0.0.5"},
		{"one hop, no header: the peer", hops1, "10.0.0.5:1", nil, "10.0.0.5"},
		{"one hop, garbage where the proxy wrote: the peer", hops1, "10.0.0.5:1",
			map[string][]string{"X-Forwarded-For": {"1.2.3.4, nonsense"}}, "10.0.0.5"},
		{"one hop, an IPv6 client by /64", hops1, "10.0.0.5:1",
			map[string][]string{"X-Forwarded-For": {"1.2.3.4, 2001:db8:1:2::99"}}, "2001:db8:1:2::/64"},
		{"proxies: the rightmost untrusted", proxies, "10.0.0.5:1",
			map[string][]string{"X-Forwarded-For": {"1.2.3.4, 198.51.100.9, 10.1.1.1, 2001:db8:ffff::1"}}, "198.51.100.9"},
		{"proxies: an untrusted peer is the client", proxies, "192.0.2.50:1",
			map[string][]string{"X-Forwarded-For": {"198.51.100.9"}}, "192.0.2.50"},
		{"proxies: all trusted: the peer", proxies, "10.0.0.5:1",
			map[string][]string{"X-Forwarded-For": {"10.1.1.1"}}, "10.0.0.5"},
		{"Forwarded, one hop", fwd, "10.0.0.5:1",
			map[string][]string{"Forwarded": {`for=1.2.3.4, for="[2001:db8:1:2::99]:4711";proto=https`}}, "2001:db8:1:2::/64"},
		{"Forwarded ignores X-Forwarded-For", fwd, "10.0.0.5:1",
			map[string][]string{"X-Forwarded-For": {"198.51.100.9"}, "Forwarded": {"for=192.0.2.60"}}, "192.0.2.60"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rule, err := clientaddr.New(c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			r := httptest.NewRequest(http.MethodGet, "/graphql", nil)
			r.RemoteAddr = c.remote
			for k, vs := range c.header {
				for _, v := range vs {
					r.Header.Add(k, v)
				}
			}
			if got := rule.Client(r); got != c.want {
				t.Errorf("Client = %q, want %q (rule: %s)", got, c.want, rule)
			}
		})
	}
}

func TestNewRefuses(t *testing.T) {
	for _, cfg := range []clientaddr.Config{
		{Hops: 1, Proxies: []string{"10.0.0.0/8"}},
		{Hops: -1},
		{Proxies: []string{"10.0.0.0/33"}},
		{Proxies: []string{"nonsense"}},
		{Header: "X-Real-IP", Hops: 1},
		{IPv6Prefix: 129},
		{IPv6Prefix: -1},
	} {
		if _, err := clientaddr.New(cfg); err == nil {
			t.Errorf("New(%+v) accepted", cfg)
		}
	}
}

func TestOf(t *testing.T) {
	rule, err := clientaddr.New(clientaddr.Config{Hops: 1})
	if err != nil {
		t.Fatal(err)
	}
	var got string
	h := rule.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = clientaddr.Of(r) }))
	r := httptest.NewRequest(http.MethodGet, "/graphql", nil)
	r.Header.Set("X-Forwarded-For", "1.2.3.4, 198.51.100.9")
	h.ServeHTTP(httptest.NewRecorder(), r)
	if got != "198.51.100.9" {
		t.Errorf("Of under Middleware = %q, want 198.51.100.9", got)
	}
	if got := clientaddr.Of(r); got != "192.0.2.1" { // httptest's RemoteAddr
		t.Errorf("Of without Middleware = %q, want the peer 192.0.2.1", got)
	}
}
