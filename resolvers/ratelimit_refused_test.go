package resolvers_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/acme/comments-gateway/clientaddr"
	"github.com/acme/comments-gateway/internal/gqltest"
	"github.com/acme/comments-gateway/internal/policy"
	"github.com/acme/comments-gateway/resolvers"
	"github.com/acme/comments-gateway/store"
)

// TestRateLimitChargesRefusals: requests that run no operation (parse,
// validation and limit failures, an over-large body, an operation THROTTLED
// for its cost) each cost RefusedCost points, so a client sending only those
// runs out of budget and then gets 429 THROTTLED with Retry-After before
// anything is read; an operation that runs costs its complexity only; other
// clients keep their budget.
func TestRateLimitChargesRefusals(t *testing.T) {
	const burst, refused = 100, 10
	h := resolvers.NewHandler(resolvers.Config{
		Store:      store.New(MustOpenLoaded(t, genComments())),
		Logger:     slog.New(slog.NewTextHandler(io.Discard, nil)),
		Limits:     policy.Limits{MaxBodyBytes: 1000, MaxDepth: 4},
		RateLimit:  policy.RateLimit{Rate: 0.001, Burst: burst, RefusedCost: refused},
		ClientAddr: mustClientAddr(t, clientaddr.Config{Hops: 1}),
	})
	srv := httptest.NewServer(h)
	defer srv.Close()

	type answer struct {
		status     int
		retryAfter string
		code       string
		cost       int
	}
	send := func(client, body string) answer {
		t.Helper()
		resp := gqltest.New(srv.URL).MustSend(t, http.MethodPost, "", []byte(body), gqltest.Header("X-Forwarded-For", client))
		var r struct {
			Errors []struct {
				Extensions struct{ Code string }
			}
			Extensions struct {
				Cost struct{ RequestedQueryCost int }
			}
		}
		if err := json.Unmarshal(resp.Body, &r); err != nil {
			t.Fatalf("HTTP %d: %v", resp.Status, err)
		}
		a := answer{status: resp.Status, retryAfter: resp.Header.Get("Retry-After"), cost: r.Extensions.Cost.RequestedQueryCost}
		if len(r.Errors) > 0 {
			a.code = r.Errors[0].Extensions.Code
		}
		return a
	}
	refusals := []string{
		`{"query":"{ product(id: "}`,                  // not JSON
		`{"query":"{ product(id: \"p\") { nope } }"}`, // validation
		`{"query":"{ product(id: \"p\") { id }"}`,     // parse
		`{"query":"{ a: product(id: \"p\") { comments(first: 1) { nodes { product { comments(first: 1) { nodes { id } } } } } } }"}`, // depth
		`{"query":"` + strings.Repeat(" ", 2000) + `{ __typename }"}`,                                                                // 413
	}

	// Only refusals: burst/refused of them pass the gate, then 429.
	for i := range burst / refused {
		if a := send("192.0.2.1", refusals[i%len(refusals)]); a.status == http.StatusTooManyRequests || a.code == "" || a.code == policy.CodeThrottled {
			t.Fatalf("refusal %d: %+v, want its own refusal", i, a)
		}
	}
	for _, body := range append(refusals, `{"query":"{ __typename }"}`) {
		a := send("192.0.2.1", body)
		if a.status != http.StatusTooManyRequests || a.code != policy.CodeThrottled || a.retryAfter == "" || a.cost != refused {
			t.Errorf("after %d refusals: %+v, want 429 THROTTLED with Retry-After", burst/refused, a)
		}
	}
	if a := send("192.0.2.2", `{"query":"{ __typename }"}`); a.status != http.StatusOK || a.code != "" {
		t.Errorf("another client: %+v", a)
	}

	// An operation that runs costs its complexity, not the refused cost on top.
	op := `{"query":"{ product(id: \"big\") { comments(first: 5) { nodes { id } } } }"}`
	a := send("192.0.2.3", op)
	if a.status != http.StatusOK || a.code != "" || a.cost <= 1 || a.cost >= burst-refused {
		t.Fatalf("a valid operation: %+v", a)
	}
	left := burst - a.cost
	for i := range left / refused {
		if a := send("192.0.2.3", refusals[1]); a.status == http.StatusTooManyRequests {
			t.Fatalf("refusal %d of %d after an operation of cost %d: throttled", i+1, left/refused, a.cost)
		}
	}
	if a := send("192.0.2.3", refusals[1]); a.status != http.StatusTooManyRequests {
		t.Errorf("after spending %d of %d points: %+v, want 429", burst-left%refused, burst, a)
	}

	// An operation THROTTLED for its cost is a refusal too.
	big := `{"query":"{ product(id: \"big\") { comments(first: 50) { nodes { id rating author } } } }"}`
	for i := range burst / refused {
		if a := send("192.0.2.4", big); a.code != policy.CodeThrottled || a.status != http.StatusOK {
			t.Fatalf("over-budget operation %d: %+v, want 200 THROTTLED by its cost", i, a)
		}
	}
	if a := send("192.0.2.4", big); a.status != http.StatusTooManyRequests {
		t.Errorf("after %d over-budget operations: %+v, want 429", burst/refused, a)
	}
}
