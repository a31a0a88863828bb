package policy

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"golang.org/x/time/rate"

	"github.com/acme/comments-gateway/live/livehttp"
)

// RateLimit limits each client by the cost of its operations: a token
// bucket per client (golang.org/x/time/rate) that holds Burst cost points
// and refills at Rate points a second; an operation takes its complexity
// (the number the complexity limit computes). Off when Rate is 0.
//
// A client is named by ClientID (client.go): the JWT's subject, or its
// address; requests with an API key (trusted services) are not limited.
type RateLimit struct {
	Rate  float64
	Burst int
	// RefusedCost is what a request that runs no operation costs
	// (DefaultRefusedCost when 0; see RateLimiter.Gate).
	RefusedCost int
}

// maxClients bounds the per-client buckets kept (least recently used go
// first; a forgotten client starts again with a full bucket).
const maxClients = 100_000

// RateLimiter is the rate limit of RateLimit: the clients' buckets. Gate
// charges refused requests, Around an operation's complexity, and Bucket
// and ChargeEvent the live transport's operations and events. A nil
// *RateLimiter limits nothing.
type RateLimiter struct {
	cfg     RateLimit
	mu      sync.Mutex
	clients *lru.LRU[*rate.Limiter]
}

// NewRateLimiter returns the rate limit of cfg; nil when cfg.Rate is 0.
func NewRateLimiter(cfg RateLimit) *RateLimiter {
	if cfg.Rate <= 0 {
		return nil
	}
	cfg.Burst = PositiveOr(cfg.Burst, int(cfg.Rate*10))
	return &RateLimiter{cfg: cfg, clients: lru.New[*rate.Limiter](maxClients)}
}

func (rl *RateLimiter) limiter(ctx context.Context, client string) *rate.Limiter {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	l, ok := rl.clients.Get(ctx, client)
	if !ok {
		l = rate.NewLimiter(rate.Limit(rl.cfg.Rate), rl.cfg.Burst)
		rl.clients.Add(ctx, client, l)
	}
	return l
}

// clientKey holds a request's *client (WithClient).
type clientKey struct{}

// client is the client of a request as the rate limit names it, and what
// the rate limit took of its operation (for extensions.cost).
type client struct {
	id       string
	throttle atomic.Pointer[throttleInfo] // set when Around took the operation's cost
}

// WithClient returns ctx with the client of r named for the rate limit
// (Around, Bucket, OperationCostReport); nil rl: ctx as it is.
func (rl *RateLimiter) WithClient(ctx context.Context, r *http.Request) context.Context {
	if rl == nil {
		return ctx
	}
	return context.WithValue(ctx, clientKey{}, &client{id: rl.clientOf(r)})
}

// clientFrom returns the client WithClient named (nil: none).
func clientFrom(ctx context.Context) *client {
	c, _ := ctx.Value(clientKey{}).(*client)
	return c
}

// clientOf names the client of a request for the rate limit ("" for one
// that is not limited).
func (rl *RateLimiter) clientOf(r *http.Request) string {
	return ClientID(r)
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

// Around takes the operation's cost from its client's bucket, or refuses
// the operation with THROTTLED before anything runs.
func (rl *RateLimiter) Around(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	c := clientFrom(ctx)
	m := costOf(graphql.GetOperationContext(ctx))
	if c == nil || c.id == "" || m == nil {
		return next(ctx)
	}
	cost := max(m.Complexity, 1)
	l := rl.limiter(ctx, c.id)
	now := time.Now()
	allowed := l.AllowN(now, cost)
	info := rl.throttle(cost, l.TokensAt(now))
	if allowed {
		markCharged(ctx)
		c.throttle.Store(info)
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
func (rl *RateLimiter) throttle(requested int, avail float64) *throttleInfo {
	return &throttleInfo{requested: requested, status: throttleStatus{
		MaximumAvailable:   float64(rl.cfg.Burst),
		CurrentlyAvailable: avail,
		RestoreRate:        rl.cfg.Rate,
	}}
}
