package e2e

// The cost rows of the hostile suite (issue 12): operations that ask for far
// more than their text suggests are refused by the cost analysis before
// validation, cheaply, and a bounded one is served within budget.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acme/comments-gateway/internal/gqltest"
)

// costLanguages is how many language tags the product costPoly has.
const (
	costPoly      = "poly"
	costLanguages = 1000
)

// mustImportLanguages writes costLanguages comments on costPoly, one per
// language tag, to a new bolt file with the plain binary's import command,
// and returns the file's path.
func mustImportLanguages(tb testing.TB) string {
	tb.Helper()
	dir := tb.TempDir()
	var b strings.Builder
	enc := json.NewEncoder(&b)
	t0 := time.Date(2025, 6, 1, 9, 0, 0, 0, time.UTC)
	for i := range costLanguages {
		_ = enc.Encode(map[string]any{
			"productId": costPoly, "language": fmt.Sprintf("en-x-t%04d", i), "rating": i%5 + 1,
			"author": "a", "title": "t", "body": "b", "createdAt": t0.Add(time.Duration(i) * time.Second),
		})
	}
	file := filepath.Join(dir, "languages.jsonl")
	if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
		tb.Fatal(err)
	}
	db := filepath.Join(dir, "cost.db")
	ctx, cancel := context.WithTimeout(context.Background(), e2eCommandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, MustPlainBinary(tb), "import", "-store", "bolt:"+db, file)
	cmd.Env = gwEnv("import")
	cmd.WaitDelay = 5 * time.Second
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("gw import: %v\n%s", err, tail(string(out), 4000))
	}
	return db
}

// exponentialFragmentsQuery is about 1 KB: `product` spreads F0, and each of
// 27 fragments spreads the next twice (2^26 copies of the last one's field).
func exponentialFragmentsQuery() string {
	var b strings.Builder
	b.WriteString(`{ product(id: "poly") { ...F0 } }`)
	for i := range 26 {
		fmt.Fprintf(&b, "\nfragment F%d on Product{...F%d ...F%d}", i, i+1, i+1)
	}
	b.WriteString("\nfragment F26 on Product{id}")
	return b.String()
}

// entitiesBody asks _entities for n representations, each with a page of
// 100 comments.
func entitiesBody(n int) []byte {
	reps := make([]map[string]any, n)
	for i := range reps {
		reps[i] = map[string]any{"__typename": "Product", "id": fmt.Sprintf("p%d", i)}
	}
	return gql(`query($r: [_Any!]!) { _entities(representations: $r) { ... on Product { comments(first: 100) { nodes { id body } } } } }`, map[string]any{"r": reps})
}

// languageAliases is 100 aliases of languages(args) on costPoly.
func languageAliases(args string) string {
	var b strings.Builder
	b.WriteString(`{ product(id: "poly") {`)
	for i := range 100 {
		fmt.Fprintf(&b, " l%d: languages%s { language }", i, args)
	}
	b.WriteString(" } }")
	return b.String()
}

// TestBudgetCostRefusalsAreCheap: the cost rows, each refused cheaply with
// its code (or, for the bounded languages page, served within budget).
func TestBudgetCostRefusalsAreCheap(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the binary")
	}
	db := mustImportLanguages(t)
	s := MustStartBudgetServer(t, "-store", "bolt:"+db)
	if q := exponentialFragmentsQuery(); len(q) < 900 || len(q) > 1100 {
		t.Fatalf("the fragment query has %d bytes, want about 1 KB", len(q))
	}
	refused := func(name string, body []byte, code string) budgetCase {
		return budgetCase{hostileCase: hostileCase{name: name, body: body, status: http.StatusUnprocessableEntity, code: code}}
	}
	runBudget(t, s, []budgetCase{
		refused("1 KB query of 27 fragments each spreading the next twice", gql(exponentialFragmentsQuery(), nil), "SELECTION_LIMIT_EXCEEDED"),
		refused("_entities with 10,000 representations each comments(first: 100)", entitiesBody(10_000), "ENTITY_LIMIT_EXCEEDED"),
		refused("_entities with 100 representations each comments(first: 100)", entitiesBody(100), "COMPLEXITY_LIMIT_EXCEEDED"),
		refused("__typename 9,990 times", gql("{"+strings.Repeat(" __typename", 9990)+" }", nil), "SELECTION_LIMIT_EXCEEDED"),
		refused("100 aliases of languages(first: 100) on a product with 1,000 languages", gql(languageAliases("(first: 100)"), nil), "COMPLEXITY_LIMIT_EXCEEDED"),
	})
	t.Run("100 aliases of languages on a product with 1,000 languages: served, 20 each", func(t *testing.T) {
		c := budgetCase{hostileCase: hostileCase{name: t.Name(), body: gql(languageAliases(""), nil)}}
		pid := s.cmd.Process.Pid
		cpu0, rss0 := mustProcUsage(t, pid)
		ctx, cancel := context.WithTimeout(context.Background(), e2eRequestTimeout)
		defer cancel()
		client := &http.Client{Transport: &http.Transport{Proxy: nil}}
		defer client.CloseIdleConnections()
		status, body, err := sendHostile(ctx, client, s.URL, c.hostileCase)
		if err != nil {
			t.Fatal(err)
		}
		cpu1, rss1 := mustProcUsage(t, pid)
		var r struct {
			Data       map[string]map[string][]struct{ Language string }
			Errors     []gqltest.Error
			Extensions struct {
				Cost struct{ ItemsRead, Complexity int }
			}
		}
		if err := json.Unmarshal(body, &r); err != nil || status != http.StatusOK || len(r.Errors) > 0 {
			t.Fatalf("HTTP %d, %v: %.300s", status, err, body)
		}
		for alias, langs := range r.Data["product"] {
			if len(langs) != 20 {
				t.Errorf("%s: %d languages, want the default page of 20", alias, len(langs))
			}
		}
		if cost := r.Extensions.Cost; cost.ItemsRead > cost.Complexity || cost.ItemsRead > 100*20 {
			t.Errorf("%d items read at complexity %d; want at most 2,000 and at most the complexity", cost.ItemsRead, cost.Complexity)
		}
		checkBudget(t, c, cpu1-cpu0, len(body), rss1-rss0)
		t.Logf("HTTP %d, %d bytes, %s CPU, peak RSS +%d KiB, %d items read at complexity %d", status, len(body), cpu1-cpu0, (rss1-rss0)>>10, r.Extensions.Cost.ItemsRead, r.Extensions.Cost.Complexity)
	})
}
