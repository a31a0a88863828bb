package policy

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/acme/comments-gateway/internal/gqlhttp"
)

// DefaultRefusedCost is what a request that runs no operation costs its
// client's rate budget, in points (see RateLimit.RefusedCost).
const DefaultRefusedCost = 10

// refusal is the one rule by which a refusal costs, over HTTP and over a
// websocket alike: what one request (the gate's) or one websocket
// operation (the guard's, per subscribe) owes the rate limit when it runs
// no operation, the refused cost, taken once by settle unless its
// operation went on to be charged its complexity (charged).
type refusal struct {
	operation atomic.Bool // charged: its operation pays its complexity
	once      sync.Once
	take      func()
}

// newRefusal returns the refusal of a request or operation of the client
// whose bucket is l.
func (rl *RateLimiter) newRefusal(l *rate.Limiter) *refusal {
	return &refusal{take: func() { rl.takeRefused(l) }}
}

// takeRefused takes the refused cost from l, even past the budget (the
// bucket goes into debt), so that the next request waits for it.
func (rl *RateLimiter) takeRefused(l *rate.Limiter) {
	l.ReserveN(time.Now(), rl.refusedCost())
}

// spent reports whether l has less than the refused cost left (avail):
// then even a refusal cannot be paid, and the client is refused before
// anything of its request is read.
func (rl *RateLimiter) spent(l *rate.Limiter) (avail float64, spent bool) {
	avail = l.TokensAt(time.Now())
	return avail, avail < float64(rl.refusedCost())
}

// Charged records that the operation is charged its complexity instead
// of the refused cost. A nil refusal (no rate limit) records nothing.
func (c *refusal) Charged() {
	if c != nil {
		c.operation.Store(true)
	}
}

// Settle takes the refused cost, once, unless the operation was charged.
// The gate settles after the request; an answer that reaches the client
// before its handler returns (a 413 flushed before the rest of the body is
// drained: gqlhttp.BeforeEarlyReply) settles first, so that the client's
// next request finds the cost taken; the websocket guard settles a
// subscribe when it reads the next message (gqlgen handles a message
// before it reads the next).
func (c *refusal) Settle() {
	if c != nil && !c.operation.Load() {
		c.once.Do(c.take)
	}
}

// refusalKey holds a request's *refusal (Gate).
type refusalKey struct{}

// markCharged records that the request's operation was charged its cost.
func markCharged(ctx context.Context) {
	c, _ := ctx.Value(refusalKey{}).(*refusal)
	c.Charged()
}

// Gate makes refusals cost: a client whose budget is below the refused cost
// gets 429 (THROTTLED, with Retry-After) before its body is read, and a
// request that ran no operation (a parse, validation or limit failure, an
// over-large body, an operation THROTTLED for its cost) is charged the
// refused cost once answered, so a client that only sends refused
// operations is throttled like any other. An operation that ran was charged
// its complexity by Around instead. Nil rl: no gate.
func (rl *RateLimiter) Gate(next http.Handler) http.Handler {
	if rl == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		client := rl.clientOf(r)
		if client == "" || r.Method == http.MethodOptions {
			next.ServeHTTP(w, r)
			return
		}
		l := rl.limiter(r.Context(), client)
		if avail, spent := rl.spent(l); spent {
			rl.refuse(w, avail, rl.refusedCost())
			return
		}
		c := rl.newRefusal(l)
		ctx := gqlhttp.BeforeEarlyReply(context.WithValue(r.Context(), refusalKey{}, c), c.Settle)
		next.ServeHTTP(w, r.WithContext(ctx))
		c.Settle()
	})
}

// refusedCost is the configured cost of a refused request, at most the
// burst (a larger one could never be taken).
func (rl *RateLimiter) refusedCost() int {
	return min(PositiveOr(rl.cfg.RefusedCost, DefaultRefusedCost), rl.cfg.Burst)
}

// refuse answers 429 THROTTLED to a client with avail points of a needed
// need, saying when to retry.
func (rl *RateLimiter) refuse(w http.ResponseWriter, avail float64, need int) {
	wait := math.Ceil((float64(need) - avail) / rl.cfg.Rate)
	body, _ := json.Marshal(map[string]any{
		"errors": []map[string]any{{
			"message":    "throttled: your rate budget is spent (refused requests cost " + strconv.Itoa(need) + " points too); retry after the Retry-After seconds",
			"extensions": map[string]any{"code": CodeThrottled},
		}},
		"extensions": map[string]any{"cost": costReport(nil, nil, rl.throttle(need, avail))},
	})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Retry-After", strconv.FormatFloat(max(wait, 1), 'f', 0, 64))
	w.WriteHeader(http.StatusTooManyRequests)
	_, _ = w.Write(body)
}
