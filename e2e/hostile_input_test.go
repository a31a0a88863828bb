package e2e

// The hostile suite's rows about input the gateway must refuse cheaply:
// text that is invisible or holds control characters, a client that sends
// only refused operations, and operations outside the trusted documents.

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"testing"
)

// naming sends c and fails the send unless the reply names field (the error
// must say which argument to fix).
func naming(field string, c hostileCase) func(ctx context.Context, client *http.Client, base string) (int, []byte, error) {
	return func(ctx context.Context, client *http.Client, base string) (int, []byte, error) {
		status, body, err := sendHostile(ctx, client, base, c)
		if err == nil && !bytes.Contains(body, []byte(field)) {
			err = fmt.Errorf("the reply does not name %s: %s", field, body)
		}
		return status, body, err
	}
}

// TestBudgetInputRefusalsAreCheap: each attack gets its status and code
// within the budgets (hostile_budget_test.go).
func TestBudgetInputRefusalsAreCheap(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the binary")
	}
	t.Run("text fields", func(t *testing.T) {
		s := MustStartBudgetServer(t, "-store", "bolt:budget.db")
		text := func(name, field, value, path string) budgetCase {
			c := hostileCase{name: name, body: gql(hMCreate, map[string]any{"in": with(validCreate(), field, value)}), status: http.StatusOK, code: badInput}
			return budgetCase{hostileCase: c, send: naming(path, c)}
		}
		update := hostileCase{name: "updateComment title of only U+FEFF U+2060", status: http.StatusOK, code: badInput,
			body: gql(hMUpdate, map[string]any{"in": map[string]any{"id": "01J00000000000000000000000", "title": "\ufeff\u2060"}})}
		runBudget(t, s, []budgetCase{
			text("body of only U+00A0 U+200B U+3000", "body", "\u00a0\u200b\u3000", "input.body"),
			text("NUL in author", "author", "Ann\x00", "input.author"),
			text("ESC in title", "title", "\x1b[2Jcleared", "input.title"),
			text("body of only newlines and tabs", "body", "\n\t\n", "input.body"),
			text("vertical tab in body", "body", "a\vb", "input.body"),
			{hostileCase: update, send: naming("input.title", update)},
		})
	})

	t.Run("only refused operations", func(t *testing.T) {
		// 30 points, refused requests cost 10 (the default), restored at
		// 0.01 a second: 3 refusals, then 429 for anything.
		s := MustStartBudgetServer(t, "-store", "bolt:budget.db", "-rate-limit", "0.01", "-rate-burst", "30")
		parse := hostileCase{body: gql("{ product(id: ", nil), status: http.StatusUnprocessableEntity, code: "GRAPHQL_PARSE_FAILED"}
		throttled := hostileCase{status: http.StatusTooManyRequests, code: "THROTTLED"}
		row := func(name string, c hostileCase) budgetCase { c.name = name; return budgetCase{hostileCase: c} }
		runBudget(t, s, []budgetCase{
			row("refusal 1", parse),
			row("refusal 2", hostileCase{body: gql("{ nope }", nil), status: http.StatusUnprocessableEntity, code: validation}),
			row("refusal 3", parse),
			row("refusal 4 is throttled", func() hostileCase { c := throttled; c.body = parse.body; return c }()),
			row("then a valid query is throttled too", func() hostileCase { c := throttled; c.body = gql("{ __typename }", nil); return c }()),
		})
	})

	t.Run("trusted documents only", func(t *testing.T) {
		manifest, err := filepath.Abs(filepath.Join(moduleRoot, "trusted", "testdata", "persisted-documents.json"))
		if err != nil {
			t.Fatal(err)
		}
		s := MustStartBudgetServer(t, "-store", "bolt:budget.db", "-trusted-documents", manifest, "-only-trusted-documents")
		const statsID = "sha256:9879edfa962acc307d60e998336c0d92a17267950f946003ceca1ac6c6ccc5f4" // ProductStatsQuery
		runBudget(t, s, []budgetCase{
			{hostileCase: hostileCase{name: "a query outside the manifest", body: gql("{ product(id: \"p1\") { id } }", nil), status: http.StatusBadRequest, code: "TRUSTED_DOCUMENT_REQUIRED"}},
			{hostileCase: hostileCase{name: "a mutation outside the manifest", body: gql(hMCreate, map[string]any{"in": validCreate()}), status: http.StatusBadRequest, code: "TRUSTED_DOCUMENT_REQUIRED"}},
			{hostileCase: hostileCase{name: "GET outside the manifest", method: http.MethodGet, path: "/graphql?query=%7B__typename%7D", status: http.StatusBadRequest, code: "TRUSTED_DOCUMENT_REQUIRED"}},
			{hostileCase: hostileCase{name: "an unknown documentId", body: []byte(`{"documentId":"sha256:00"}`), status: http.StatusBadRequest, code: "PERSISTED_QUERY_NOT_FOUND"}},
			{hostileCase: hostileCase{name: "an APQ registration", body: []byte(`{"query":"{ __typename }","extensions":{"persistedQuery":{"version":1,"sha256Hash":"ecf4edb46db40b5132295c0291d62fb65d6759a9eedfa4d5d612dd5ec54a6b38"}}}`), status: http.StatusBadRequest, code: "PERSISTED_QUERY_NOT_FOUND"}},
			{hostileCase: hostileCase{name: "a trusted documentId beside another Query", body: []byte(`{"documentId":"` + statsID + `","Query":"{ __typename }","variables":{"id":"p1"}}`), status: http.StatusBadRequest, code: "TRUSTED_DOCUMENT_MISMATCH"}},
			{hostileCase: hostileCase{name: "a query and another Query", body: []byte(`{"query":"{ __typename }","Query":"{ product(id: \"p1\") { id } }"}`), status: http.StatusBadRequest, code: "BAD_REQUEST"}},
		})
		// And the manifest's documents run (the comparison for the rows above).
		ctx, cancel := context.WithTimeout(context.Background(), e2eRequestTimeout)
		defer cancel()
		status, body, err := sendHostile(ctx, &http.Client{Transport: &http.Transport{Proxy: nil}}, s.URL, hostileCase{body: []byte(`{"documentId":"` + statsID + `","variables":{"id":"p1"}}`)})
		if err != nil || status != http.StatusOK || !bytes.Contains(body, []byte(`{"data":{"product":{"id":"p1","stats":{"averageRating":null,"total":0}}}`)) {
			t.Errorf("a trusted document by documentId: HTTP %d, %v: %s", status, err, body)
		}
	})
}
