package table

import "context"

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

// AccountantFrom returns the accountant of ctx, or nil when it has none.
func AccountantFrom(ctx context.Context) Accountant {
	a, _ := ctx.Value(accountantKey{}).(Accountant)
	return a
}

// Account tells the accountant of ctx, if any, of c. Every Table method of
// a backend calls it exactly once per call, when the call ends, whether it
// succeeded or not (the Table contract; storetest checks it).
func Account(ctx context.Context, c Call) {
	if a := AccountantFrom(ctx); a != nil {
		a.Account(c)
	}
}

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
