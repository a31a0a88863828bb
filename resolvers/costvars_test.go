package resolvers_test

import (
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/acme/comments-gateway/internal/gqltest"
	"github.com/acme/comments-gateway/resolvers"
	"github.com/acme/comments-gateway/store"
)

// TestCostKeptByVariables sends one document with page sizes that pass and
// fail the complexity limit, alternately and repeatedly: each request gets
// the measure of its own variables, whatever was measured and kept before.
func TestCostKeptByVariables(t *testing.T) {
	h := resolvers.NewHandler(resolvers.Config{Store: store.New(MustOpenLoaded(t, genComments())),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	srv := httptest.NewServer(h)
	defer srv.Close()
	var b strings.Builder
	b.WriteString(`query Pages($n: Int, $lang: String) { product(id: "big") {`)
	for i := range 20 {
		fmt.Fprintf(&b, " c%d: comments(first: $n, language: $lang) { edges { cursor node { id rating author title body createdAt } } }", i)
	}
	b.WriteString(" } }")
	c := gqltest.New(srv.URL)
	complexity := map[string]any{}
	for round := range 3 {
		for _, tc := range []struct {
			vars   map[string]any
			status int
			code   string
		}{
			{map[string]any{"n": 1}, 200, ""},
			{map[string]any{"n": 100}, 422, "COMPLEXITY_LIMIT_EXCEEDED"},
			{map[string]any{"n": 2, "lang": "en"}, 200, ""},
			{map[string]any{"n": "x"}, 422, "GRAPHQL_VALIDATION_FAILED"},
			{map[string]any{"n": 100, "lang": "en"}, 422, "COMPLEXITY_LIMIT_EXCEEDED"},
		} {
			r := c.MustDo(t, b.String(), tc.vars)
			if r.Status != tc.status || r.Code() != tc.code {
				t.Fatalf("round %d %v: HTTP %d %q, want %d %q: %.300s", round, tc.vars, r.Status, r.Code(), tc.status, tc.code, r.Body)
			}
			if tc.status != 200 {
				continue
			}
			cost, _ := r.Extensions["cost"].(map[string]any)
			key := fmt.Sprint(tc.vars)
			if prev, ok := complexity[key]; ok && prev != cost["complexity"] {
				t.Errorf("round %d %v: complexity %v, was %v", round, tc.vars, cost["complexity"], prev)
			}
			complexity[key] = cost["complexity"]
		}
	}
	if complexity["map[n:1]"] == complexity["map[lang:en n:2]"] || complexity["map[n:1]"] == nil {
		t.Errorf("complexities %v: pages of 1 and 2 should differ", complexity)
	}
}
