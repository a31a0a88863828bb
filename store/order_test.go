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

func TestParseOrder(t *testing.T) {
	for _, o := range []store.Order{store.OrderNewest, store.OrderOldest, store.OrderHighestRating, store.OrderLowestRating, store.OrderMostHelpful} {
		if got, err := store.ParseOrder(o.String()); err != nil || got != o {
			t.Errorf("ParseOrder(%s) = %v, %v", o, got, err)
		}
	}
	if got, err := store.ParseOrder(""); err != nil || got != store.OrderNewest {
		t.Errorf(`ParseOrder("") = %v, %v; want NEWEST`, got, err)
	}
	if _, err := store.ParseOrder("newest"); store.ErrorCode(err) != store.EINVALID {
		t.Errorf("ParseOrder(newest): %v, want EINVALID", err)
	}
}

func TestOrderCursor(t *testing.T) {
	sk := store.SortKey(time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), "01HZZZZZZZZZZZZZZZZZZZZZZZ")
	pos := &store.Position{Filter: 9, Version: 4, Remaining: []int64{3, 0}}
	for _, c := range []store.Cursor{
		{Order: store.OrderOldest, SortKey: sk},
		{Order: store.OrderOldest, SortKey: sk, Pos: pos},
		{Order: store.OrderHighestRating, SortKey: sk, Rating: 5},
		{Order: store.OrderLowestRating, SortKey: sk, Rating: 1},
		{Order: store.OrderMostHelpful, SortKey: sk},
		{Order: store.OrderMostHelpful, SortKey: sk, Helpful: 9_999_999_999, Pos: pos},
	} {
		got, err := store.ParseCursor(c.Encode())
		if err != nil || !reflect.DeepEqual(got, c) {
			t.Errorf("%+v: round trip %+v, %v", c, got, err)
		}
		if s, err := store.DecodeCursor(c.Encode()); err != nil || s != sk {
			t.Errorf("%+v: DecodeCursor %q, %v", c, s, err)
		}
	}
	// v1 and v2 cursors are NEWEST's, as they were.
	if got, err := store.ParseCursor(store.EncodeCursor(sk)); err != nil || got.Order != store.OrderNewest {
		t.Errorf("v1: %+v, %v", got, err)
	}
	if got, err := store.ParseCursor(store.EncodePositionCursor(sk, pos)); err != nil || got.Order != store.OrderNewest {
		t.Errorf("v2: %+v, %v", got, err)
	}
	if c := (store.Cursor{SortKey: sk, Pos: pos}).Encode(); c != store.EncodePositionCursor(sk, pos) {
		t.Errorf("a NEWEST cursor encodes as %q, not as v2", c)
	}
	// The longest cursor that can be issued stays within ParseCursor's
	// limit: the longest id, the largest helpful count, version and counts.
	long := store.SortKey(time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), strings.Repeat("z", store.MaxIDLen))
	big := &store.Position{Filter: 1<<32 - 1, Version: 1 << 62, Remaining: []int64{1 << 62, 1 << 62, 1 << 62, 1 << 62, 1 << 62}}
	longest := store.Cursor{Order: store.OrderMostHelpful, SortKey: long, Helpful: 9_999_999_999, Pos: big}
	if got, err := store.ParseCursor(longest.Encode()); err != nil || !reflect.DeepEqual(got, longest) {
		t.Errorf("longest v3 cursor (%d characters): %+v, %v", len(longest.Encode()), got, err)
	}
	raw, _ := base64.RawURLEncoding.DecodeString(store.Cursor{Order: store.OrderHighestRating, SortKey: sk, Rating: 4}.Encode())
	enc := base64.RawURLEncoding.EncodeToString
	with := func(i int, b byte) string { r := slices.Clone(raw); r[i] = b; return enc(r) }
	for name, bad := range map[string]string{
		"order NEWEST in v3": with(1, 0),
		"unknown order":      with(1, 5),
		"rating 0":           with(2, 0),
		"rating 6":           with(2, 6),
		"position flag 2":    with(len(raw)-1, 2),
		"trailing byte":      enc(append(slices.Clone(raw), 0)),
		"truncated":          enc(raw[:len(raw)-1]),
		"helpful too large":  store.Cursor{Order: store.OrderMostHelpful, SortKey: sk, Helpful: 10_000_000_000}.Encode(),
		"bad sort key":       store.Cursor{Order: store.OrderOldest, SortKey: "2026-01-02T03:04:05Z#x"}.Encode(),
	} {
		if _, err := store.ParseCursor(bad); store.ErrorCode(err) != store.EINVALID {
			t.Errorf("%s: ParseCursor(%q) err = %v, want EINVALID", name, bad, err)
		}
	}
}

// TestCursorOfAnotherOrder: ParsePage refuses a cursor of another order,
// naming the cursor's order, before anything is read.
func TestCursorOfAnotherOrder(t *testing.T) {
	sk := store.SortKey(time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), "c1")
	cursors := map[store.Order]string{
		store.OrderNewest:        store.EncodeCursor(sk),
		store.OrderOldest:        store.Cursor{Order: store.OrderOldest, SortKey: sk}.Encode(),
		store.OrderHighestRating: store.Cursor{Order: store.OrderHighestRating, SortKey: sk, Rating: 3}.Encode(),
		store.OrderLowestRating:  store.Cursor{Order: store.OrderLowestRating, SortKey: sk, Rating: 3}.Encode(),
		store.OrderMostHelpful:   store.Cursor{Order: store.OrderMostHelpful, SortKey: sk, Helpful: 2}.Encode(),
	}
	for from, c := range cursors {
		for to := range cursors {
			for _, a := range []store.PageArgs{{Order: to, After: &c}, {Order: to, Before: &c}} {
				_, err := store.ParsePage(a)
				if to == from {
					if err != nil {
						t.Errorf("%s cursor in %s: %v", from, to, err)
					}
					continue
				}
				want := fmt.Sprintf("this cursor belongs to orderBy: %s, not %s", from, to)
				if store.ErrorCode(err) != store.EINVALID || !strings.Contains(store.ErrorMessage(err), want) {
					t.Errorf("%s cursor in %s: %v, want EINVALID %q", from, to, err, want)
				}
			}
		}
	}
}

// TestPlanSequence: the rating orders' plan is the selected ratings in the
// order's sequence from the page's start to its stop, reversed backward,
// skipping the ratings the stats count as empty.
func TestPlanSequence(t *testing.T) {
	sk := store.SortKey(time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), "c1")
	cur := func(o store.Order, r int) *string {
		c := store.Cursor{Order: o, SortKey: sk, Rating: r}.Encode()
		return &c
	}
	st := stats(10, 0, 30, 200, 760)
	hi, lo := store.OrderHighestRating, store.OrderLowestRating
	for _, tc := range []struct {
		name    string
		f       store.Filter
		args    store.PageArgs
		st      *store.Stats
		want    []int
		skipped []int
	}{
		{"highest, all", store.Filter{}, store.PageArgs{Order: hi}, nil, []int{5, 4, 3, 2, 1}, nil},
		{"lowest, all", store.Filter{}, store.PageArgs{Order: lo}, nil, []int{1, 2, 3, 4, 5}, nil},
		{"highest, stats skip 2", store.Filter{}, store.PageArgs{Order: hi}, st, []int{5, 4, 3, 1}, []int{2}},
		{"highest, selected", store.Filter{Ratings: []int{1, 4}}, store.PageArgs{Order: hi}, nil, []int{4, 1}, nil},
		{"highest, after a 4", store.Filter{}, store.PageArgs{Order: hi, After: cur(hi, 4)}, nil, []int{4, 3, 2, 1}, nil},
		{"highest, after a 4, 4 not selected", store.Filter{Ratings: []int{5, 3}}, store.PageArgs{Order: hi, After: cur(hi, 4)}, nil, []int{3}, nil},
		{"highest, last", store.Filter{}, store.PageArgs{Order: hi, Last: new(int)}, nil, []int{1, 2, 3, 4, 5}, nil},
		{"lowest, before a 3", store.Filter{}, store.PageArgs{Order: lo, Before: cur(lo, 3)}, nil, []int{3, 2, 1}, nil},
		{"lowest, between 2 and 4", store.Filter{}, store.PageArgs{Order: lo, After: cur(lo, 2), Before: cur(lo, 4)}, nil, []int{2, 3, 4}, nil},
		{"highest, language", store.Filter{Language: "de", Ratings: []int{5}}, store.PageArgs{Order: hi}, nil, []int{5}, nil},
		{"none selected", store.Filter{Ratings: []int{}}, store.PageArgs{Order: hi}, nil, nil, nil},
	} {
		pg, err := store.ParsePage(tc.args)
		if err != nil {
			t.Fatal(err)
		}
		p := store.PlanSequence("p1", tc.f, pg, tc.st)
		var got []int
		for _, part := range p.Partitions {
			got = append(got, part.Rating)
			idx, key := store.PartitionKey("p1", tc.f.Language, part.Rating)
			if part.Index != idx || part.Key != key {
				t.Errorf("%s: partition %+v, want %s %s", tc.name, part, idx, key)
			}
		}
		wantStrategy := store.StrategySequence
		if len(tc.want) == 0 {
			wantStrategy = store.StrategyEmpty
		}
		if !slices.Equal(got, tc.want) || !slices.Equal(p.Skipped, tc.skipped) || p.Strategy != wantStrategy || p.Order != tc.args.Order {
			t.Errorf("%s: %s %v skipped %v (%s), want %v skipped %v", tc.name, p.Strategy, got, p.Skipped, p.Order, tc.want, tc.skipped)
		}
	}
}
