package resolvers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/acme/comments-gateway/internal/gqltest"
	"github.com/acme/comments-gateway/resolvers"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/dynamo"
	"github.com/acme/comments-gateway/store/dynamo/dynamotest"
	"github.com/acme/comments-gateway/store/storetest"
	"github.com/acme/comments-gateway/store/table"
)

// polyID is a product with comments in polyLanguages languages (more than
// languages(first) can ask for).
const (
	polyID        = "poly"
	polyLanguages = 150
)

// costData is the test data set plus polyID.
func costData(tb testing.TB) []*store.Comment {
	cs := genComments()
	for i := range polyLanguages {
		lang := fmt.Sprintf("en-x-t%04d", i)
		if c, err := store.CanonicalLanguage(lang); err != nil || c != lang {
			tb.Fatalf("test language %q: canonical %q, %v", lang, c, err)
		}
		cs = append(cs, &store.Comment{
			ID: fmt.Sprintf("poly-c%03d", i), ProductID: polyID, Language: lang, Rating: i%5 + 1,
			Author: "a", Title: "t", Body: "b", CreatedAt: t0.Add(time.Duration(i) * time.Minute),
		})
	}
	return cs
}

// TestCostBoundsItemsRead is the rule every accepted operation keeps:
// extensions.cost.itemsRead ≤ extensions.cost.complexity, the complexity
// the gateway computed before running it. Checked on generated operations
// (fields, page sizes, filters, aliases, fragments, variables, _entities)
// and mutations against each store; a refused operation reads nothing.
func TestCostBoundsItemsRead(t *testing.T) {
	stores := map[string]func(t *testing.T) table.Table{
		"bolt":   func(t *testing.T) table.Table { return MustOpenLoaded(t, costData(t)) },
		"dynamo": func(t *testing.T) table.Table { return mustDynamoLoaded(t, costData(t)) },
	}
	for name, open := range stores {
		t.Run(name, func(t *testing.T) {
			h := resolvers.NewHandler(resolvers.Config{
				Store:  store.New(open(t)),
				Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
			})
			srv := httptest.NewServer(h)
			defer srv.Close()
			accepted, refused, maxRead := 0, 0, int64(0)
			for seed := range uint64(300) {
				g := &opGen{r: rand.New(rand.NewPCG(seed, 12))}
				query, vars := g.operation()
				raw := gqltest.New(srv.URL).MustDo(t, query, vars)
				cost, _ := raw.Extensions["cost"].(map[string]any)
				read, _ := cost["itemsRead"].(float64)
				switch errs := string(raw.RawErrors); {
				case strings.Contains(errs, "LIMIT_EXCEEDED"):
					if read != 0 {
						t.Errorf("refused %s read %v items", query, read)
					}
					refused++
					continue
				case len(raw.Errors) > 0 && !(strings.HasPrefix(query, "mutation") && strings.Contains(errs, `"NOT_FOUND"`)):
					t.Fatalf("%s %v: %s", query, vars, raw.RawErrors)
				}
				cx, ok := cost["complexity"].(float64)
				if !ok {
					t.Fatalf("%s: no extensions.cost.complexity in %v", query, raw.Extensions)
				}
				if read > cx {
					vj, _ := json.Marshal(vars)
					t.Errorf("items read %v > complexity %v:\n%s\n%s", read, cx, query, vj)
				}
				accepted++
				maxRead = max(maxRead, int64(read))
			}
			t.Logf("%d accepted (up to %d items read), %d refused", accepted, maxRead, refused)
			if accepted < 150 {
				t.Errorf("only %d of the generated operations were accepted", accepted)
			}
		})
	}
}

// mustDynamoLoaded returns a new table on DynamoDB Local (skipping the test
// without one; dynamotest) loaded with cs and their stats, and deletes it
// when the test ends.
func mustDynamoLoaded(t *testing.T, cs []*store.Comment) table.Table {
	t.Helper()
	tbl := mustDynamoTable(t)
	storetest.MustLoad(t, tbl, cs)
	return tbl
}

// mustDynamoTable creates an empty table on DynamoDB Local, deleted when
// the test ends.
func mustDynamoTable(t *testing.T) table.Table {
	t.Helper()
	c := dynamotest.MustClient(t)
	name := fmt.Sprintf("cost-%d", time.Now().UnixNano())
	tbl := dynamo.New(c, name)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := tbl.CreateTable(ctx, false); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)}); err != nil {
			t.Logf("DeleteTable %s: %v", name, err)
		}
	})
	return tbl
}

// opGen generates valid operations over the gateway's schema from r.
type opGen struct {
	r     *rand.Rand
	n     int // fields aliased so far (every field with arguments is)
	frags []string
	defs  []string
	vars  map[string]any
}

func (g *opGen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

func (g *opGen) alias() string {
	g.n++
	return fmt.Sprintf("f%d: ", g.n)
}

// intArg is a page size as a literal or a variable.
func (g *opGen) intArg(name string, sizes ...int) string {
	n := sizes[g.r.IntN(len(sizes))]
	if g.r.IntN(3) == 0 {
		v := fmt.Sprintf("v%d", len(g.defs))
		g.defs = append(g.defs, "$"+v+": Int")
		g.vars[v] = n
		return fmt.Sprintf("%s: $%s", name, v)
	}
	return fmt.Sprintf("%s: %d", name, n)
}

func (g *opGen) productID() string {
	return g.pick(bigID, polyID, "p0", "p3", "p6", "p17", "p29", "empty")
}

func (g *opGen) operation() (string, map[string]any) {
	g.vars = map[string]any{}
	if g.r.IntN(5) == 0 {
		return g.mutation(), g.vars
	}
	var b strings.Builder
	for range 1 + g.r.IntN(3) {
		switch g.r.IntN(5) {
		case 0, 1:
			fmt.Fprintf(&b, " %sproduct(id: %q) %s", g.alias(), g.productID(), g.product(0))
		case 2:
			fmt.Fprintf(&b, " %stopProducts(%s%s) { rank fiveStarCount product %s }", g.alias(), g.intArg("first", 0, 1, 3, 10, 30),
				g.pick("", `, language: "en"`, `, language: "de"`), g.product(1))
		case 3:
			fmt.Fprintf(&b, " %scomment(id: %q) %s", g.alias(), g.pick("big-c010", "p3-c001", "poly-c007", "nope"), g.comment(0))
		case 4:
			v := fmt.Sprintf("r%d", len(g.defs))
			g.defs = append(g.defs, "$"+v+": [_Any!]!")
			reps := make([]map[string]any, g.r.IntN(8))
			for i := range reps {
				reps[i] = map[string]any{"__typename": "Product", "id": g.productID()}
			}
			g.vars[v] = reps
			fmt.Fprintf(&b, " %s_entities(representations: $%s) { __typename ... on Product %s }", g.alias(), v, g.product(1))
		}
	}
	return g.document("query", b.String()), g.vars
}

// document is an operation of kind with its variable definitions, body and
// fragments.
func (g *opGen) document(kind, body string) string {
	if len(g.defs) > 0 {
		kind += "(" + strings.Join(g.defs, ", ") + ")"
	}
	return kind + " {" + body + " }" + strings.Join(g.frags, "")
}

// product is a selection set on Product, depth levels of products down.
func (g *opGen) product(depth int) string {
	var b strings.Builder
	b.WriteString("{ id")
	for range 1 + g.r.IntN(3) {
		switch g.r.IntN(6) {
		case 0, 1:
			b.WriteString(" " + g.alias() + "comments" + g.pageArgs() + " " + g.connection(depth))
		case 2:
			fmt.Fprintf(&b, " %sstats%s { total averageRating ratings { rating count } }", g.alias(), g.pick("", `(language: "en")`, `(language: "fr")`))
		case 3:
			fmt.Fprintf(&b, " %slanguages(%s) { language total }", g.alias(), g.intArg("first", 0, 1, 2, 20, 100))
		case 4: // a named fragment, which may spread the previous one
			name := fmt.Sprintf("P%d", len(g.frags))
			body := "{ id " + g.alias() + "languages(" + g.intArg("first", 1, 5, 50) + ") { language }"
			if len(g.frags) > 0 && g.r.IntN(2) == 0 {
				body += fmt.Sprintf(" ...P%d", len(g.frags)-1)
			}
			g.frags = append(g.frags, "\nfragment "+name+" on Product "+body+" }")
			b.WriteString(" ..." + name + " ..." + name)
		case 5:
			b.WriteString(" ... on Product { " + g.alias() + "stats { total } }")
		}
	}
	return b.String() + " }"
}

// mutation changes comments of the data set (a comment already deleted
// gives NOT_FOUND).
func (g *opGen) mutation() string {
	var b strings.Builder
	id := func() string {
		return g.pick("big-c0", "p3-c00", "p17-c00", "poly-c00") + fmt.Sprint(g.r.IntN(5))
	}
	for range 1 + g.r.IntN(2) {
		switch g.r.IntN(3) {
		case 0:
			fmt.Fprintf(&b, ` %screateComment(input: {productId: %q, language: %q, rating: %d, author: "a", title: "t", body: "b"}) { comment { id rating product %s } }`,
				g.alias(), g.productID(), g.pick("en", "de", "fr"), 1+g.r.IntN(5), g.product(1))
		case 1:
			fmt.Fprintf(&b, ` %supdateComment(input: {id: %q, rating: %d, language: %q}) { comment { id product %s } }`,
				g.alias(), id(), 1+g.r.IntN(5), g.pick("en", "de", "fr"), g.product(1))
		case 2:
			fmt.Fprintf(&b, ` %sdeleteComment(input: {id: %q}) { deletedCommentId }`, g.alias(), id())
		}
	}
	return g.document("mutation", b.String())
}

func (g *opGen) pageArgs() string {
	var args []string
	if g.r.IntN(2) == 0 {
		args = append(args, g.intArg("first", 0, 1, 5, 20, 100))
	} else if g.r.IntN(2) == 0 {
		args = append(args, g.intArg("last", 1, 7, 100))
	}
	if l := g.pick("", "en", "de", "fr", "en-x-t0003"); l != "" {
		args = append(args, fmt.Sprintf("language: %q", l))
	}
	if rs := g.pick("", "[5]", "[1, 5]", "[1, 2, 3, 4, 5]", "[]", "[2, 4]"); rs != "" {
		args = append(args, "ratings: "+rs)
	}
	// Every order reads what NEWEST may: its complexity does not depend
	// on the order.
	if o := g.pick("", "NEWEST", "OLDEST", "HIGHEST_RATING", "LOWEST_RATING", "MOST_HELPFUL"); o != "" {
		args = append(args, "orderBy: "+o)
	}
	if len(args) == 0 {
		return ""
	}
	return "(" + strings.Join(args, ", ") + ")"
}

func (g *opGen) connection(depth int) string {
	parts := []string{g.pick("totalCount", "pageInfo { hasNextPage endCursor }", "__typename")}
	switch g.r.IntN(3) {
	case 0:
		parts = append(parts, "nodes "+g.comment(depth))
	case 1:
		parts = append(parts, "edges { cursor node "+g.comment(depth)+" }")
	}
	return "{ " + strings.Join(parts, " ") + " }"
}

func (g *opGen) comment(depth int) string {
	s := "{ id rating title"
	if depth < 2 && g.r.IntN(4) == 0 {
		s += " product " + g.product(depth+1)
	}
	return s + " }"
}

// TestLanguagesFirst: languages(first) returns the first languages in tag
// order and reads no more stats items than it returns; 100 is the most.
func TestLanguagesFirst(t *testing.T) {
	h := resolvers.NewHandler(resolvers.Config{Store: store.New(MustOpenLoaded(t, costData(t))), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	srv := httptest.NewServer(h)
	defer srv.Close()
	c := gqltest.New(srv.URL)
	for _, n := range []int{0, 1, 5, 20, 100} {
		q := fmt.Sprintf(`{ product(id: %q) { languages(first: %d) { language } } }`, polyID, n)
		var r struct {
			Data struct {
				Product struct{ Languages []struct{ Language string } }
			}
			Extensions struct{ Cost struct{ ItemsRead int } }
		}
		if err := json.Unmarshal(c.MustQuery(t, q, nil, nil).Body, &r); err != nil {
			t.Fatal(err)
		}
		got := r.Data.Product.Languages
		if len(got) != n || r.Extensions.Cost.ItemsRead > n {
			t.Errorf("first %d: %d languages, %d items read", n, len(got), r.Extensions.Cost.ItemsRead)
		}
		for i, l := range got {
			if want := fmt.Sprintf("en-x-t%04d", i); l.Language != want {
				t.Errorf("first %d: languages[%d] = %s, want %s", n, i, l.Language, want)
			}
		}
	}
	r := c.MustDo(t, `{ product(id: "poly") { languages(first: 101) { language } } }`, nil)
	if !strings.Contains(string(r.RawErrors), "BAD_USER_INPUT") {
		t.Errorf("first 101: errors %s, want BAD_USER_INPUT", r.RawErrors)
	}
}
