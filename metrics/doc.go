// Package metrics owns the gateway's Prometheus metrics and the per-request
// cost accounting: a store.Table decorator that counts every request and
// every item read, and the Usage of one GraphQL request (extensions.cost).
//
// The model: main wraps the backend's Table once with Collectors.Table, so
// every store call of every request passes through one counter. The call is
// counted in the Prometheus collectors (by operation and index) and, when
// its context carries a Usage (WithUsage, set per GraphQL request by
// resolvers.NewHandler), in that Usage too; on DynamoDB the consumed read
// capacity is added to the Usage by main's dynamo.Table.OnCall hook. The
// handler turns the Usage into extensions.cost and the request's log line.
// GraphQL request counts and latency are labelled by operation, bounded to
// 200 distinct names because clients choose them.
package metrics
