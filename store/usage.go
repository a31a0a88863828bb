package store

import (
	"context"
	"math"
	"sync/atomic"
)

// Call is one call of a Table method, as the backend that served it
// accounts it (Account): what the cost extension, the request's log line and
// the Prometheus metrics are made of.
type Call struct {
	// Op is the Table method: CallGet, CallBatchGet, CallQuery, CallScan,
	// CallWrite or CallBatchPut (or one of the CallStream calls).
	Op string
	// Index is the index a query read; "" for the base table.
	Index string
	// Items is the number of items the call returned: 0 or 1 for Get, the
	// non-nil items of BatchGet, the items of Query and Scan, 0 for writes.
	Items int
	// ReadCapacity is the read capacity units the storage reported the call
	// consumed (DynamoDB's ConsumedCapacity, its retries and every batch of a
	// BatchGet included); 0 for writes and on the embedded store.
	ReadCapacity float64
}

// The Table methods, as Call.Op names them (and the metrics label them).
const (
	CallGet      = "get"
	CallBatchGet = "batch_get"
	CallQuery    = "query"
	CallScan     = "scan"
	CallWrite    = "write"
	CallBatchPut = "batch_put"
)

// The DynamoDB Streams calls of the live stream reader, as Call.Op names
// them: they are not Table methods, but the reader's context accounts them
// like one (Items: the records GetRecords returned).
const (
	CallStreamShards   = "stream_shards"   // DescribeStream
	CallStreamIterator = "stream_iterator" // GetShardIterator
	CallStreamRecords  = "stream_records"  // GetRecords
)

// Accountant is told of the Table calls made with a context that carries it
// (WithAccountant). Implementations are safe for concurrent use: a request's
// calls run in parallel.
type Accountant interface {
	Account(Call)
}

type accountantKey struct{}

// WithAccountant returns a context whose Table calls are accounted to a
// (replacing the accountant ctx had, if any).
func WithAccountant(ctx context.Context, a Accountant) context.Context {
	return context.WithValue(ctx, accountantKey{}, a)
}

// Account tells the accountant of ctx, if any, of c. Every Table method of
// a backend calls it exactly once per call, when the call ends, whether it
// succeeded or not (the Table contract; storetest checks it).
func Account(ctx context.Context, c Call) {
	if a, _ := ctx.Value(accountantKey{}).(Accountant); a != nil {
		a.Account(c)
	}
}

// Usage totals the Table calls of one unit of work (a GraphQL operation)
// and passes each call on to the accountant of the context it was made in
// (the process's metrics), so that a call is counted once, at one place, for
// both. Safe for concurrent use.
type Usage struct {
	next      Accountant // nil: none
	calls     atomic.Int64
	itemsRead atomic.Int64
	capacity  atomic.Uint64 // float64 bits: read capacity units
}

// WithUsage returns a context whose Table calls are totalled in a new Usage,
// and still accounted to the accountant ctx had.
func WithUsage(ctx context.Context) (context.Context, *Usage) {
	next, _ := ctx.Value(accountantKey{}).(Accountant)
	u := &Usage{next: next}
	return WithAccountant(ctx, u), u
}

// UsageFrom returns the Usage that accounts the Table calls of ctx, or nil
// when ctx has none (or its accountant is not a Usage).
func UsageFrom(ctx context.Context) *Usage {
	u, _ := ctx.Value(accountantKey{}).(*Usage)
	return u
}

// Account adds c to the totals and passes it on.
func (u *Usage) Account(c Call) {
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

// Found counts the items that exist (are not nil): the Items of a Get or a
// BatchGet call.
func Found(items ...Item) int {
	n := 0
	for _, it := range items {
		if it != nil {
			n++
		}
	}
	return n
}
