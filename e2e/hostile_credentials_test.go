package e2e

// Credentials in the hostile suite: a credential header is read before the
// rate limit, so one of a megabyte must be refused without being parsed.

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"

	"github.com/acme/comments-gateway/auth"
)

// TestBudgetOversizeCredentialsAreCheap: with API keys and a JWKS
// configured and a rate limit on, a ~1 MB bearer token (JWT-shaped or
// not) or API key gets 401 UNAUTHENTICATED, within the budgets, before
// the rate limit or the JWT parser sees it.
func TestBudgetOversizeCredentialsAreCheap(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the binary")
	}
	jwks := mustJWKSServer(t)
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

// mustJWKSServer serves, on 127.0.0.1, a JWKS with one EC public key and
// returns its URL.
func mustJWKSServer(tb testing.TB) string {
	tb.Helper()
	raw, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		tb.Fatal(err)
	}
	key, err := jwk.Import(raw.Public())
	if err != nil {
		tb.Fatal(err)
	}
	_ = key.Set(jwk.KeyIDKey, "ec-1")
	_ = key.Set(jwk.AlgorithmKey, jwa.ES256())
	set := jwk.NewSet()
	_ = set.AddKey(key)
	b, _ := json.Marshal(set)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	}))
	tb.Cleanup(srv.Close)
	return srv.URL
}
