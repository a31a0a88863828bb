package store_test

// Fuzz tests (go test -fuzz=FuzzX ./store/) of what clients control: cursors,
// rating lists, language tags, ids; and of the planner over random stats.
// Seed corpora: testdata/fuzz/FuzzX/ (run as ordinary tests by go test).

import (
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/acme/comments-gateway/store"
)

func FuzzDecodeCursor(f *testing.F) {
	t0 := time.Date(2025, 6, 1, 9, 30, 0, 123456789, time.UTC)
	for _, c := range []string{
		store.EncodeCursor(store.SortKey(t0, "01J9Z3ABCDEF")),
		store.EncodeCursor(store.SortKey(time.Time{}, "x")),
		store.EncodeCursor(store.SortKey(t0, strings.Repeat("z", 64))),
		store.EncodePositionCursor(store.SortKey(t0, "01J9Z3ABCDEF"), &store.Position{Filter: 7, Version: 3, Remaining: []int64{0, 12, 1 << 40}}),
		store.EncodePositionCursor(store.SortKey(t0, "c"), &store.Position{Remaining: []int64{1, 2, 3, 4, 5}}),
		store.Cursor{Order: store.OrderOldest, SortKey: store.SortKey(t0, "c")}.Encode(),
		store.Cursor{Order: store.OrderOldest, SortKey: store.SortKey(t0, "c"), Pos: &store.Position{Filter: 1, Version: 2, Remaining: []int64{3}}}.Encode(),
		store.Cursor{Order: store.OrderHighestRating, SortKey: store.SortKey(t0, "c"), Rating: 5}.Encode(),
		store.Cursor{Order: store.OrderLowestRating, SortKey: store.SortKey(t0, "01J9Z3ABCDEF"), Rating: 1}.Encode(),
		store.Cursor{Order: store.OrderMostHelpful, SortKey: store.SortKey(t0, "c"), Helpful: 9_999_999_999, Pos: &store.Position{Remaining: []int64{1, 2}}}.Encode(),
		"AwE", "AwIGAQ", "AwUA",
		"", "AQ", "AA", "AQ==", "Ag", "AgA", "!!", strings.Repeat("A", 201),
	} {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, c string) {
		cur, err := store.ParseCursor(c)
		if err != nil {
			if !(store.ErrorCode(err) == store.EINVALID) {
				t.Fatalf("ParseCursor(%q): error %v is not EINVALID", c, err)
			}
			return
		}
		// Every cursor that parses re-encodes to one that parses the same.
		c2 := cur.Encode()
		if cur2, err := store.ParseCursor(c2); err != nil || !reflect.DeepEqual(cur2, cur) {
			t.Fatalf("ParseCursor(%q) = %+v; re-encoded %q parses to %+v, %v", c, cur, c2, cur2, err)
		}
		if (cur.Rating != 0) != (cur.Order == store.OrderHighestRating || cur.Order == store.OrderLowestRating) || cur.Rating < 0 || cur.Rating > 5 {
			t.Fatalf("ParseCursor(%q): rating %d in %s", c, cur.Rating, cur.Order)
		}
		if cur.Helpful < 0 || cur.Helpful > 9_999_999_999 || cur.Helpful != 0 && cur.Order != store.OrderMostHelpful {
			t.Fatalf("ParseCursor(%q): helpful %d in %s", c, cur.Helpful, cur.Order)
		}
		if cur.Pos != nil {
			if n := len(cur.Pos.Remaining); n < 1 || n > 5 {
				t.Fatalf("ParseCursor(%q): %d counts", c, n)
			}
		}
		sk := cur.SortKey
		ts, id, err := store.ParseSortKey(sk)
		if err != nil {
			t.Fatalf("DecodeCursor(%q) = %q, which does not parse: %v", c, sk, err)
		}
		c1 := store.EncodeCursor(sk)
		sk2, err := store.DecodeCursor(c1)
		if err != nil || sk2 != sk {
			t.Fatalf("DecodeCursor(%q) = %q; re-encoded %q decodes to %q, %v", c, sk, c1, sk2, err)
		}
		// Not checked: that sk is canonical (SortKey(ts, id) == sk). It is
		// not always: time.Parse takes ',' as well as '.' before the
		// fractional seconds, so a forged cursor of "…T00:30:30,304704704Z#4"
		// decodes (see the seed testdata/fuzz/FuzzDecodeCursor/comma-fraction)
		// to a key that sorts before every "…T00:30:30.…" key.
		_, _ = ts, id
	})
}

// fuzzRatings turns bytes into a rating list: nil when null, else one int
// per byte (as int8, so that out-of-range values come up often).
func fuzzRatings(null bool, b []byte) []int {
	if null {
		return nil
	}
	rs := make([]int, 0, len(b))
	for _, x := range b {
		rs = append(rs, int(int8(x)))
	}
	return rs
}

func FuzzNormalizeRatings(f *testing.F) {
	f.Add(true, []byte{})
	f.Add(false, []byte{})
	f.Add(false, []byte{5, 1, 3, 1})
	f.Add(false, []byte{0})
	f.Add(false, []byte{6})
	f.Add(false, []byte{0xff})
	f.Add(false, []byte{1, 2, 3, 4, 5, 5, 4, 3, 2, 1})
	f.Fuzz(func(t *testing.T, null bool, b []byte) {
		in := fuzzRatings(null, b)
		out, err := store.NormalizeRatings(in)
		bad := slices.ContainsFunc(in, func(r int) bool { return r < store.MinRating || r > store.MaxRating })
		if bad != (err != nil) {
			t.Fatalf("NormalizeRatings(%v) = %v, %v: want an error exactly when a rating is outside 1..5", in, out, err)
		}
		if err != nil {
			if !(store.ErrorCode(err) == store.EINVALID) {
				t.Fatalf("NormalizeRatings(%v): error %v is not EINVALID", in, err)
			}
			return
		}
		if (in == nil) != (out == nil) {
			t.Fatalf("NormalizeRatings(%v) = %#v: nil must stay nil, and only nil", in, out)
		}
		if !slices.IsSorted(out) || len(slices.Compact(slices.Clone(out))) != len(out) {
			t.Fatalf("NormalizeRatings(%v) = %v: not sorted and unique", in, out)
		}
		for _, r := range in {
			if !slices.Contains(out, r) {
				t.Fatalf("NormalizeRatings(%v) = %v: lost %d", in, out, r)
			}
		}
		for _, r := range out {
			if !slices.Contains(in, r) {
				t.Fatalf("NormalizeRatings(%v) = %v: added %d", in, out, r)
			}
		}
		again, err := store.NormalizeRatings(out)
		if err != nil || !slices.Equal(again, out) || (again == nil) != (out == nil) {
			t.Fatalf("NormalizeRatings not idempotent: %v → %v → %v, %v", in, out, again, err)
		}
	})
}

func FuzzCanonicalLanguage(f *testing.F) {
	for _, s := range []string{"en", "EN-gb", "pt-BR", "zh-Hant-TW", "de-CH-1996", "x-private", "en-u-ca-gregory", "sr-Latn",
		"und", "", "en/5", "i-klingon", "art-lojban", "zh-min-nan", "en-US-x-twain", strings.Repeat("a", 36), "qaa", "en-GB-oed"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := store.CanonicalLanguage(s)
		if err != nil {
			if !(store.ErrorCode(err) == store.EINVALID) {
				t.Fatalf("CanonicalLanguage(%q): error %v is not EINVALID", s, err)
			}
			return
		}
		if c == "" || !utf8.ValidString(c) {
			t.Fatalf("CanonicalLanguage(%q) = %q", s, c)
		}
		c2, err := store.CanonicalLanguage(c)
		if err != nil || c2 != c {
			t.Fatalf("CanonicalLanguage not idempotent: %q → %q → %q, %v", s, c, c2, err)
		}
	})
}

var idRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

func FuzzValidateID(f *testing.F) {
	for _, s := range []string{"espresso-machine", "a", "", strings.Repeat("p", 64), strings.Repeat("p", 65), "a b", "ü", "a\x00", "PRODUCT#x", "01J9Z3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := store.ValidateID("product id", s)
		if want := idRE.MatchString(s); want != (err == nil) {
			t.Fatalf("ValidateID(%q) = %v, want ok=%v", s, err, want)
		}
		if err != nil && !(store.ErrorCode(err) == store.EINVALID) {
			t.Fatalf("ValidateID(%q): error %v is not EINVALID", s, err)
		}
		if err == nil {
			if err2 := store.ValidateID("product id", s); err2 != nil {
				t.Fatalf("ValidateID(%q) not stable: %v", s, err2)
			}
		}
	})
}

func FuzzPlanQuery(f *testing.F) {
	f.Add(uint32(10), uint32(0), uint32(30), uint32(200), uint32(760), false, []byte{1, 2}, "de", uint8(20))
	f.Add(uint32(0), uint32(0), uint32(0), uint32(0), uint32(0), true, []byte{}, "", uint8(20))
	f.Add(uint32(1), uint32(1), uint32(1), uint32(1), uint32(1), false, []byte{}, "", uint8(0))
	f.Add(uint32(5), uint32(0), uint32(0), uint32(0), uint32(1e6), false, []byte{1, 5}, "pt-BR", uint8(100))
	f.Add(uint32(1e6), uint32(1e6), uint32(0), uint32(3), uint32(0), false, []byte{1, 2, 4}, "", uint8(100))
	f.Add(uint32(7), uint32(7), uint32(7), uint32(7), uint32(7), false, []byte{1, 2, 3, 4, 5}, "en", uint8(7))
	f.Add(uint32(0), uint32(2), uint32(0), uint32(0), uint32(0), false, []byte{2, 3}, "", uint8(50))
	f.Fuzz(func(t *testing.T, c1, c2, c3, c4, c5 uint32, null bool, rb []byte, lang string, page uint8) {
		st := &store.Stats{ProductID: "p"}
		for r, c := range []uint32{c1, c2, c3, c4, c5} {
			st.Counts[r+1] = int64(c)
			st.Total += int64(c)
		}
		var ratings []int
		if !null {
			ratings = []int{}
			for _, b := range rb {
				ratings = append(ratings, int(b%5)+1)
			}
		}
		ratings, err := store.NormalizeRatings(ratings)
		if err != nil {
			t.Fatal(err)
		}
		if lang != "" {
			if lang, err = store.CanonicalLanguage(lang); err != nil {
				lang = ""
			}
		}
		need := int(page)%(store.MaxPageSize+1) + 1 // page size 0..100, plus one
		p := store.PlanQuery("p", store.Filter{Language: lang, Ratings: ratings}, st, need)

		selected := ratings
		if selected == nil {
			selected = []int{1, 2, 3, 4, 5}
		}
		var nonZero []int
		var want int64
		for _, r := range selected {
			if st.Count(r) > 0 {
				nonZero = append(nonZero, r)
				want += st.Count(r)
			}
		}
		fail := func(format string, args ...any) {
			t.Helper()
			t.Fatalf("stats %v, lang %q, ratings %v, need %d: plan %+v: "+format,
				append([]any{st.Counts[1:], lang, ratings, need, p}, args...)...)
		}
		if p.Total != want {
			fail("total %d, want %d (the selected ratings' counts)", p.Total, want)
		}
		if (p.Strategy == store.StrategyEmpty) != (len(p.Partitions) == 0) {
			fail("strategy %s with %d partitions: empty iff no reads", p.Strategy, len(p.Partitions))
		}
		if (len(nonZero) == 0) != (p.Strategy == store.StrategyEmpty) {
			fail("strategy %s, but %d selected ratings have comments", p.Strategy, len(nonZero))
		}
		for _, r := range p.Skipped {
			if st.Count(r) != 0 || !slices.Contains(selected, r) {
				fail("skipped rating %d has %d comments or was not selected", r, st.Count(r))
			}
		}
		for _, r := range nonZero {
			if slices.Contains(p.Skipped, r) {
				fail("rating %d has comments but is skipped", r)
			}
		}
		maxLimit := need
		if p.Strategy == store.StrategyBroad {
			maxLimit = 2 * need
		}
		var read []int
		for _, part := range p.Partitions {
			if part.Limit < 1 || part.Limit > maxLimit {
				fail("partition %s limit %d outside 1..%d", part.Key, part.Limit, maxLimit)
			}
			if part.Count <= 0 {
				fail("partition %s has count %d", part.Key, part.Count)
			}
			idx, key := store.PartitionKey("p", lang, part.Rating)
			if part.Index != idx || part.Key != key {
				fail("partition %s/%s, want %s/%s", part.Index, part.Key, idx, key)
			}
			if part.Rating != 0 {
				if st.Count(part.Rating) == 0 {
					fail("a partition for rating %d, which has no comments", part.Rating)
				}
				if part.Count != st.Count(part.Rating) {
					fail("partition for rating %d counts %d, stats %d", part.Rating, part.Count, st.Count(part.Rating))
				}
				read = append(read, part.Rating)
			}
		}
		switch p.Strategy {
		case store.StrategyMerge:
			if len(p.Partitions) < 2 || !slices.Equal(read, nonZero) {
				fail("merge reads ratings %v, want one partition each for %v", read, nonZero)
			}
		case store.StrategySingle, store.StrategyBroad:
			if len(p.Partitions) != 1 {
				fail("%s with %d partitions", p.Strategy, len(p.Partitions))
			}
			if part := p.Partitions[0]; part.Rating != 0 {
				if !slices.Equal(nonZero, []int{part.Rating}) {
					fail("single partition of rating %d for ratings %v", part.Rating, nonZero)
				}
			} else {
				// the broad partition: it must hold only matches, or Keep must
				// filter to exactly the selected ratings
				keep := p.Keep
				if keep == nil {
					keep = []int{1, 2, 3, 4, 5}
				}
				for r := 1; r <= 5; r++ {
					if st.Count(r) > 0 && slices.Contains(keep, r) != slices.Contains(nonZero, r) {
						fail("broad read keeps %v, selected ratings with comments are %v", p.Keep, nonZero)
					}
				}
			}
			if p.Strategy == store.StrategyBroad && p.Keep == nil {
				fail("broad without Keep")
			}
		case store.StrategyEmpty:
		default:
			fail("unknown strategy %q", p.Strategy)
		}
	})
}

// FuzzValidatePage: ParsePage on the connection arguments (first, last, after, before;
// each may be absent) never panic, and are refused exactly when first and
// last are both given, the page size is outside 0..100, or a cursor does not
// decode.
func FuzzValidatePage(f *testing.F) {
	good := store.EncodeCursor(store.SortKey(time.Date(2025, 6, 1, 9, 30, 0, 0, time.UTC), "c1"))
	f.Add(uint8(0b0001), int64(20), int64(0), "", "")
	f.Add(uint8(0b0011), int64(1), int64(1), "", "")
	f.Add(uint8(0b0101), int64(100), int64(0), good, "")
	f.Add(uint8(0b1010), int64(0), int64(101), "", good)
	f.Add(uint8(0b1100), int64(0), int64(0), good, good)
	f.Add(uint8(0b0100), int64(0), int64(0), "", "")
	f.Add(uint8(0b0001), int64(-1), int64(0), "", "")
	f.Add(uint8(0b0001), int64(1<<40), int64(0), "", "")
	f.Fuzz(func(t *testing.T, mask uint8, first, last int64, after, before string) {
		var a store.PageArgs
		if mask&1 != 0 {
			n := int(first)
			a.First = &n
		}
		if mask&2 != 0 {
			n := int(last)
			a.Last = &n
		}
		if mask&4 != 0 {
			a.After = &after
		}
		if mask&8 != 0 {
			a.Before = &before
		}
		_, err := store.ParsePage(a)
		want := true
		if a.First != nil && a.Last != nil {
			want = false
		}
		for _, n := range []*int{a.First, a.Last} {
			if n != nil && (*n < 0 || *n > store.MaxPageSize) {
				want = false
			}
		}
		for _, c := range []*string{a.After, a.Before} {
			if c != nil {
				if _, err := store.DecodeCursor(*c); err != nil {
					want = false
				}
			}
		}
		if want != (err == nil) {
			t.Fatalf("ParsePage(first %v, last %v, after %v, before %v) = %v, want ok=%v", first, last, after, before, err, want)
		}
		if err != nil && store.ErrorCode(err) != store.EINVALID {
			t.Fatalf("ParsePage: error %v is not EINVALID", err)
		}
	})
}
