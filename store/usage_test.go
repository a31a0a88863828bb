package store_test

import (
	"context"
	"sync"
	"testing"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/table"
)

// callCounter is an Accountant that counts calls and items.
type callCounter struct {
	mu           sync.Mutex
	calls, items int
}

func (c *callCounter) Account(call table.Call) {
	c.mu.Lock()
	c.calls++
	c.items += call.Items
	c.mu.Unlock()
}

// TestUsageTotalsAndPassesOn: a Usage totals the calls accounted in its
// context, concurrent ones included, and passes each on, once, to the
// accountant the context had; a nested Usage's calls reach both.
func TestUsageTotalsAndPassesOn(t *testing.T) {
	if store.UsageFrom(context.Background()) != nil {
		t.Fatal("a context without a Usage has one")
	}
	table.Account(context.Background(), table.Call{Op: table.CallGet, Items: 1}) // no accountant: nothing happens
	process := &callCounter{}
	ctx, outer := store.WithUsage(table.WithAccountant(context.Background(), process))
	inner, op := store.WithUsage(ctx)
	if store.UsageFrom(ctx) != outer || store.UsageFrom(inner) != op {
		t.Fatal("UsageFrom does not return the context's Usage")
	}
	var wg sync.WaitGroup
	for i := range 100 {
		wg.Go(func() {
			table.Account(inner, table.Call{Op: table.CallQuery, Items: i % 3, ReadCapacity: 0.5})
		})
	}
	wg.Wait()
	table.Account(ctx, table.Call{Op: table.CallWrite})
	wantItems := int64(0)
	for i := range 100 {
		wantItems += int64(i % 3)
	}
	if op.Requests() != 100 || op.ItemsRead() != wantItems || op.ReadCapacity() != 50 {
		t.Errorf("inner Usage: %d requests, %d items, %v RCU; want 100, %d, 50", op.Requests(), op.ItemsRead(), op.ReadCapacity(), wantItems)
	}
	if outer.Requests() != 101 || outer.ItemsRead() != wantItems || outer.ReadCapacity() != 50 {
		t.Errorf("outer Usage: %d requests, %d items, %v RCU; want 101, %d, 50", outer.Requests(), outer.ItemsRead(), outer.ReadCapacity(), wantItems)
	}
	if process.calls != 101 || int64(process.items) != wantItems {
		t.Errorf("the process accountant saw %d calls, %d items; want 101, %d (each call once)", process.calls, process.items, wantItems)
	}
}
