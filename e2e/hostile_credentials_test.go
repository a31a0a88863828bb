package e2e

// Credentials in the hostile suite: a credential header is read before the
// rate limit, so one of a megabyte must be refused without being parsed;
// and in production the read plan (X-Explain), which names the table's
// keys and indexes, is shown only to API keys and moderators.

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/acme/comments-gateway/auth"
	"github.com/acme/comments-gateway/internal/testutil"
)

// TestBudgetOversizeCredentialsAreCheap: with API keys and a JWKS
// configured and a rate limit on, a ~1 MB bearer token (JWT-shaped or
// not) or API key gets 401 UNAUTHENTICATED, within the budgets, before
// the rate limit or the JWT parser sees it.
func TestBudgetOversizeCredentialsAreCheap(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the binary")
	}
	jwks, _ := mustJWKSServer(t)
	s := startServer(t, MustPlainBinary(t), []string{"serve", "-addr", "127.0.0.1:0", "-demo=false", "-store", "bolt:budget-cred.db",
		"-api-keys", auth.HashKey("the-key"), "-jwks-url", jwks, "-jwt-issuer", "idp", "-jwt-audience", "gw",
		"-rate-limit", "0.001", "-rate-burst", "100"}, nil, func(s *Server) { s.Stop(t) })
	part := strings.Repeat("A", 500_000)
	body := gql(`{ __typename }`, nil)
	oversize := func(name, hdr, val string) budgetCase {
		return budgetCase{hostileCase: hostileCase{name: name, body: body, status: http.StatusUnauthorized, code: "UNAUTHENTICATED",
			header: map[string]string{"Content-Type": "application/json", hdr: val}}}
	}
	cases := []budgetCase{
		oversize("a 1 MB JWT-shaped bearer token", "Authorization", "Bearer "+part+"."+part+".sig"),
		oversize("a 1 MB bearer API key", "Authorization", "Bearer "+part+part),
		oversize("a 1 MB X-API-Key", "X-API-Key", part+part),
	}
	// Ten of them cost the rate limit nothing: the client still runs a query.
	for range 10 {
		cases = append(cases, cases[0])
	}
	runBudget(t, s, cases)
	ctx, cancel := context.WithTimeout(context.Background(), e2eRequestTimeout)
	defer cancel()
	status, reply, err := s.HTTP(ctx, http.MethodPost, "/graphql", body, map[string]string{"Content-Type": "application/json"})
	if err != nil || status != http.StatusOK || strings.Contains(string(reply), `"errors"`) {
		t.Errorf("a query after the refusals: HTTP %d %v: %.300s", status, err, reply)
	}
}

// TestBudgetExplainNeedsACredential: in production X-Explain: 1 is 401
// UNAUTHENTICATED without a valid credential and 403 FORBIDDEN with a
// user's token, within the budgets; an API key or a moderator's token gets
// extensions.plan, and so does anyone with -open-explain.
func TestBudgetExplainNeedsACredential(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the binary")
	}
	jwks, sign := mustJWKSServer(t)
	s := startServer(t, MustPlainBinary(t), []string{"serve", "-addr", "127.0.0.1:0", "-demo=false", "-store", "bolt:budget-explain.db",
		"-api-keys", auth.HashKey("the-key"), "-jwks-url", jwks, "-jwt-issuer", "idp", "-jwt-audience", "gw"}, nil, func(s *Server) { s.Stop(t) })
	body := gql(`{ product(id: "p1") { comments(first: 2) { totalCount } } }`, nil)
	explainHeader := func(hdr ...string) map[string]string {
		h := map[string]string{"Content-Type": "application/json", "X-Explain": "1"}
		for i := 0; i+1 < len(hdr); i += 2 {
			h[hdr[i]] = hdr[i+1]
		}
		return h
	}
	explain := func(name string, status int, code string, hdr ...string) budgetCase {
		return budgetCase{hostileCase: hostileCase{name: name, body: body, status: status, code: code, header: explainHeader(hdr...)}}
	}
	user := sign(map[string]any{"sub": "u1"})
	moderator := sign(map[string]any{"sub": "m1", "roles": []string{"moderator"}})
	runBudget(t, s, []budgetCase{
		explain("anonymous", http.StatusUnauthorized, "UNAUTHENTICATED"),
		explain("an unknown API key", http.StatusUnauthorized, "UNAUTHENTICATED", "X-API-Key", "not-the-key"),
		explain("a user's token", http.StatusForbidden, "FORBIDDEN", "Authorization", "Bearer "+user),
	})
	mustPlan := func(s *Server, hdr ...string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), e2eRequestTimeout)
		defer cancel()
		status, reply, err := s.HTTP(ctx, http.MethodPost, "/graphql", body, explainHeader(hdr...))
		if err != nil || status != http.StatusOK || !strings.Contains(string(reply), `"plan":[{`) {
			t.Errorf("X-Explain with %v: HTTP %d %v, want a plan: %.300s", hdr, status, err, reply)
		}
	}
	mustPlan(s, "X-API-Key", "the-key")
	mustPlan(s, "Authorization", "Bearer "+moderator)
	open := startServer(t, MustPlainBinary(t), []string{"serve", "-addr", "127.0.0.1:0", "-demo=false", "-store", "bolt:budget-explain-open.db",
		"-open-mutations", "-open-explain"}, nil, func(s *Server) { s.Stop(t) })
	mustPlan(open)
}

// mustJWKSServer serves, on 127.0.0.1, a JWKS; it returns its URL and a
// function that signs a token of issuer "idp" and audience "gw", valid for
// an hour, with the given claims added.
func mustJWKSServer(tb testing.TB) (string, func(claims map[string]any) string) {
	tb.Helper()
	srv := testutil.MustJWKS(tb)
	return srv.URL, func(claims map[string]any) string {
		all := map[string]any{"iss": "idp", "aud": "gw", "exp": time.Now().Add(time.Hour)}
		for k, v := range claims {
			all[k] = v
		}
		return srv.Sign(tb, true, all)
	}
}
