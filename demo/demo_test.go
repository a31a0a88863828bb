package demo

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/acme/comments-gateway/store"
)

func TestDeterministic(t *testing.T) {
	a := Generate(NewRand(7), DefaultConfig())
	b := Generate(NewRand(7), DefaultConfig())
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same seed gave different comments")
	}
	c := Generate(NewRand(8), DefaultConfig())
	if reflect.DeepEqual(a, c) {
		t.Fatal("different seeds gave the same comments")
	}
	if !reflect.DeepEqual(Default(), Generate(NewRand(DefaultSeed), DefaultConfig())) {
		t.Fatal("Default differs from Generate(NewRand(DefaultSeed), DefaultConfig())")
	}
}

func TestValidUniqueOrdered(t *testing.T) {
	cfg := DefaultConfig()
	for _, seed := range []uint64{DefaultSeed, 2, 3} {
		cs := Generate(NewRand(seed), cfg)
		if len(cs) != cfg.Comments {
			t.Fatalf("seed %d: got %d comments, want %d", seed, len(cs), cfg.Comments)
		}
		ids := make(map[string]bool, len(cs))
		for i, c := range cs {
			before := *c
			if err := c.Validate(); err != nil {
				t.Fatalf("seed %d: comment %d invalid: %v\n%+v", seed, i, err, before)
			}
			if !reflect.DeepEqual(before, *c) {
				t.Fatalf("seed %d: Validate changed comment %d (not canonical):\n%+v\n%+v", seed, i, before, *c)
			}
			if ids[c.ID] {
				t.Fatalf("seed %d: duplicate id %s", seed, c.ID)
			}
			ids[c.ID] = true
			u, err := ulid.ParseStrict(c.ID)
			if err != nil {
				t.Fatalf("seed %d: id %q is not a ULID: %v", seed, c.ID, err)
			}
			if !u.Timestamp().Equal(c.CreatedAt) {
				t.Fatalf("seed %d: id %s has time %v, createdAt is %v", seed, c.ID, u.Timestamp(), c.CreatedAt)
			}
			if c.CreatedAt.Before(cfg.Start) || !c.CreatedAt.Before(cfg.End) {
				t.Fatalf("seed %d: createdAt %v outside [%v, %v)", seed, c.CreatedAt, cfg.Start, cfg.End)
			}
			if i > 0 && cs[i-1].SortKey() >= c.SortKey() {
				t.Fatalf("seed %d: comments %d and %d out of order", seed, i-1, i)
			}
			if n := strings.Count(c.Body, ".") + strings.Count(c.Body, "。"); n < 1 || n > 6 {
				t.Fatalf("seed %d: body has %d sentences: %q", seed, n, c.Body)
			}
		}
	}
}

// dist summarises a data set.
type dist struct {
	ratings     [6]int
	languages   map[string]int
	byProduct   map[string]int
	prodRatings map[string]*[6]int
	prodLangs   map[string]map[string]int
}

func summarise(cs []*store.Comment) dist {
	d := dist{languages: map[string]int{}, byProduct: map[string]int{}, prodRatings: map[string]*[6]int{}, prodLangs: map[string]map[string]int{}}
	for _, c := range cs {
		d.ratings[c.Rating]++
		d.languages[c.Language]++
		d.byProduct[c.ProductID]++
		if d.prodRatings[c.ProductID] == nil {
			d.prodRatings[c.ProductID] = new([6]int)
			d.prodLangs[c.ProductID] = map[string]int{}
		}
		d.prodRatings[c.ProductID][c.Rating]++
		d.prodLangs[c.ProductID][c.Language]++
	}
	return d
}

func TestSkew(t *testing.T) {
	for _, seed := range []uint64{DefaultSeed, 2, 3, 4, 5} {
		cs := Generate(NewRand(seed), DefaultConfig())
		d := summarise(cs)
		n := float64(len(cs))

		for r := 1; r <= 4; r++ {
			if d.ratings[r] >= d.ratings[5] {
				t.Errorf("seed %d: rating %d (%d) not less common than 5 (%d)", seed, r, d.ratings[r], d.ratings[5])
			}
		}
		if s := float64(d.ratings[5]) / n; s < 0.35 || s > 0.6 {
			t.Errorf("seed %d: 5-star share %.2f, want about 0.45", seed, s)
		}
		if s := float64(d.languages["en"]) / n; s < 0.4 || s > 0.7 {
			t.Errorf("seed %d: en share %.2f, want about 0.55", seed, s)
		}
		if len(d.languages) < 6 {
			t.Errorf("seed %d: only %d languages: %v", seed, len(d.languages), d.languages)
		}

		lacking, single, thousands, handful := 0, 0, 0, 0
		for p, rc := range d.prodRatings {
			for r := 1; r <= 5; r++ {
				if rc[r] == 0 {
					lacking++
					break
				}
			}
			if len(d.prodLangs[p]) == 1 {
				single++
			}
			switch c := d.byProduct[p]; {
			case c >= 1000:
				thousands++
			case c <= 30:
				handful++
			}
		}
		if lacking == 0 {
			t.Errorf("seed %d: every product has every rating", seed)
		}
		if single == 0 {
			t.Errorf("seed %d: no single-language product", seed)
		}
		if thousands < 2 || handful < 5 {
			t.Errorf("seed %d: popularity not skewed: %d products with ≥1000 comments, %d with ≤30", seed, thousands, handful)
		}
	}
}

func TestTies(t *testing.T) {
	cs := Default()
	type key struct {
		pid string
		at  time.Time
	}
	group := map[key]int{}
	for _, c := range cs {
		group[key{c.ProductID, c.CreatedAt}]++
	}
	ties, big := 0, 0
	for _, n := range group {
		if n >= 2 {
			ties++
		}
		if n >= 3 {
			big++
		}
	}
	if ties < 10 || big < 1 {
		t.Fatalf("want exact createdAt ties within products: %d groups of ≥2, %d of ≥3", ties, big)
	}
}

func TestSentimentAndLanguageMatch(t *testing.T) {
	byTag := map[string]*langText{}
	for _, lt := range languages {
		byTag[lt.tag] = lt
	}
	for _, c := range Default() {
		lt := byTag[c.Language]
		if lt == nil {
			t.Fatalf("unknown language %q", c.Language)
		}
		if !contains(lt.titles[c.Rating], c.Title) {
			t.Fatalf("title %q does not belong to rating %d in %s", c.Title, c.Rating, c.Language)
		}
		var first []string
		switch primaryPool[c.Rating] {
		case poolPos:
			first = lt.pos
		case poolMid:
			first = lt.mid
		case poolNeg:
			first = lt.neg
		}
		ok := false
		for _, s := range first {
			if strings.HasPrefix(c.Body, s) {
				ok = true
			}
		}
		if !ok {
			t.Fatalf("body of a %d-star %s comment opens off-sentiment: %q", c.Rating, c.Language, c.Body)
		}
		if c.Rating >= 4 && containsAny(c.Body, lt.neg) || c.Rating <= 2 && containsAny(c.Body, lt.pos) {
			t.Fatalf("body contradicts %d-star rating: %q", c.Rating, c.Body)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func containsAny(s string, list []string) bool {
	for _, x := range list {
		if strings.Contains(s, x) {
			return true
		}
	}
	return false
}

func TestPhraseBooks(t *testing.T) {
	var sum float64
	for _, lt := range languages {
		sum += lt.weight
		if tag, err := store.CanonicalLanguage(lt.tag); err != nil || tag != lt.tag {
			t.Errorf("%s: not a canonical tag (%q, %v)", lt.tag, tag, err)
		}
		for r := 1; r <= 5; r++ {
			if len(lt.titles[r]) == 0 {
				t.Errorf("%s: no titles for rating %d", lt.tag, r)
			}
		}
		for _, pool := range [][]string{lt.pos, lt.mid, lt.neg, lt.neutral} {
			if len(pool) < 4 || len(pool) > 64 {
				t.Errorf("%s: pool of %d sentences", lt.tag, len(pool))
			}
		}
	}
	if sum != 100 {
		t.Errorf("language weights sum to %v, want 100", sum)
	}
	ids := productIDs(3 * len(productNames))
	seen := map[string]bool{}
	for _, id := range ids {
		if err := store.ValidateID("productId", id); err != nil || seen[id] {
			t.Fatalf("product id %q: valid %v, duplicate %v", id, err, seen[id])
		}
		seen[id] = true
	}
}

func TestEdgeConfigs(t *testing.T) {
	if cs := Generate(NewRand(1), Config{Products: 0, Comments: 10}); cs != nil {
		t.Errorf("0 products: got %d comments", len(cs))
	}
	if cs := Generate(NewRand(1), Config{Products: 5, Comments: 0}); cs != nil {
		t.Errorf("0 comments: got %d comments", len(cs))
	}
	at := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	cs := Generate(NewRand(1), Config{Products: 3, Comments: 50, Start: at, End: at})
	if len(cs) != 50 {
		t.Fatalf("got %d comments", len(cs))
	}
	for _, c := range cs {
		if !c.CreatedAt.Equal(at) {
			t.Fatalf("empty range: createdAt %v, want %v", c.CreatedAt, at)
		}
		if err := c.Validate(); err != nil {
			t.Fatal(err)
		}
	}
	// Many products, few comments: the tail gets none and is simply absent.
	cs = Generate(NewRand(1), Config{Products: 500, Comments: 300, Start: at.AddDate(-1, 0, 0), End: at})
	if len(cs) != 300 {
		t.Fatalf("got %d comments", len(cs))
	}
}

func BenchmarkGenerateDefault(b *testing.B) {
	for b.Loop() {
		Generate(NewRand(DefaultSeed), DefaultConfig())
	}
}

// TestShopTouches: verified purchases and the shop's replies are drawn per
// rating as replies.go says, and a reply is in the comment's language,
// after the comment and before the data set's end.
func TestShopTouches(t *testing.T) {
	cfg := DefaultConfig()
	cs := Generate(NewRand(7), cfg)
	var n, verified, replies [6]int
	for _, c := range cs {
		n[c.Rating]++
		if c.VerifiedPurchase {
			verified[c.Rating]++
		}
		if c.Reply == nil {
			continue
		}
		replies[c.Rating]++
		texts := shopReplies[c.Language]
		pool := texts.thanks
		if c.Rating <= 3 {
			pool = texts.sorry
		}
		if !slices.Contains(pool, c.Reply.Body) {
			t.Fatalf("%s (%s, %d★): reply %q is not one of its language's", c.ID, c.Language, c.Rating, c.Reply.Body)
		}
		if c.Reply.CreatedAt.Before(c.CreatedAt) || !c.Reply.CreatedAt.Before(cfg.End) || !c.Reply.UpdatedAt.Equal(c.Reply.CreatedAt) {
			t.Fatalf("%s: reply at %v/%v, comment at %v, end %v", c.ID, c.Reply.CreatedAt, c.Reply.UpdatedAt, c.CreatedAt, cfg.End)
		}
	}
	for r := 1; r <= 5; r++ {
		if got := float64(verified[r]) / float64(n[r]); math.Abs(got-verifiedShare[r]) > 0.05 {
			t.Errorf("%d★: %.3f verified, want about %.2f", r, got, verifiedShare[r])
		}
		if got := float64(replies[r]) / float64(n[r]); math.Abs(got-replyShare[r]) > 0.04 {
			t.Errorf("%d★: %.3f replied to, want about %.2f", r, got, replyShare[r])
		}
	}
	for _, lt := range languages {
		if _, ok := shopReplies[lt.tag]; !ok {
			t.Errorf("%s: no shop replies", lt.tag)
		}
	}
}
