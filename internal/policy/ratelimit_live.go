package policy

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/vektah/gqlparser/v2/gqlerror"
	"golang.org/x/time/rate"

	"github.com/acme/comments-gateway/internal/gqlhttp"
	"github.com/acme/comments-gateway/live/livehttp"
)

// The rate limit as the live transport is charged by it (livehttp.RateLimit):
// a websocket's operations spend their client's bucket as HTTP requests do,
// and each event of a subscription costs its complexity.

// Bucket returns the budget of the client of ctx's request
// (WithClient names it); nil for one that is not limited.
func (rl *RateLimiter) Bucket(ctx context.Context) livehttp.Bucket {
	c := clientFrom(ctx)
	if c == nil || c.id == "" {
		return nil
	}
	return liveBucket{rl: rl, l: rl.limiter(ctx, c.id)}
}

// ChargeEvent takes cost from client's bucket for one event of its
// subscription, or returns the THROTTLED error that ends the subscription.
func (rl *RateLimiter) ChargeEvent(client string, cost int) *gqlerror.Error {
	if rl.limiter(context.Background(), client).AllowN(time.Now(), cost) {
		return nil
	}
	return gqlhttp.Coded(CodeThrottled, fmt.Sprintf(
		"subscription ended: each event costs this subscription's complexity (%d) from the client's rate budget (%d at most, %g restored a second), and it is spent; resubscribe later, select less, or catch up with comments(before: <newest cursor>)",
		cost, rl.cfg.Burst, rl.cfg.Rate))
}

// liveBucket is one client's bucket as a websocket spends it.
type liveBucket struct {
	rl *RateLimiter
	l  *rate.Limiter
}

// Refusal is what one websocket operation owes when it runs none.
func (b liveBucket) Refusal() livehttp.Refusal { return b.rl.newRefusal(b.l) }

// Spent reports whether the bucket is below what a refusal costs.
func (b liveBucket) Spent() bool {
	_, spent := b.rl.spent(b.l)
	return spent
}

// Throttled is the THROTTLED error of a spent bucket, with its
// extensions.cost.
func (b liveBucket) Throttled() *gqlerror.Error {
	need := b.rl.refusedCost()
	avail, _ := b.rl.spent(b.l)
	err := gqlhttp.Coded(CodeThrottled, "throttled: your rate budget is spent (refused operations cost "+strconv.Itoa(need)+" points too); retry later (see extensions.cost.throttleStatus)")
	err.Extensions["cost"] = costReport(nil, nil, b.rl.throttle(need, avail))
	return err
}
