package resolvers_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/acme/comments-gateway/clientaddr"
	"github.com/acme/comments-gateway/internal/gqltest"
	"github.com/acme/comments-gateway/internal/policy"
	"github.com/acme/comments-gateway/resolvers"
	"github.com/acme/comments-gateway/store"
)

// TestRateLimitByCost: a client's budget is spent by the complexity of its
// operations; past it, operations are refused with THROTTLED before any
// read, other clients keep their own budget, and every answer reports the
// budget in extensions.cost.throttleStatus.
func TestRateLimitByCost(t *testing.T) {
	tbl := MustOpenLoaded(t, genComments())
	spy := newSpy(tbl)
	h := resolvers.NewHandler(resolvers.Config{
		Store:      store.New(spy),
		Logger:     slog.New(slog.NewTextHandler(io.Discard, nil)),
		RateLimit:  policy.RateLimit{Rate: 0.001, Burst: 500},
		ClientAddr: mustClientAddr(t, clientaddr.Config{Hops: 1}),
	})
	srv := httptest.NewServer(h)
	defer srv.Close()

	body := `{"query":"{ product(id: \"big\") { comments(first: 20) { nodes { id rating } } } }"}`
	type answer struct {
		Errors []struct {
			Extensions map[string]any
		}
		Extensions struct {
			Cost struct {
				RequestedQueryCost int
				ThrottleStatus     struct {
					MaximumAvailable, CurrentlyAvailable, RestoreRate float64
				}
			}
		}
	}
	send := func(client string) answer {
		t.Helper()
		r := gqltest.New(srv.URL).MustSend(t, http.MethodPost, "", []byte(body), gqltest.Header("X-Forwarded-For", "10.0.0.1, "+client))
		var a answer
		if err := json.Unmarshal(r.Body, &a); err != nil {
			t.Fatal(err)
		}
		return a
	}
	var ok, cost int
	var last answer
	for range 20 {
		last = send("192.0.2.1")
		if len(last.Errors) > 0 {
			break
		}
		ok++
		cost = last.Extensions.Cost.RequestedQueryCost
		if c := last.Extensions.Cost; c.RequestedQueryCost <= 0 || c.ThrottleStatus.MaximumAvailable != 500 {
			t.Fatalf("cost extension: %+v", c)
		}
	}
	if want := 500 / cost; ok < want-1 || ok > want {
		t.Errorf("%d operations of cost %d passed a budget of 500", ok, cost)
	}
	if len(last.Errors) == 0 || last.Errors[0].Extensions["code"] != policy.CodeThrottled {
		t.Fatalf("no THROTTLED error after %d operations: %+v", ok, last)
	}
	before := spy.TotalCalls()
	if a := send("192.0.2.1"); len(a.Errors) == 0 || spy.TotalCalls() != before {
		t.Errorf("a throttled operation ran (%d store calls)", spy.TotalCalls()-before)
	}
	if a := send("192.0.2.2"); len(a.Errors) != 0 {
		t.Errorf("another client was throttled: %+v", a.Errors)
	}
}

// mustClientAddr returns the client address rule of cfg.
func mustClientAddr(tb testing.TB, cfg clientaddr.Config) *clientaddr.Rule {
	tb.Helper()
	r, err := clientaddr.New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}
