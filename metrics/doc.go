// Package metrics owns the gateway's Prometheus metrics: the table's items
// read and requests, by operation and index, the GraphQL requests' counts
// and latency, by operation, and the in-process caches' lookups,
// evictions and sizes, by cache.
//
// The model: the backends account every Table call to the
// table.Accountant of the call's context (table.Account). Collectors is
// that accountant for the server: main puts it in the context of
// everything the server does (requests, the live follower, the demo load),
// and a GraphQL operation's store.Usage, which totals its calls for
// extensions.cost and its log line, passes each call on to it. So a call is
// counted once, by its backend, and both the metrics and the cost extension
// read that one count. GraphQL request counts and latency are labelled by
// operation, bounded to 200 distinct names because clients choose them.
package metrics
