package storetest

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/table"
)

// CallLog is a table.Accountant that keeps every call accounted to it, for
// tests: put it in a context with table.WithAccountant.
type CallLog struct {
	mu    sync.Mutex
	calls []table.Call
}

// Account keeps c.
func (l *CallLog) Account(c table.Call) {
	l.mu.Lock()
	l.calls = append(l.calls, c)
	l.mu.Unlock()
}

// Calls returns the calls kept so far, in the order they were accounted.
func (l *CallLog) Calls() []table.Call {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.calls)
}

// tableAccounting checks the accounting part of the Table contract: every
// call, whether it succeeds or fails, is accounted once to the accountant of
// its context (table.Account), naming its method and index, with the items
// it returned (counted here from what it returned) and no read capacity for
// a write.
func tableAccounting(t *testing.T, tbl table.Table) {
	log := &CallLog{}
	ctx := table.WithAccountant(t.Context(), log)
	var want []table.Call
	expect := func(op, index string, items int) {
		want = append(want, table.Call{Op: op, Index: index, Items: items})
	}
	at := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	c := (&store.Comment{ID: "ac1", ProductID: "pa", Language: "en", Rating: 4, Author: "a", Title: "t", Body: "b", CreatedAt: at}).Item()
	a1, a2 := table.Item{table.AttrPK: table.S("A"), table.AttrSK: table.S("1")}, table.Item{table.AttrPK: table.S("A"), table.AttrSK: table.S("2")}

	_ = tbl.Write(ctx, []table.Op{putOp(a1), putOp(a2)})
	expect(table.CallWrite, "", 0)
	_ = tbl.BatchPut(ctx, []table.Item{c})
	expect(table.CallBatchPut, "", 0)
	it, _ := tbl.Get(ctx, a1.Key())
	expect(table.CallGet, "", table.Found(it))
	it, _ = tbl.Get(ctx, table.Key{PK: "A", SK: "missing"})
	expect(table.CallGet, "", table.Found(it))
	items, _ := tbl.BatchGet(ctx, []table.Key{a1.Key(), {PK: "A", SK: "missing"}, c.Key()})
	expect(table.CallBatchGet, "", table.Found(items...))
	res, _ := tbl.Query(ctx, table.Query{HashValue: "A", Limit: 1})
	expect(table.CallQuery, "", len(res.Items))
	res, _ = tbl.Query(ctx, table.Query{Index: table.IndexByLangAndRating, HashValue: c.S(table.AttrGSIPK), Limit: 10})
	expect(table.CallQuery, table.IndexByLangAndRating, len(res.Items))
	items, _, _ = tbl.Scan(ctx, 0, 1, nil, 100)
	expect(table.CallScan, "", len(items))
	// Failures are accounted too: a failed condition, a refused query, a
	// cancelled context.
	if err := tbl.Write(ctx, []table.Op{putOp(a1, table.Cond{Kind: table.CondNotExists})}); err == nil {
		t.Error("a put under a failing condition succeeded")
	}
	expect(table.CallWrite, "", 0)
	if _, err := tbl.Query(ctx, table.Query{HashValue: "A", Limit: 0}); err == nil {
		t.Error("a query of limit 0 succeeded")
	}
	expect(table.CallQuery, "", 0)
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := tbl.Get(cancelled, a1.Key()); err == nil {
		t.Error("a Get with a cancelled context succeeded")
	}
	expect(table.CallGet, "", 0)

	got := log.Calls()
	for i := range got {
		if got[i].ReadCapacity < 0 || (got[i].ReadCapacity != 0 && (got[i].Op == table.CallWrite || got[i].Op == table.CallBatchPut)) {
			t.Errorf("call %d %+v: read capacity %v", i, got[i], got[i].ReadCapacity)
		}
		got[i].ReadCapacity = 0
	}
	if !slices.Equal(got, want) {
		t.Errorf("accounted calls:\n got  %+v\n want %+v", got, want)
	}
	if n := want[2].Items + want[3].Items + want[4].Items + want[5].Items + want[6].Items + want[7].Items; n != 1+0+2+1+1+3 {
		t.Errorf("the reads returned %d items in all, want 8 (a wrong answer: see the other subtests)", n)
	}
}
