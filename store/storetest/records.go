package storetest

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/table"
)

// CommentShapes returns comments of every shape: each combination of the
// optional fields (author id, helpful and unhelpful counts, verified
// purchase, reply) in each moderation state (published; pending with
// reports, a moderation time and reason; hidden), over two languages and
// the five ratings, of product pid.
func CommentShapes(pid string) []*store.Comment {
	at := time.Date(2025, 3, 1, 12, 0, 0, 123456789, time.UTC)
	var cs []*store.Comment
	for _, status := range []store.Status{store.StatusPublished, store.StatusPending, store.StatusHidden} {
		for mask := range 1 << 5 {
			n := len(cs)
			c := &store.Comment{
				ID: fmt.Sprintf("shape%03d", n), ProductID: pid, Language: []string{"en", "de"}[n%2], Rating: 1 + n%5,
				Author: "author", Title: "title", Body: "body\nline", CreatedAt: at.Add(time.Duration(n%7) * time.Minute),
				Version: int64(n % 3), Status: status,
			}
			set := func(bit int) bool { return mask&(1<<bit) != 0 }
			if set(0) {
				c.AuthorID = "sub-" + c.ID
			}
			if set(1) {
				c.HelpfulCount = int64(1 + n%4)
			}
			if set(2) {
				c.UnhelpfulCount = 2
			}
			c.VerifiedPurchase = set(3)
			if set(4) {
				c.Reply = &store.Reply{Body: "thanks", CreatedAt: at, UpdatedAt: at.Add(time.Hour)}
			}
			if status != store.StatusPublished {
				c.ModeratedAt, c.ModerationReason = at.Add(time.Hour), "reason"
			}
			if status == store.StatusPending {
				c.Reports = 3
			}
			cs = append(cs, c)
		}
	}
	return cs
}

// shapeItems returns the items of CommentShapes(pid) as a store with
// moderation on writes them (with the author's index key).
func shapeItems(pid string) []table.Item {
	var items []table.Item
	for _, c := range CommentShapes(pid) {
		it := c.Item()
		if c.AuthorID != "" {
			it[table.AttrGSI6PK] = table.S(store.AuthorPK(c.AuthorID))
		}
		items = append(items, it)
	}
	return items
}

// tableRecords checks Query.Columns: on the base table and every index,
// a query with columns answers either Items (which the caller converts) or
// Records equal, column by column, to Columns.Record of the Items the same
// query answers without them, with the same LastKey and the same
// accounting, whether or not a RecordArena lends their room; merged and
// round reads too (table.MergeReader,
// table.RoundReader). The items are comments of every shape
// (CommentShapes), the columns every attribute they hold and one they
// do not: an attribute the typed decoding misses fails it.
func tableRecords(t *testing.T, tbl table.Table) {
	items := shapeItems("pr")
	MustBatchPut(t, tbl, items)
	names := map[string]bool{"absent": true}
	for _, it := range items {
		for n := range it {
			names[n] = true
		}
	}
	cols := table.NewColumns(slices.Sorted(maps.Keys(names))...)
	for _, index := range append([]string{""}, allIndexNames()...) {
		for _, h := range partitions(items, index) {
			for _, fwd := range []bool{true, false} {
				q := table.Query{Index: index, HashValue: h, Forward: fwd, Limit: 5}
				for {
					q.StartKey = recordsAgree(t, tbl, q, cols)
					if q.StartKey == nil {
						break
					}
				}
			}
		}
	}
	mergedRecordsAgree(t, tbl, items, cols)
}

// allIndexNames returns the names of table.AllIndexes.
func allIndexNames() []string {
	out := make([]string, len(table.AllIndexes))
	for i, d := range table.AllIndexes {
		out[i] = d.Name
	}
	return out
}

// readWay is one way a query reads its records: without columns, with
// them, or with them lent by an arena (Query.Arena).
type readWay struct {
	cols  *table.Columns
	arena *table.RecordArena
}

// readWays are the three ways, with cols and arena; the arena is freed
// after the answers are compared, its blocks then lent to later queries.
func readWays(cols *table.Columns, arena *table.RecordArena) []readWay {
	return []readWay{{nil, nil}, {cols, nil}, {cols, arena}}
}

// recordsAgree runs q without cols, with them, and with them and an arena,
// and checks that they agree; it returns the LastKey.
func recordsAgree(t *testing.T, tbl table.Table, q table.Query, cols *table.Columns) table.Item {
	t.Helper()
	arena := new(table.RecordArena)
	defer arena.Free()
	ways := readWays(cols, arena)
	res := make([][]table.QueryResult, len(ways))
	calls := make([][]table.Call, len(ways))
	for i, w := range ways {
		q.Columns, q.Arena = w.cols, w.arena
		res[i], calls[i] = accounted(t, func(ctx context.Context) ([]table.QueryResult, error) {
			if rr, ok := tbl.(table.RoundReader); ok {
				return rr.QueryRound(ctx, []table.Query{q, q})
			}
			r, err := tbl.Query(ctx, q)
			return []table.QueryResult{r, r}, err
		})
	}
	for i := 1; i < len(ways); i++ {
		what := fmt.Sprintf("%s %q (arena: %v)", q.Index, q.HashValue, ways[i].arena != nil)
		if !reflect.DeepEqual(calls[0], calls[i]) {
			t.Fatalf("%s: accounted %v without columns, %v with", what, calls[0], calls[i])
		}
		for n := range res[0] {
			sameAnswer(t, what, res[0][n], res[i][n], cols)
		}
	}
	return res[0][0].LastKey
}

// mergedRecordsAgree checks a merged read of each product partition set of
// every index the table merges, without and with cols.
func mergedRecordsAgree(t *testing.T, tbl table.Table, items []table.Item, cols *table.Columns) {
	mr, ok := tbl.(table.MergeReader)
	if !ok {
		return
	}
	for _, d := range table.AllIndexes {
		if !mr.Merges(d.Name) {
			continue
		}
		var qs []table.Query
		for _, h := range partitions(items, d.Name) {
			qs = append(qs, table.Query{Index: d.Name, HashValue: h, Limit: 1})
		}
		for _, limit := range []int{1, 7, len(items)} {
			arena := new(table.RecordArena)
			ways := readWays(cols, arena)
			res := make([][]table.QueryResult, len(ways))
			bound := make([]string, len(ways))
			calls := make([][]table.Call, len(ways))
			for i, w := range ways {
				for j := range qs {
					qs[j].Columns, qs[j].Arena = w.cols, w.arena
				}
				res[i], calls[i] = accounted(t, func(ctx context.Context) (r []table.QueryResult, err error) {
					r, bound[i], err = mr.QueryMerged(ctx, qs, limit)
					return r, err
				})
			}
			for i := 1; i < len(ways); i++ {
				what := fmt.Sprintf("merged %s (arena: %v)", d.Name, ways[i].arena != nil)
				if bound[0] != bound[i] || !reflect.DeepEqual(calls[0], calls[i]) {
					t.Fatalf("%s: bound %q, %v without columns; %q, %v with", what, bound[0], calls[0], bound[i], calls[i])
				}
				for n := range res[0] {
					sameAnswer(t, what, res[0][n], res[i][n], cols)
				}
			}
			arena.Free()
		}
	}
}

// accounted runs read with an accountant, failing on an error, and returns
// its results and the calls accounted.
func accounted(t *testing.T, read func(ctx context.Context) ([]table.QueryResult, error)) ([]table.QueryResult, []table.Call) {
	t.Helper()
	log := &CallLog{}
	res, err := read(table.WithAccountant(t.Context(), log))
	if err != nil {
		t.Fatal(err)
	}
	return res, log.Calls()
}

// sameAnswer checks that typed, an answer to a query with cols, is plain,
// the answer without them: the same Items, or Records of them.
func sameAnswer(t *testing.T, what string, plain, typed table.QueryResult, cols *table.Columns) {
	t.Helper()
	if !reflect.DeepEqual(plain.LastKey, typed.LastKey) {
		t.Fatalf("%s: LastKey %v without columns, %v with", what, plain.LastKey, typed.LastKey)
	}
	if typed.Records == nil {
		if !reflect.DeepEqual(plain.Items, typed.Items) {
			t.Fatalf("%s: items differ with columns", what)
		}
		return
	}
	if typed.Items != nil || len(typed.Records) != len(plain.Items) {
		t.Fatalf("%s: %d items and %d records with columns, %d items without", what, len(typed.Items), len(typed.Records), len(plain.Items))
	}
	for i, it := range plain.Items {
		want := cols.Record(it)
		for c, v := range typed.Records[i] {
			if v != want[c] {
				t.Fatalf("%s: item %v: column %s is %v (%v), want %v (%v)", what, it.Key(), cols.Name(c), v, v.Kind(), want[c], want[c].Kind())
			}
		}
	}
}
