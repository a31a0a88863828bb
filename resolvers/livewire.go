package resolvers

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"golang.org/x/time/rate"

	"github.com/acme/comments-gateway/internal/gqlhttp"
	"github.com/acme/comments-gateway/internal/policy"
	"github.com/acme/comments-gateway/live/livehttp"
)

// liveDeps is what the live transport gets of this handler: its
// credentials, client naming, request timeout, the cost analysis's
// complexity, fresh dataloaders per event, the delivery metric and the
// rate limit (nil rl: none).
func liveDeps(cfg Config, rl *rateLimiter) livehttp.Deps {
	d := livehttp.Deps{
		Auth:           cfg.Auth,
		ClientOf:       policy.ClientID,
		RequestTimeout: cfg.RequestTimeout,
		Complexity: func(oc *graphql.OperationContext) int {
			if m := costOf(oc); m != nil {
				return m.Complexity
			}
			return 0
		},
		PerEvent: func(ctx context.Context) context.Context {
			op := graphql.GetOperationContext(ctx).Operation
			return context.WithValue(ctx, loadersKey{}, newLoaders(cfg.Store, cfg.LoaderWait, planLoads(op)))
		},
	}
	if cfg.Metrics != nil {
		d.ObserveDelivery = cfg.Metrics.ObserveLiveDelivery
	}
	if rl != nil {
		d.Rate = rl
	}
	return d
}

// Bucket returns the budget of the client of ctx's request
// (withRequestContext names it); nil for one that is not limited.
func (rl *rateLimiter) Bucket(ctx context.Context) livehttp.Bucket {
	client, _ := ctx.Value(clientKey{}).(string)
	if client == "" {
		return nil
	}
	return liveBucket{rl: rl, l: rl.limiter(ctx, client)}
}

// ChargeEvent takes cost from client's bucket for one event of its
// subscription, or returns the THROTTLED error that ends the subscription.
func (rl *rateLimiter) ChargeEvent(client string, cost int) *gqlerror.Error {
	if rl.limiter(context.Background(), client).AllowN(time.Now(), cost) {
		return nil
	}
	return gqlhttp.Coded(CodeThrottled, fmt.Sprintf(
		"subscription ended: each event costs this subscription's complexity (%d) from the client's rate budget (%d at most, %g restored a second), and it is spent; resubscribe later, select less, or catch up with comments(before: <newest cursor>)",
		cost, rl.cfg.Burst, rl.cfg.Rate))
}

// liveBucket is one client's bucket as a websocket spends it.
type liveBucket struct {
	rl *rateLimiter
	l  *rate.Limiter
}

func (b liveBucket) Refusal() livehttp.Refusal { return b.rl.newRefusal(b.l) }

func (b liveBucket) Spent() bool {
	_, spent := b.rl.spent(b.l)
	return spent
}

func (b liveBucket) Throttled() *gqlerror.Error {
	need := b.rl.refusedCost()
	avail, _ := b.rl.spent(b.l)
	err := gqlhttp.Coded(CodeThrottled, "throttled: your rate budget is spent (refused operations cost "+strconv.Itoa(need)+" points too); retry later (see extensions.cost.throttleStatus)")
	err.Extensions["cost"] = costReport(nil, nil, b.rl.throttle(need, avail))
	return err
}
