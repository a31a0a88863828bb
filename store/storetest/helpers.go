package storetest

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/acme/comments-gateway/store/table"
)

// MustGet returns the item with key k (nil when absent), failing tb on error.
func MustGet(tb testing.TB, tbl table.Table, k table.Key) table.Item {
	tb.Helper()
	it, err := tbl.Get(tb.Context(), k)
	if err != nil {
		tb.Fatalf("Get(%q, %q): %v", k.PK, k.SK, err)
	}
	return it
}

// MustBatchGet returns the items of keys, aligned with them, failing tb on
// error or on an answer of the wrong length.
func MustBatchGet(tb testing.TB, tbl table.Table, keys []table.Key) []table.Item {
	tb.Helper()
	items, err := tbl.BatchGet(tb.Context(), keys)
	if err != nil {
		tb.Fatalf("BatchGet(%d keys): %v", len(keys), err)
	}
	if len(items) != len(keys) {
		tb.Fatalf("BatchGet(%d keys) returned %d items", len(keys), len(items))
	}
	return items
}

// MustWrite applies ops in one Write, failing tb on error.
func MustWrite(tb testing.TB, tbl table.Table, ops ...table.Op) {
	tb.Helper()
	if err := tbl.Write(tb.Context(), ops); err != nil {
		tb.Fatalf("Write(%d ops): %v", len(ops), err)
	}
}

// MustPut puts items with Write, table.MaxWriteOps at a time (items in one
// chunk must have distinct keys), failing tb on error.
func MustPut(tb testing.TB, tbl table.Table, items ...table.Item) {
	tb.Helper()
	for len(items) > 0 {
		n := min(len(items), table.MaxWriteOps)
		ops := make([]table.Op, n)
		for i, it := range items[:n] {
			ops[i] = table.Op{Kind: table.OpPut, Key: it.Key(), Item: it}
		}
		MustWrite(tb, tbl, ops...)
		items = items[n:]
	}
}

// MustBatchPut bulk-loads items, failing tb on error.
func MustBatchPut(tb testing.TB, tbl table.Table, items []table.Item) {
	tb.Helper()
	if err := tbl.BatchPut(tb.Context(), items); err != nil {
		tb.Fatalf("BatchPut(%d items): %v", len(items), err)
	}
}

// MustQuery runs one Query, failing tb on error or on more than q.Limit
// items.
func MustQuery(tb testing.TB, tbl table.Table, q table.Query) table.QueryResult {
	tb.Helper()
	res, err := tbl.Query(tb.Context(), q)
	if err != nil {
		tb.Fatalf("%s: %v", describeQuery(q), err)
	}
	if len(res.Items) > q.Limit {
		tb.Fatalf("%s: %d items, more than the limit", describeQuery(q), len(res.Items))
	}
	return res
}

// MustQueryAll runs q and the queries continuing it from each LastKey until
// LastKey is nil, and returns all the items in order. It fails tb on error,
// on a page over q.Limit, or when the pages do not end.
func MustQueryAll(tb testing.TB, tbl table.Table, q table.Query) []table.Item {
	tb.Helper()
	var out []table.Item
	seen := map[string]bool{}
	for page := 1; ; page++ {
		res := MustQuery(tb, tbl, q)
		out = append(out, res.Items...)
		if res.LastKey == nil {
			return out
		}
		// Every page but the last one carries items, and no LastKey comes
		// twice.
		if k := fmt.Sprint(res.LastKey); page > len(out)+1 || seen[k] || page > maxPages {
			tb.Fatalf("%s: no end after %d pages and %d items (LastKey %v)", describeQuery(q), page, len(out), res.LastKey)
		} else {
			seen[k] = true
		}
		q.StartKey = res.LastKey
	}
}

// maxPages bounds the pages of one walk through a partition or a segment.
const maxPages = 10_000

// MustScanAll reads segment seg of total to its end, limit items a page, and
// returns the items. It fails tb on error, on a page over limit, or when
// the pages do not end.
func MustScanAll(tb testing.TB, tbl table.Table, seg, total, limit int) []table.Item {
	tb.Helper()
	var out []table.Item
	var start table.Item
	seen := map[string]bool{}
	for page := 1; ; page++ {
		items, next, err := tbl.Scan(tb.Context(), seg, total, start, limit)
		if err != nil {
			tb.Fatalf("Scan(%d of %d, limit %d): %v", seg, total, limit, err)
		}
		if len(items) > limit {
			tb.Fatalf("Scan(%d of %d, limit %d): %d items", seg, total, limit, len(items))
		}
		out = append(out, items...)
		if next == nil {
			return out
		}
		if k := fmt.Sprint(next); page > len(out)+1 || seen[k] || page > maxPages {
			tb.Fatalf("Scan(%d of %d, limit %d): no end after %d pages (next %v)", seg, total, limit, page, next)
		} else {
			seen[k] = true
		}
		start = next
	}
}

// MustErrorCode fails tb unless err is a store error with code (checked
// with store.ErrorCode), and returns the *store.Error.
func MustErrorCode(tb testing.TB, err error, code string) *table.Error {
	tb.Helper()
	if got := table.ErrorCode(err); got != code {
		tb.Fatalf("error %v has code %q, want %q", err, got, code)
	}
	var e *table.Error
	if !errors.As(err, &e) {
		tb.Fatalf("error %v is not a *store.Error", err)
	}
	return e
}

func describeQuery(q table.Query) string {
	index := q.Index
	if index == "" {
		index = "base table"
	}
	cond := ""
	switch q.SortOp {
	case table.SortLess:
		cond = fmt.Sprintf(" sort < %q", q.SortValue)
	case table.SortGreater:
		cond = fmt.Sprintf(" sort > %q", q.SortValue)
	case table.SortBeginsWith:
		cond = fmt.Sprintf(" begins_with(sort, %q)", q.SortValue)
	}
	dir := "descending"
	if q.Forward {
		dir = "ascending"
	}
	start := ""
	if q.StartKey != nil {
		start = " from a start key"
	}
	return fmt.Sprintf("Query(%s, hash %q%s, %s, limit %d%s)", index, q.HashValue, cond, dir, q.Limit, start)
}

// keyString shows an item by its key.
func keyString(it table.Item) string {
	if it == nil {
		return "<nil>"
	}
	return it.S(table.AttrPK) + "|" + it.S(table.AttrSK)
}

func keyStrings(items []table.Item) string {
	s := make([]string, len(items))
	for i, it := range items {
		s[i] = keyString(it)
	}
	return "[" + strings.Join(s, " ") + "]"
}

// sameItems reports (with tb.Errorf) whether got equals want, item by item
// and in order.
func sameItems(tb testing.TB, what string, got, want []table.Item) bool {
	tb.Helper()
	if len(got) == len(want) {
		same := true
		for i := range got {
			if !reflect.DeepEqual(got[i], want[i]) {
				same = false
				break
			}
		}
		if same {
			return true
		}
	}
	i := 0
	for i < len(got) && i < len(want) && reflect.DeepEqual(got[i], want[i]) {
		i++
	}
	var g, w table.Item
	if i < len(got) {
		g = got[i]
	}
	if i < len(want) {
		w = want[i]
	}
	tb.Errorf("%s: got %d items, want %d\n got  %s\n want %s\nfirst difference at %d:\n got  %v\n want %v",
		what, len(got), len(want), keyStrings(got), keyStrings(want), i, g, w)
	return false
}
