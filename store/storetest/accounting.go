package storetest

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/acme/comments-gateway/store"
)

// CallLog is a store.Accountant that keeps every call accounted to it, for
// tests: put it in a context with store.WithAccountant.
type CallLog struct {
	mu    sync.Mutex
	calls []store.Call
}

// Account keeps c.
func (l *CallLog) Account(c store.Call) {
	l.mu.Lock()
	l.calls = append(l.calls, c)
	l.mu.Unlock()
}

// Calls returns the calls kept so far, in the order they were accounted.
func (l *CallLog) Calls() []store.Call {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.calls)
}

// tableAccounting checks the accounting part of the Table contract: every
// call, whether it succeeds or fails, is accounted once to the accountant of
// its context (store.Account), naming its method and index, with the items
// it returned (counted here from what it returned) and no read capacity for
// a write.
func tableAccounting(t *testing.T, tbl store.Table) {
	log := &CallLog{}
	ctx := store.WithAccountant(t.Context(), log)
	var want []store.Call
	expect := func(op, index string, items int) {
		want = append(want, store.Call{Op: op, Index: index, Items: items})
	}
	at := time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	c := (&store.Comment{ID: "ac1", ProductID: "pa", Language: "en", Rating: 4, Author: "a", Title: "t", Body: "b", CreatedAt: at}).Item()
	a1, a2 := store.Item{store.AttrPK: store.S("A"), store.AttrSK: store.S("1")}, store.Item{store.AttrPK: store.S("A"), store.AttrSK: store.S("2")}

	_ = tbl.Write(ctx, []store.Op{putOp(a1), putOp(a2)})
	expect(store.CallWrite, "", 0)
	_ = tbl.BatchPut(ctx, []store.Item{c})
	expect(store.CallBatchPut, "", 0)
	it, _ := tbl.Get(ctx, a1.Key())
	expect(store.CallGet, "", store.Found(it))
	it, _ = tbl.Get(ctx, store.Key{PK: "A", SK: "missing"})
	expect(store.CallGet, "", store.Found(it))
	items, _ := tbl.BatchGet(ctx, []store.Key{a1.Key(), {PK: "A", SK: "missing"}, c.Key()})
	expect(store.CallBatchGet, "", store.Found(items...))
	res, _ := tbl.Query(ctx, store.Query{HashValue: "A", Limit: 1})
	expect(store.CallQuery, "", len(res.Items))
	res, _ = tbl.Query(ctx, store.Query{Index: store.IndexByLangAndRating, HashValue: c.S(store.AttrGSIPK), Limit: 10})
	expect(store.CallQuery, store.IndexByLangAndRating, len(res.Items))
	items, _, _ = tbl.Scan(ctx, 0, 1, nil, 100)
	expect(store.CallScan, "", len(items))
	// Failures are accounted too: a failed condition, a refused query, a
	// cancelled context.
	if err := tbl.Write(ctx, []store.Op{putOp(a1, store.Cond{Kind: store.CondNotExists})}); err == nil {
		t.Error("a put under a failing condition succeeded")
	}
	expect(store.CallWrite, "", 0)
	if _, err := tbl.Query(ctx, store.Query{HashValue: "A", Limit: 0}); err == nil {
		t.Error("a query of limit 0 succeeded")
	}
	expect(store.CallQuery, "", 0)
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := tbl.Get(cancelled, a1.Key()); err == nil {
		t.Error("a Get with a cancelled context succeeded")
	}
	expect(store.CallGet, "", 0)

	got := log.Calls()
	for i := range got {
		if got[i].ReadCapacity < 0 || (got[i].ReadCapacity != 0 && (got[i].Op == store.CallWrite || got[i].Op == store.CallBatchPut)) {
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
