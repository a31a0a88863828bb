package policy

import (
	"context"
	"log/slog"

	"github.com/99designs/gqlgen/graphql"

	"github.com/acme/comments-gateway/obs"
	"github.com/acme/comments-gateway/store"
)

// costReport is extensions.cost, built here for every reply that
// reports a cost: an executed operation (OperationCostReport), one the
// rate limit throttled (RateLimiter.Around) and a request refused for a
// spent budget (RateLimiter.refuse). Its fields:
//
//   - itemsRead, requests: the items the store read and the calls it made
//     (with u, the request's usage; nil for a refusal, which read nothing);
//   - readCapacityUnits: the read capacity DynamoDB says it consumed, when
//     any;
//   - complexity: the operation's complexity, when it was measured (m);
//   - requestedQueryCost, throttleStatus: under a rate limit, the points the
//     operation asked for and the client's budget (t).
func costReport(u *store.Usage, m *operationCost, t *throttleInfo) map[string]any {
	cost := map[string]any{}
	if u != nil {
		cost["itemsRead"], cost["requests"] = u.ItemsRead(), u.Requests()
		if rcu := u.ReadCapacity(); rcu > 0 {
			cost["readCapacityUnits"] = rcu
		}
	}
	if m != nil && m.Known {
		cost["complexity"] = m.Complexity
	}
	if t != nil {
		cost["requestedQueryCost"], cost["throttleStatus"] = t.requested, t.status
	}
	return cost
}

// OperationCostReport returns the extensions.cost of the operation ctx
// ran, and puts its reads on the request's log line; nil when the request
// counts no reads (no store.Usage).
func OperationCostReport(ctx context.Context) map[string]any {
	u := store.UsageFrom(ctx)
	if u == nil {
		return nil
	}
	var t *throttleInfo
	if c := clientFrom(ctx); c != nil {
		t = c.throttle.Load()
	}
	obs.Set(ctx, slog.Int64("itemsRead", u.ItemsRead()), slog.Int64("storeRequests", u.Requests()))
	if rcu := u.ReadCapacity(); rcu > 0 {
		obs.Set(ctx, slog.Float64("readCapacityUnits", rcu))
	}
	return costReport(u, costOf(graphql.GetOperationContext(ctx)), t)
}
