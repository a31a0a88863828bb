package metrics

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/acme/comments-gateway/store"
)

// Collectors are the gateway's metrics, registered once.
type Collectors struct {
	itemsRead   *prometheus.CounterVec
	requests    *prometheus.CounterVec
	gqlRequests *prometheus.CounterVec
	gqlDuration *prometheus.HistogramVec
	live        prometheus.Histogram // live.go
	ops         opNames
}

// New registers the collectors on reg (prometheus.DefaultRegisterer in
// production, a fresh registry in tests).
func New(reg prometheus.Registerer) *Collectors {
	c := &Collectors{
		itemsRead: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "comments_table_items_read_total",
			Help: "Items read from the table (comments and stats alike) by query, get, batch get and scan.",
		}, []string{"op", "index"}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "comments_table_requests_total",
			Help: "Requests made to the table, by operation and index.",
		}, []string{"op", "index"}),
		gqlRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "comments_graphql_requests_total",
			Help: "GraphQL requests served, by operation (type and name).",
		}, []string{"operation"}),
		gqlDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "comments_graphql_request_duration_seconds",
			Help:    "Latency of GraphQL requests, by operation (type and name).",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
		}, []string{"operation"}),
		live: newLiveDelivery(),
	}
	reg.MustRegister(c.itemsRead, c.requests, c.gqlRequests, c.gqlDuration, c.live)
	return c
}

// ObserveRequest records one GraphQL request of the given operation.
func (c *Collectors) ObserveRequest(operation string, d time.Duration) {
	if c == nil {
		return
	}
	op := c.ops.label(operation)
	c.gqlRequests.WithLabelValues(op).Inc()
	c.gqlDuration.WithLabelValues(op).Observe(d.Seconds())
}

// maxOperations bounds the operation label's values: operation names are
// chosen by clients, so past this many distinct ones the rest are "other".
const maxOperations = 200

type opNames struct {
	mu   sync.Mutex
	seen map[string]bool
}

func (o *opNames) label(op string) string {
	if op == "" {
		op = "unknown"
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.seen == nil {
		o.seen = map[string]bool{}
	}
	if o.seen[op] {
		return op
	}
	if len(o.seen) >= maxOperations || len(op) > 100 {
		return "other"
	}
	o.seen[op] = true
	return op
}

// Usage is what one GraphQL request cost the store: it backs
// extensions.cost. Safe for concurrent use.
type Usage struct {
	itemsRead atomic.Int64
	requests  atomic.Int64
	capacity  atomic.Uint64 // float64 bits: consumed read capacity units
}

// ItemsRead is the number of items the request read.
func (u *Usage) ItemsRead() int64 { return u.itemsRead.Load() }

// Requests is the number of store requests the request made.
func (u *Usage) Requests() int64 { return u.requests.Load() }

// ReadCapacity is the consumed read capacity units DynamoDB reported (0 on
// the embedded store).
func (u *Usage) ReadCapacity() float64 { return math.Float64frombits(u.capacity.Load()) }

// AddCapacity adds consumed capacity units to the request's usage.
func (u *Usage) AddCapacity(units float64) {
	for {
		old := u.capacity.Load()
		if u.capacity.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+units)) {
			return
		}
	}
}

type usageKey struct{}

// WithUsage returns a context that accounts its store reads to a new Usage.
func WithUsage(ctx context.Context) (context.Context, *Usage) {
	u := &Usage{}
	return context.WithValue(ctx, usageKey{}, u), u
}

// UsageFrom returns the Usage of ctx, or nil.
func UsageFrom(ctx context.Context) *Usage {
	u, _ := ctx.Value(usageKey{}).(*Usage)
	return u
}

// Table wraps t so that every call is counted in the collectors (c may be
// nil) and in the Usage of the call's context, if any.
func (c *Collectors) Table(t store.Table) store.Table { return &table{t: t, c: c} }

type table struct {
	t store.Table
	c *Collectors
}

func (m *table) count(ctx context.Context, op, index string, items int) {
	if index == "" {
		index = "table"
	}
	if m.c != nil {
		m.c.requests.WithLabelValues(op, index).Inc()
		if items > 0 {
			m.c.itemsRead.WithLabelValues(op, index).Add(float64(items))
		}
	}
	if u := UsageFrom(ctx); u != nil {
		u.requests.Add(1)
		u.itemsRead.Add(int64(items))
	}
}

func (m *table) Get(ctx context.Context, k store.Key) (store.Item, error) {
	it, err := m.t.Get(ctx, k)
	n := 0
	if it != nil {
		n = 1
	}
	m.count(ctx, "get", "", n)
	return it, err
}

func (m *table) BatchGet(ctx context.Context, keys []store.Key) ([]store.Item, error) {
	items, err := m.t.BatchGet(ctx, keys)
	n := 0
	for _, it := range items {
		if it != nil {
			n++
		}
	}
	m.count(ctx, "batch_get", "", n)
	return items, err
}

func (m *table) Query(ctx context.Context, q store.Query) (store.QueryResult, error) {
	res, err := m.t.Query(ctx, q)
	m.count(ctx, "query", q.Index, len(res.Items))
	return res, err
}

func (m *table) Write(ctx context.Context, ops []store.Op) error {
	err := m.t.Write(ctx, ops)
	m.count(ctx, "write", "", 0)
	return err
}

func (m *table) BatchPut(ctx context.Context, items []store.Item) error {
	err := m.t.BatchPut(ctx, items)
	m.count(ctx, "batch_put", "", 0)
	return err
}

func (m *table) Scan(ctx context.Context, seg, total int, start store.Item, limit int) ([]store.Item, store.Item, error) {
	items, next, err := m.t.Scan(ctx, seg, total, start, limit)
	m.count(ctx, "scan", "", len(items))
	return items, next, err
}

func (m *table) Close() error { return m.t.Close() }

// Local forwards the wrapped table's Local, if it has one (see store.New).
func (m *table) Local() bool {
	l, ok := m.t.(interface{ Local() bool })
	return ok && l.Local()
}
