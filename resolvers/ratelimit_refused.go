package resolvers

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultRefusedCost is what a request that runs no operation costs its
// client's rate budget, in points (see RateLimit.RefusedCost).
const DefaultRefusedCost = 10

// chargedKey holds a request's *charge (gate).
type chargedKey struct{}

// charge is what a request owes the rate limit: its operation's complexity
// (taken by around, which sets operation), or else the refused cost (taken
// once, by refused).
type charge struct {
	operation atomic.Bool
	once      sync.Once
	take      func()
}

// markCharged records that the request's operation was charged its cost.
func markCharged(ctx context.Context) {
	if c, _ := ctx.Value(chargedKey{}).(*charge); c != nil {
		c.operation.Store(true)
	}
}

// chargeRefused takes the refused cost of a request that runs no operation,
// once. The gate does it after the request; an answer that reaches the
// client before its handler returns (a 413 flushed before the rest of the
// body is drained) does it first, so that the client's next request finds
// the cost taken.
func chargeRefused(ctx context.Context) {
	if c, _ := ctx.Value(chargedKey{}).(*charge); c != nil && !c.operation.Load() {
		c.once.Do(c.take)
	}
}

// gate makes refusals cost: a client whose budget is below the refused cost
// gets 429 (THROTTLED, with Retry-After) before its body is read, and a
// request that ran no operation (a parse, validation or limit failure, an
// over-large body, an operation THROTTLED for its cost) is charged the
// refused cost once answered, so a client that only sends refused
// operations is throttled like any other. An operation that ran was charged
// its complexity by around instead. Nil rl: no gate.
func (rl *rateLimiter) gate(next http.Handler) http.Handler {
	if rl == nil {
		return next
	}
	cost := rl.refusedCost()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		client := rl.clientOf(r)
		if client == "" || r.Method == http.MethodOptions {
			next.ServeHTTP(w, r)
			return
		}
		l := rl.limiter(r.Context(), client)
		now := time.Now()
		if avail := l.TokensAt(now); avail < float64(cost) {
			rl.refuse(w, avail, float64(cost))
			return
		}
		// Taken even past the budget (the bucket goes into debt), so that
		// the next request waits for it.
		c := &charge{take: func() { l.ReserveN(time.Now(), cost) }}
		ctx := context.WithValue(r.Context(), chargedKey{}, c)
		next.ServeHTTP(w, r.WithContext(ctx))
		chargeRefused(ctx)
	})
}

// refusedCost is the configured cost of a refused request, at most the
// burst (a larger one could never be taken).
func (rl *rateLimiter) refusedCost() int {
	c := rl.cfg.RefusedCost
	if c <= 0 {
		c = DefaultRefusedCost
	}
	return min(c, rl.cfg.Burst)
}

// refuse answers 429 THROTTLED to a client with avail points of a needed
// need, saying when to retry.
func (rl *rateLimiter) refuse(w http.ResponseWriter, avail, need float64) {
	wait := math.Ceil((need - avail) / rl.cfg.Rate)
	status := throttleStatus{MaximumAvailable: float64(rl.cfg.Burst), CurrentlyAvailable: avail, RestoreRate: rl.cfg.Rate}
	body, _ := json.Marshal(map[string]any{
		"errors": []map[string]any{{
			"message":    "throttled: your rate budget is spent (refused requests cost " + strconv.FormatFloat(need, 'f', -1, 64) + " points too); retry after the Retry-After seconds",
			"extensions": map[string]any{"code": CodeThrottled},
		}},
		"extensions": map[string]any{"cost": map[string]any{"requestedQueryCost": need, "throttleStatus": status}},
	})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Retry-After", strconv.FormatFloat(max(wait, 1), 'f', 0, 64))
	w.WriteHeader(http.StatusTooManyRequests)
	_, _ = w.Write(body)
}
