package metrics

import (
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/acme/comments-gateway/store/table"
)

// Collectors are the gateway's metrics, registered once.
type Collectors struct {
	itemsRead   *prometheus.CounterVec
	requests    *prometheus.CounterVec
	tableItems  tableSeries // itemsRead's series (tablecalls.go)
	tableCalls  tableSeries // requests' series
	gqlRequests *prometheus.CounterVec
	gqlDuration *prometheus.HistogramVec
	gqlErrors   *prometheus.CounterVec      // errors.go
	live        prometheus.Histogram        // live.go
	leaseHeld   atomic.Pointer[func() bool] // the stream lease's Held (live.go)
	dynamo      dynamoCollectors            // dynamodb.go
	caches      caches                      // caches.go
	ops         opLabels                    // the operation label's values (oplabels.go)
}

// New registers the collectors on reg (prometheus.DefaultRegisterer in
// production, a fresh registry in tests).
func New(reg prometheus.Registerer) *Collectors {
	c := &Collectors{
		itemsRead: counterVec("comments_table_items_read_total",
			"Items read from the table (comments and stats alike) by query, get, batch get and scan.", "op", "index"),
		requests: counterVec("comments_table_requests_total",
			"Requests made to the table, by operation and index.", "op", "index"),
		gqlRequests: counterVec("comments_graphql_requests_total",
			"GraphQL requests served, by operation (type and name).", "operation"),
		gqlDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "comments_graphql_request_duration_seconds",
			Help:    "Latency of GraphQL requests, by operation (type and name).",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
		}, []string{"operation"}),
		gqlErrors: newGraphQLErrors(),
		live:      newLiveDelivery(),
		caches:    newCaches(),
		dynamo:    newDynamoCollectors(),
	}
	c.tableItems.vec, c.tableCalls.vec = c.itemsRead, c.requests
	c.ops.evicted = func(op string) {
		c.gqlRequests.DeleteLabelValues(op)
		c.gqlDuration.DeleteLabelValues(op)
	}
	reg.MustRegister(c.itemsRead, c.requests, c.gqlRequests, c.gqlDuration, c.gqlErrors, c.live, newStreamLease(c.streamLeaseHeld))
	reg.MustRegister(c.caches.collectors()...)
	reg.MustRegister(c.dynamo.collectors()...)
	return c
}

// counterVec returns a counter named name, explained by help, with one
// series per value of its labels.
func counterVec(name, help string, labels ...string) *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
}

// ObserveRequest records one GraphQL request of the given operation.
func (c *Collectors) ObserveRequest(operation string, d time.Duration) {
	if c == nil {
		return
	}
	c.ops.observe(operation, func(op string) {
		c.gqlRequests.WithLabelValues(op).Inc()
		c.gqlDuration.WithLabelValues(op).Observe(d.Seconds())
	})
}

// Account counts one Table call in the collectors (items read and
// requests, by operation and index): Collectors is the table.Accountant of
// the server's contexts (see table.WithAccountant). A nil Collectors counts
// nothing.
func (c *Collectors) Account(call table.Call) {
	if c == nil {
		return
	}
	index := call.Index
	if index == "" {
		index = "table"
	}
	c.tableCalls.counter(call.Op, index).Inc()
	if call.Items > 0 {
		c.tableItems.counter(call.Op, index).Add(float64(call.Items))
	}
}

var _ table.Accountant = (*Collectors)(nil)
