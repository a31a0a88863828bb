package resolvers_test

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/acme/comments-gateway/internal/gqltest"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/table"
)

// Apollo Federation v2: the gateway is a subgraph whose Product is an entity
// keyed by id (schema.graphqls, gqlgen.yml federation).

func TestFederationServiceSDL(t *testing.T) {
	e := MustEnv(t)
	var got struct {
		Service struct {
			SDL string `json:"sdl"`
		} `json:"_service"`
	}
	e.MustQuery(t, `{ _service { sdl } }`, &got)
	sdl := got.Service.SDL
	if !regexp.MustCompile(`type Product (implements [A-Za-z_ &]+ )?@key\(fields: "id"\)\s*\{`).MatchString(sdl) {
		t.Errorf("_service.sdl has no `type Product @key(fields: \"id\")`:\n%s", sdl)
	}
	if !regexp.MustCompile(`extend schema\s+@link\(url: "https://specs\.apollo\.dev/federation/v2\.\d+", import: \[[^\]]*"@key"[^\]]*\]\)`).MatchString(sdl) {
		t.Errorf("_service.sdl has no federation v2 @link importing @key:\n%s", sdl)
	}
	// The SDL is the subgraph's own schema, not gqlgen's federation
	// built-ins (the router adds those).
	for _, s := range []string{"type Query", "type Mutation", "scalar Time"} {
		if !strings.Contains(sdl, s) {
			t.Errorf("_service.sdl lacks %q", s)
		}
	}
	for _, s := range []string{"_entities", "union _Entity", "scalar _Any"} {
		if strings.Contains(sdl, s) {
			t.Errorf("_service.sdl contains the built-in %q", s)
		}
	}
}

// federationIDs are the 20 products of the _entities tests, in an order that
// is neither sorted nor the load order; "empty" has no comments.
var federationIDs = func() []string {
	var ids []string
	for i := 17; i >= 0; i-- {
		ids = append(ids, fmt.Sprintf("p%d", i))
		if i == 9 {
			ids = append(ids, bigID)
		}
	}
	return append(ids, "empty")
}()

func representations(ids ...string) []map[string]any {
	reps := make([]map[string]any, len(ids))
	for i, id := range ids {
		reps[i] = map[string]any{"__typename": "Product", "id": id}
	}
	return reps
}

const entitiesQuery = `query ($reps: [_Any!]!) {
  _entities(representations: $reps) {
    __typename
    ... on Product { id stats { total } comments(first: 2) { totalCount nodes { id } } }
  }
}`

type fedProduct struct {
	Typename string `json:"__typename,omitempty"`
	ID       string `json:"id"`
	Stats    struct {
		Total int `json:"total"`
	} `json:"stats"`
	Comments struct {
		TotalCount int `json:"totalCount"`
		Nodes      []struct {
			ID string `json:"id"`
		} `json:"nodes"`
	} `json:"comments"`
}

func TestFederationEntitiesMatchProductAndBatchStats(t *testing.T) {
	e := MustEnv(t)
	if len(federationIDs) != 20 {
		t.Fatalf("%d ids, want 20", len(federationIDs))
	}

	e.spy.Reset()
	var got struct {
		Entities []*fedProduct `json:"_entities"`
	}
	// Default limits (depth, aliases, complexity) admit the query.
	e.MustQuery(t, entitiesQuery, &got, gqltest.Var("reps", representations(federationIDs...)))

	// All 20 entities' stats read once each, together: a Query of each's
	// counter shards 1 to 7 and their shards 0 in ONE BatchGet; comments'
	// totalCount reuses the loader's (product, all languages) entry.
	keys := e.spy.MustOneBatchGet(t)
	var want []table.Key
	for _, id := range federationIDs {
		want = append(want, store.StatsKey(id, ""))
	}
	if n := len(e.spy.StatsQueries()); n != len(federationIDs) {
		t.Errorf("stats Queries = %d, want %d (one per entity)", n, len(federationIDs))
	}
	sortKeys := func(ks []table.Key) []string {
		s := make([]string, len(ks))
		for i, k := range ks {
			s[i] = fmt.Sprint(k)
		}
		slices.Sort(s)
		return s
	}
	if g, w := sortKeys(keys), sortKeys(want); !slices.Equal(g, w) {
		t.Errorf("BatchGet keys = %v, want %v", g, w)
	}
	if n := e.spy.Calls("Get"); n != 0 {
		t.Errorf("Get calls = %d, want 0", n)
	}

	// In the order of the representations, each equal to product(id:).
	if len(got.Entities) != len(federationIDs) {
		t.Fatalf("%d entities, want %d", len(got.Entities), len(federationIDs))
	}
	var direct strings.Builder
	direct.WriteString("{\n")
	for i, id := range federationIDs {
		fmt.Fprintf(&direct, "  p%d: product(id: %q) { id stats { total } comments(first: 2) { totalCount nodes { id } } }\n", i, id)
	}
	direct.WriteString("}")
	var byID map[string]*fedProduct
	e.MustQuery(t, direct.String(), &byID)
	for i, id := range federationIDs {
		ent := got.Entities[i]
		if ent == nil {
			t.Errorf("_entities[%d] (%s) = null", i, id)
			continue
		}
		if ent.Typename != "Product" || ent.ID != id {
			t.Errorf("_entities[%d] = %s %q, want Product %q", i, ent.Typename, ent.ID, id)
		}
		ent.Typename = ""
		g, _ := json.Marshal(ent)
		w, _ := json.Marshal(byID[fmt.Sprintf("p%d", i)])
		if string(g) != string(w) {
			t.Errorf("_entities[%d] = %s, product(id: %q) = %s", i, g, id, w)
		}
		if wt := countOf(e.data, id, ""); ent.Stats.Total != wt || ent.Comments.TotalCount != wt {
			t.Errorf("%s: stats.total %d, comments.totalCount %d, want %d", id, ent.Stats.Total, ent.Comments.TotalCount, wt)
		}
	}
	if got.Entities[len(got.Entities)-1].Stats.Total != 0 {
		t.Errorf("empty: stats.total = %d, want 0", got.Entities[len(got.Entities)-1].Stats.Total)
	}
}

func TestFederationBadIDFailsOnlyItsEntity(t *testing.T) {
	e := MustEnv(t)
	for _, bad := range []string{"", "no spaces", strings.Repeat("x", store.MaxIDLen+1), "PRODUCT#p1"} {
		t.Run(fmt.Sprintf("%q", bad), func(t *testing.T) {
			e.spy.Reset()
			r := e.MustDo(t, entitiesQuery, gqltest.Var("reps", representations("p1", bad, "p2")))
			ge := MustOneError(t, r, "BAD_USER_INPUT")
			if ge.PathString() != "_entities/1" {
				t.Errorf("error path = %q, want _entities/1 (error %s)", ge.PathString(), r.RawErrors)
			}
			if !strings.Contains(ge.Message, "product id") {
				t.Errorf("error message %q does not name the product id", ge.Message)
			}
			MustNotLeak(t, ge.Message)
			var got struct {
				Entities []*fedProduct `json:"_entities"`
			}
			if err := json.Unmarshal(r.Data, &got); err != nil {
				t.Fatalf("decoding %s: %v", r.Data, err)
			}
			if len(got.Entities) != 3 || got.Entities[1] != nil {
				t.Fatalf("_entities = %s, want [p1, null, p2]", r.Data)
			}
			for i, id := range map[int]string{0: "p1", 2: "p2"} {
				ent := got.Entities[i]
				if ent == nil || ent.ID != id || ent.Stats.Total != countOf(e.data, id, "") {
					t.Errorf("_entities[%d] = %+v, want %s with stats", i, ent, id)
				}
			}
			// The bad id is never read: a stats Query each and one
			// BatchGet (their shards 0), for p1 and p2 only.
			if n := e.spy.Calls("BatchGet"); n != 1 {
				t.Errorf("BatchGet calls = %d, want 1", n)
			} else if keys := e.spy.BatchKeys()[0]; len(keys) != 2 {
				t.Errorf("BatchGet keys = %v, want p1's and p2's stats", keys)
			}
			if qs := e.spy.StatsQueries(); len(qs) != 2 {
				t.Errorf("stats Queries = %v, want p1's and p2's", qs)
			}
		})
	}
}

// A representation of a type this subgraph does not own is an error, not a
// panic, and does not spoil the Products of the same request.
func TestFederationUnknownTypename(t *testing.T) {
	e := MustEnv(t)
	reps := representations("p1")
	reps = append(reps, map[string]any{"__typename": "Catalog", "id": "x"})
	r := e.MustDo(t, entitiesQuery, gqltest.Var("reps", reps))
	if len(r.Errors) != 1 {
		t.Fatalf("errors = %s, want one", r.RawErrors)
	}
	var got struct {
		Entities []*fedProduct `json:"_entities"`
	}
	if err := json.Unmarshal(r.Data, &got); err != nil {
		t.Fatalf("decoding %s: %v", r.Data, err)
	}
	if len(got.Entities) != 2 || got.Entities[0] == nil || got.Entities[0].ID != "p1" || got.Entities[1] != nil {
		t.Fatalf("_entities = %s, want [p1, null]", r.Data)
	}
}
