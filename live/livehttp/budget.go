package livehttp

import (
	"fmt"

	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/acme/comments-gateway/internal/gqlhttp"
)

// Subscriptions under the budgets of requests. A subscription costs its
// complexity, as the cost analysis measures the operation (Deps.Complexity), and
// every event makes its group execute it again; so:
//
//   - A client's subscriptions together cost at most SubscriptionBudget
//     points, counted from subscribe until the subscription ends; one
//     that would go over is refused with SUBSCRIPTION_BUDGET_EXCEEDED.
//     Whatever a client subscribes to, one event makes the server execute
//     at most that many points for it.
//   - With a rate limit, each event a subscription receives costs its
//     client the subscription's complexity, as the same query polled would,
//     taken before the event is executed; a subscription whose client's
//     budget is spent is ended with THROTTLED, and an event no member paid
//     for is not executed.
//   - Each event's execution runs under the request timeout.
//
// Clients are named as the rate limit names them; API keys (trusted
// services) are not limited.

// DefaultSubscriptionBudget is a client's subscription budget: room for
// hundreds of ordinary subscriptions (a commentChanged or statsChanged
// selection costs 5 to 30), or eight that each re-read a page of 100
// comments, whose deliveries cost the server 20 to 50 ms of CPU per event
// (docs/live.md).
const DefaultSubscriptionBudget = 5_000

// CodeSubscriptionBudget is the code of a subscription refused because its
// client's subscriptions would cost more than their budget.
const CodeSubscriptionBudget = "SUBSCRIPTION_BUDGET_EXCEEDED"

// liveBudget is the complexity of the active subscriptions of each client;
// guarded by fanout.mu.
type liveBudget struct {
	limit int            // 0: no limit
	used  map[string]int // by client
}

// budgetLimit is the limit of a configured SubscriptionBudget: the
// default for 0, none (0) for a negative one.
func budgetLimit(configured int) int {
	if configured < 0 {
		return 0
	}
	return positiveOr(configured, DefaultSubscriptionBudget)
}

// take adds cost to client's subscriptions, or refuses it when they would
// cost more than the limit.
func (b *liveBudget) take(client string, cost int) *gqlerror.Error {
	if client == "" || b.limit <= 0 {
		return nil
	}
	if used := b.used[client]; used+cost > b.limit {
		err := gqlhttp.Coded(CodeSubscriptionBudget, fmt.Sprintf(
			"subscription refused: it costs %d, and this client's active subscriptions already cost %d of their budget of %d; end some, or select less", cost, used, b.limit))
		err.Extensions["cost"], err.Extensions["used"], err.Extensions["budget"] = cost, used, b.limit
		return err
	}
	b.used[client] += cost
	return nil
}

// give returns what take took.
func (b *liveBudget) give(client string, cost int) {
	if client == "" || b.limit <= 0 {
		return
	}
	if b.used[client] -= cost; b.used[client] <= 0 {
		delete(b.used, client)
	}
}

// charge takes, before g executes an event, each member's cost from its
// client's rate budget, ending the members whose client cannot pay with
// THROTTLED. It reports whether a member is left to execute the event for.
func (f *fanout) charge(g *fanGroup) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.rate == nil {
		return len(g.members) > 0
	}
	for i := 0; i < len(g.members); {
		m := g.members[i]
		if m.client != "" {
			if err := f.rate.ChargeEvent(m.client, m.cost); err != nil {
				f.remove(m, err) // removes members[i]
				continue
			}
		}
		i++
	}
	return len(g.members) > 0
}
