package store_test

import (
	"encoding/base64"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acme/comments-gateway/store"
)

func stats(counts ...int64) *store.Stats {
	st := &store.Stats{ProductID: "p1"}
	for i, c := range counts {
		st.Counts[i+1] = c
		st.Total += c
	}
	return st
}

func TestPlanQuery(t *testing.T) {
	skewed := stats(10, 0, 30, 200, 760) // 1000 comments, no 2-star
	tests := []struct {
		name     string
		lang     string
		ratings  []int
		st       *store.Stats
		strategy store.Strategy
		keys     []string
		skipped  []int
		keep     []int
		total    int64
	}{
		{"all ratings, all languages", "", nil, skewed, store.StrategySingle, []string{"all:PRODUCT#p1"}, nil, nil, 1000},
		{"all ratings, one language", "de", nil, skewed, store.StrategySingle, []string{"byLang:PRODUCT#p1/de"}, nil, nil, 1000},
		{"five ratings listed means all", "", []int{1, 2, 3, 4, 5}, skewed, store.StrategySingle, []string{"all:PRODUCT#p1"}, nil, nil, 1000},
		{"empty list reads nothing", "", []int{}, skewed, store.StrategyEmpty, nil, []int{}, nil, 0},
		{"no comments reads nothing", "", nil, stats(0, 0, 0, 0, 0), store.StrategyEmpty, nil, nil, nil, 0},
		{"one rating", "", []int{5}, skewed, store.StrategySingle, []string{"byRating:PRODUCT#p1/5"}, nil, nil, 760},
		{"one rating with language", "pt-BR", []int{3}, skewed, store.StrategySingle, []string{"byLangAndRating:PRODUCT#p1/pt-BR/3"}, nil, nil, 30},
		{"zero-count rating only", "", []int{2}, skewed, store.StrategyEmpty, nil, []int{2}, nil, 0},
		{"zero-count rating skipped, one left", "", []int{2, 3}, skewed, store.StrategySingle, []string{"byRating:PRODUCT#p1/3"}, []int{2}, nil, 30},
		{"merge of rare ratings", "", []int{1, 3}, skewed, store.StrategyMerge, []string{"byRating:PRODUCT#p1/1", "byRating:PRODUCT#p1/3"}, nil, nil, 40},
		{"merge with language", "en", []int{1, 3, 5}, skewed, store.StrategyMerge, []string{"byLangAndRating:PRODUCT#p1/en/1", "byLangAndRating:PRODUCT#p1/en/3", "byLangAndRating:PRODUCT#p1/en/5"}, nil, nil, 800},
		{"broad read drops a rare rating", "", []int{3, 4, 5}, skewed, store.StrategyBroad, []string{"all:PRODUCT#p1"}, nil, []int{3, 4, 5}, 990},
		{"selection covers every non-zero rating", "", []int{1, 3, 4, 5}, skewed, store.StrategySingle, []string{"all:PRODUCT#p1"}, nil, []int{1, 3, 4, 5}, 1000},
		{"zero-count skipped and the rest covers all", "", []int{1, 2, 3, 4, 5}[:4], stats(5, 0, 5, 5, 0), store.StrategySingle, []string{"all:PRODUCT#p1"}, []int{2}, []int{1, 3, 4}, 15},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := store.PlanQuery("p1", store.Filter{Language: tc.lang, Ratings: tc.ratings}, tc.st, 21)
			if p.Strategy != tc.strategy {
				t.Errorf("strategy = %s, want %s", p.Strategy, tc.strategy)
			}
			var keys []string
			for _, part := range p.Partitions {
				keys = append(keys, part.Index+":"+part.Key)
				if part.Limit < 1 {
					t.Errorf("partition %s has limit %d", part.Key, part.Limit)
				}
			}
			if !slices.Equal(keys, tc.keys) {
				t.Errorf("partitions = %v, want %v", keys, tc.keys)
			}
			if !slices.Equal(p.Skipped, tc.skipped) {
				t.Errorf("skipped = %v, want %v", p.Skipped, tc.skipped)
			}
			if !slices.Equal(p.Keep, tc.keep) {
				t.Errorf("keep = %v, want %v", p.Keep, tc.keep)
			}
			if p.Total != tc.total {
				t.Errorf("total = %d, want %d", p.Total, tc.total)
			}
		})
	}
}

// TestPlanQueryMergeLimits checks that a merge's first reads add up to about
// one page (each its share, give or take the sizing's slack and rounding),
// and never exceed the page.
func TestPlanQueryMergeLimits(t *testing.T) {
	st := stats(100, 100, 200, 0, 600)
	p := store.PlanQuery("p1", store.Filter{Ratings: []int{1, 2, 3}}, st, 21)
	if p.Strategy != store.StrategyMerge {
		t.Fatalf("strategy = %s", p.Strategy)
	}
	sum := 0
	for _, part := range p.Partitions {
		if part.Limit > 21 {
			t.Errorf("limit %d above the page", part.Limit)
		}
		sum += part.Limit
	}
	if sum < 21-len(p.Partitions) || sum > 21+len(p.Partitions) {
		t.Errorf("limits sum to %d for a page of 21", sum)
	}
	// A partition smaller than its share is read whole and no more.
	p = store.PlanQuery("p1", store.Filter{Ratings: []int{1, 5}}, stats(2, 0, 0, 0, 600), 21)
	for _, part := range p.Partitions {
		if part.Rating == 1 && part.Limit > 3 {
			t.Errorf("rating 1 (2 comments) read with limit %d", part.Limit)
		}
	}
}

func TestNormalizeRatings(t *testing.T) {
	got, err := store.NormalizeRatings([]int{5, 1, 5, 3, 1})
	if err != nil || !slices.Equal(got, []int{1, 3, 5}) {
		t.Fatalf("got %v, %v", got, err)
	}
	if got, _ := store.NormalizeRatings(nil); got != nil {
		t.Fatalf("nil became %v", got)
	}
	if got, _ := store.NormalizeRatings([]int{}); got == nil || len(got) != 0 {
		t.Fatalf("[] became %v", got)
	}
	for _, bad := range [][]int{{0}, {6}, {-1}, {3, 9}} {
		if _, err := store.NormalizeRatings(bad); store.ErrorCode(err) != store.EINVALID {
			t.Errorf("%v: err = %v", bad, err)
		}
	}
}

// ExamplePlanQuery shows the planner's choice for a product with 1,000
// comments, none of them 2-star, asked for 1- and 2-star comments in German
// and then for 1- and 3-star ones.
func ExamplePlanQuery() {
	st := &store.Stats{ProductID: "shoe-42", Total: 1000, Counts: [6]int64{0, 10, 0, 30, 200, 760}}

	p := store.PlanQuery("shoe-42", store.Filter{Language: "de", Ratings: []int{1, 2}}, st, 21)
	fmt.Println(p.Strategy, p.Partitions[0].Index, p.Partitions[0].Key, "skipped", p.Skipped)

	p = store.PlanQuery("shoe-42", store.Filter{Ratings: []int{1, 3}}, st, 21)
	fmt.Println(p.Strategy, "total", p.Total)
	for _, part := range p.Partitions {
		fmt.Println(" ", part.Index, part.Key, "limit", part.Limit)
	}
	// Output:
	// single byLangAndRating PRODUCT#shoe-42/de/1 skipped [2]
	// merge total 40
	//   byRating PRODUCT#shoe-42/1 limit 5
	//   byRating PRODUCT#shoe-42/3 limit 16
}

func TestPositionCursor(t *testing.T) {
	sk := "2026-01-02T03:04:05.000000006Z#01HZZZZZZZZZZZZZZZZZZZZZZZ"
	pos := &store.Position{Filter: store.FilterHash("p", store.Filter{Ratings: []int{1, 3}}), Version: 9, Remaining: []int64{4, 0}}
	c := store.EncodePositionCursor(sk, pos)
	got, err := store.ParseCursor(c)
	if err != nil || got.SortKey != sk || !reflect.DeepEqual(got.Pos, pos) {
		t.Fatalf("round trip: %+v, %v", got, err)
	}
	if s, err := store.DecodeCursor(c); err != nil || s != sk {
		t.Fatalf("DecodeCursor of a v2 cursor: %q, %v", s, err)
	}
	if got, err := store.ParseCursor(store.EncodeCursor(sk)); err != nil || got.Pos != nil {
		t.Fatalf("v1 cursor: %+v, %v", got, err)
	}
	// the longest cursor the server can issue: the longest id, the largest
	// version and counts, five of them
	long := store.SortKey(time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), strings.Repeat("z", store.MaxIDLen))
	largest := &store.Position{Filter: 1<<32 - 1, Version: 1 << 62, Remaining: []int64{1 << 62, 1 << 62, 1 << 62, 1 << 62, 1 << 62}}
	if got, err := store.ParseCursor(store.EncodePositionCursor(long, largest)); err != nil || !reflect.DeepEqual(got.Pos, largest) {
		t.Fatalf("longest cursor (%d characters): %+v, %v", len(store.EncodePositionCursor(long, largest)), got, err)
	}
	raw, _ := base64.RawURLEncoding.DecodeString(c)
	enc := base64.RawURLEncoding.EncodeToString
	for name, bad := range map[string]string{
		"trailing byte": enc(append(slices.Clone(raw), 0)),
		"truncated":     enc(raw[:len(raw)-1]),
		"no counts":     store.EncodePositionCursor(sk, &store.Position{Remaining: []int64{}}),
		"six counts":    store.EncodePositionCursor(sk, &store.Position{Remaining: make([]int64, 6)}),
		"bad sort key":  store.EncodePositionCursor("2026-01-02T03:04:05Z#x", pos),
		"length past":   enc(append([]byte{2, 200}, raw[2:]...)),
	} {
		if _, err := store.ParseCursor(bad); store.ErrorCode(err) != store.EINVALID {
			t.Errorf("%s: ParseCursor(%q) err = %v, want EINVALID", name, bad, err)
		}
	}
	// the filter hash tells products, languages and rating sets apart
	seen := map[uint32]string{}
	for _, pid := range []string{"p", "q"} {
		for _, lang := range []string{"", "en", "de"} {
			for _, rs := range [][]int{nil, {1}, {1, 3}, {3}, {1, 2, 3, 4}} {
				k := fmt.Sprint(pid, lang, rs)
				h := store.FilterHash(pid, store.Filter{Language: lang, Ratings: rs})
				if other, dup := seen[h]; dup {
					t.Errorf("FilterHash(%s) = FilterHash(%s)", k, other)
				}
				seen[h] = k
			}
		}
	}
	if store.FilterHash("p", store.Filter{}) != store.FilterHash("p", store.Filter{Ratings: []int{1, 2, 3, 4, 5}}) {
		t.Error("all five ratings hash unlike no ratings")
	}
}

func TestCursorRoundTrip(t *testing.T) {
	sk := "2026-01-02T03:04:05.000000006Z#01HZZZZZZZZZZZZZZZZZZZZZZZ"
	got, err := store.DecodeCursor(store.EncodeCursor(sk))
	if err != nil || got != sk {
		t.Fatalf("round trip: %q, %v", got, err)
	}
	for _, bad := range []string{"", "!!!", "AQ", "Ag" + store.EncodeCursor(sk)[2:], "aGVsbG8", store.EncodeCursor("2026-01-02T03:04:05Z#x"), store.EncodeCursor(sk + "/")} {
		if _, err := store.DecodeCursor(bad); store.ErrorCode(err) != store.EINVALID {
			t.Errorf("DecodeCursor(%q) err = %v, want EINVALID", bad, err)
		}
	}
}
