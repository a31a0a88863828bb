package store

import (
	"context"
	"math"
	"sync/atomic"

	"github.com/acme/comments-gateway/store/table"
)

// Usage totals the Table calls of one unit of work (a GraphQL operation)
// and passes each call on to the accountant of the context it was made in
// (the process's metrics), so that a call is counted once, at one place, for
// both. Safe for concurrent use.
type Usage struct {
	next      table.Accountant // nil: none
	calls     atomic.Int64
	itemsRead atomic.Int64
	capacity  atomic.Uint64 // float64 bits: read capacity units
}

// WithUsage returns a context whose Table calls are totalled in a new Usage,
// and still accounted to the accountant ctx had.
func WithUsage(ctx context.Context) (context.Context, *Usage) {
	next := table.AccountantFrom(ctx)
	u := &Usage{next: next}
	return table.WithAccountant(ctx, u), u
}

// UsageFrom returns the Usage that accounts the Table calls of ctx, or nil
// when ctx has none (or its accountant is not a Usage).
func UsageFrom(ctx context.Context) *Usage {
	u, _ := table.AccountantFrom(ctx).(*Usage)
	return u
}

// Account adds c to the totals and passes it on.
func (u *Usage) Account(c table.Call) {
	u.calls.Add(1)
	u.itemsRead.Add(int64(c.Items))
	if c.ReadCapacity != 0 {
		for {
			old := u.capacity.Load()
			if u.capacity.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+c.ReadCapacity)) {
				break
			}
		}
	}
	if u.next != nil {
		u.next.Account(c)
	}
}

// ItemsRead is the number of items the calls returned.
func (u *Usage) ItemsRead() int64 { return u.itemsRead.Load() }

// Requests is the number of Table calls (writes included).
func (u *Usage) Requests() int64 { return u.calls.Load() }

// ReadCapacity is the read capacity units DynamoDB reported the calls
// consumed (0 on the embedded store).
func (u *Usage) ReadCapacity() float64 { return math.Float64frombits(u.capacity.Load()) }
