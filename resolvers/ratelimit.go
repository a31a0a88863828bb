package resolvers

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"golang.org/x/time/rate"

	"github.com/acme/comments-gateway/internal/policy"
	"github.com/acme/comments-gateway/live/livehttp"
)

// RateLimit limits each client by the cost of its operations: a token
// bucket per client (golang.org/x/time/rate) that holds Burst cost points
// and refills at Rate points a second; an operation takes its complexity
// (the number the complexity limit computes). Off when Rate is 0.
//
// A client is named by policy.ClientID (package policy): the JWT's subject, or its
// address; requests with an API key (trusted services) are not limited.
type RateLimit struct {
	Rate  float64
	Burst int
	// RefusedCost is what a request that runs no operation costs
	// (DefaultRefusedCost when 0; see rateLimiter.gate).
	RefusedCost int
}

// maxClients bounds the per-client buckets kept (least recently used go
// first; a forgotten client starts again with a full bucket).
const maxClients = 100_000

type rateLimiter struct {
	cfg     RateLimit
	mu      sync.Mutex
	clients *lru.LRU[*rate.Limiter]
}

func newRateLimiter(cfg RateLimit) *rateLimiter {
	if cfg.Rate <= 0 {
		return nil
	}
	cfg.Burst = positiveOr(cfg.Burst, int(cfg.Rate*10))
	return &rateLimiter{cfg: cfg, clients: lru.New[*rate.Limiter](maxClients)}
}

func (rl *rateLimiter) limiter(ctx context.Context, client string) *rate.Limiter {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	l, ok := rl.clients.Get(ctx, client)
	if !ok {
		l = rate.NewLimiter(rate.Limit(rl.cfg.Rate), rl.cfg.Burst)
		rl.clients.Add(ctx, client, l)
	}
	return l
}

type clientKey struct{}

// clientOf names the client of a request for the rate limit ("" for one
// that is not limited).
func (rl *rateLimiter) clientOf(r *http.Request) string {
	return policy.ClientID(r)
}

// throttleStatus is what extensions.cost.throttleStatus reports.
type throttleStatus struct {
	MaximumAvailable   float64 `json:"maximumAvailable"`
	CurrentlyAvailable float64 `json:"currentlyAvailable"`
	RestoreRate        float64 `json:"restoreRate"`
}

// throttleInfo is the rate limit's view of one request, for its response.
type throttleInfo struct {
	requested int
	status    throttleStatus
}

// around takes the operation's cost from its client's bucket, or refuses
// the operation with THROTTLED before anything runs.
func (rl *rateLimiter) around(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	client, _ := ctx.Value(clientKey{}).(string)
	m := costOf(graphql.GetOperationContext(ctx))
	if client == "" || m == nil {
		return next(ctx)
	}
	cost := max(m.Complexity, 1)
	l := rl.limiter(ctx, client)
	now := time.Now()
	allowed := l.AllowN(now, cost)
	info := rl.throttle(cost, l.TokensAt(now))
	if allowed {
		markCharged(ctx)
		if ri := requestInfoFrom(ctx); ri != nil {
			ri.throttle.Store(info)
		}
		return next(ctx)
	}
	if livehttp.IsLive(ctx) {
		// Over HTTP the gate charges the refusal; a live operation was
		// admitted (its refusal charged) before this ran: it pays now.
		rl.takeRefused(l)
	}
	msg := "throttled: this operation costs more than your remaining budget; retry when enough has been restored (see extensions.cost.throttleStatus)"
	if cost > rl.cfg.Burst {
		msg = "this operation costs more than the largest budget a client can have; ask for less"
	}
	err := &gqlerror.Error{Message: msg, Extensions: map[string]any{"code": CodeThrottled}}
	return graphql.OneShot(&graphql.Response{
		Errors:     gqlerror.List{err},
		Extensions: map[string]any{"cost": costReport(nil, nil, info)},
	})
}

// throttle is the rate limit's view of a request that asks for requested
// points of a client with avail left.
func (rl *rateLimiter) throttle(requested int, avail float64) *throttleInfo {
	return &throttleInfo{requested: requested, status: throttleStatus{
		MaximumAvailable:   float64(rl.cfg.Burst),
		CurrentlyAvailable: avail,
		RestoreRate:        rl.cfg.Rate,
	}}
}
