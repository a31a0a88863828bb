package e2e

// Forwarded addresses in the hostile suite: behind a proxy that appends to
// X-Forwarded-For (or Forwarded), the client writes the leftmost entries;
// rotating them, or rotating IPv6 addresses inside one /64, must not buy a
// fresh rate budget or more live connections (issue 23).

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/coder/websocket"
)

// TestBudgetForwardedAddressesDoNotRotate: with -trusted-proxy-hops 1 (and
// the deprecated -trust-forwarded-for, which now means the same, and
// -forwarded-header Forwarded), refused requests from one client behind a
// proxy that appends, each with a new client-written first entry, drain
// one budget: the 11th is 429 (-rate-burst 100, -rate-refused-cost 10);
// another client keeps its own; IPv6 addresses of one /64 are one client.
func TestBudgetForwardedAddressesDoNotRotate(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the binary")
	}
	rate := []string{"-rate-limit", "0.001", "-rate-burst", "100", "-rate-refused-cost", "10"}
	xff := func(client string) func(i int) map[string]string {
		return func(i int) map[string]string {
			return map[string]string{"X-Forwarded-For": fmt.Sprintf("203.0.113.%d, %s", i, client)}
		}
	}
	for _, c := range []struct {
		name   string
		args   []string
		header func(i int) map[string]string // request i's forwarded header
		other  map[string]string             // another client's
		log    string                        // a line the server must log
	}{
		{name: "X-Forwarded-For, one hop", args: []string{"-trusted-proxy-hops", "1"},
			header: xff("198.51.100.7"), other: xff("198.51.100.8")(0)},
		{name: "X-Forwarded-For, trusted proxies", args: []string{"-trusted-proxies", "127.0.0.1/32,10.0.0.0/8"},
			header: func(i int) map[string]string { return xff("198.51.100.7, 10.0.0.3")(i) }, other: xff("198.51.100.8")(0)},
		{name: "IPv6 clients grouped by prefix 64", args: []string{"-trusted-proxy-hops", "1"},
			header: func(i int) map[string]string { return xff(fmt.Sprintf("2001:db8:1:2::%x", i+1))(i) }, other: xff("2001:db8:1:3::1")(0)},
		{name: "Forwarded, one hop", args: []string{"-trusted-proxy-hops", "1", "-forwarded-header", "Forwarded"},
			header: func(i int) map[string]string {
				return map[string]string{"Forwarded": fmt.Sprintf(`for=203.0.113.%d, for="[2001:db8:1:2::%x]:4711"`, i, i+1)}
			}, other: map[string]string{"Forwarded": "for=198.51.100.8"}},
		{name: "deprecated -trust-forwarded-for", args: []string{"-trust-forwarded-for"},
			header: xff("198.51.100.7"), other: xff("198.51.100.8")(0), log: "DEPRECATED: -trust-forwarded-for now means -trusted-proxy-hops 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := MustStartBudgetServer(t, append(append([]string{"-store", "bolt:budget-xff.db"}, rate...), c.args...)...)
			refused := gql(`{ nope }`, nil)
			cases := make([]budgetCase, 0, 12)
			for i := range 10 {
				cases = append(cases, budgetCase{hostileCase: hostileCase{name: fmt.Sprintf("refused %d", i+1), body: refused,
					header: withJSON(c.header(i)), status: http.StatusUnprocessableEntity, code: validation}})
			}
			cases = append(cases,
				budgetCase{hostileCase: hostileCase{name: "the 11th, with a new first entry", body: refused,
					header: withJSON(c.header(10)), status: http.StatusTooManyRequests, code: "THROTTLED"}},
				budgetCase{hostileCase: hostileCase{name: "another client", body: refused,
					header: withJSON(c.other), status: http.StatusUnprocessableEntity, code: validation}})
			runBudget(t, s, cases)
			if c.log != "" && !s.waitLog(func(log string) bool { return strings.Contains(log, c.log) }) {
				t.Errorf("the server did not log %q", c.log)
			}
		})
	}
}

// withJSON is h with Content-Type: application/json.
func withJSON(h map[string]string) map[string]string {
	out := map[string]string{"Content-Type": "application/json"}
	for k, v := range h {
		out[k] = v
	}
	return out
}

// TestBudgetForwardedAddressesLiveCap: 40 websockets from one client
// behind a proxy that appends, each with a new first X-Forwarded-For
// entry, are capped at -live-max-connections (20): 20 open, 20 get 429.
func TestBudgetForwardedAddressesLiveCap(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the binary")
	}
	s := MustStartBudgetServer(t, "-store", "bolt:budget-xff-live.db", "-trusted-proxy-hops", "1", "-live-max-connections", "20")
	ctx, cancel := context.WithTimeout(context.Background(), e2eRequestTimeout)
	defer cancel()
	url := "ws" + strings.TrimPrefix(s.URL, "http") + "/graphql"
	var opened, refused int
	for i := range 40 {
		h := http.Header{"X-Forwarded-For": {fmt.Sprintf("203.0.113.%d, 198.51.100.7", i)}}
		c, resp, err := websocket.Dial(ctx, url, &websocket.DialOptions{Subprotocols: []string{"graphql-transport-ws"}, HTTPHeader: h})
		switch {
		case err == nil:
			opened++
			defer c.CloseNow()
		case resp != nil && resp.StatusCode == http.StatusTooManyRequests:
			refused++
		default:
			t.Fatalf("websocket %d: %v", i+1, err)
		}
	}
	if opened != 20 || refused != 20 {
		t.Errorf("%d websockets opened and %d refused with 429; want 20 and 20", opened, refused)
	}
}
