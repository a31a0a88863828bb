package livehttp

import (
	"context"
	"net/http"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/acme/comments-gateway/auth"
)

// Deps is what the live transport needs of the gateway it serves, each
// a value or a function, so that it knows connections, operations and
// events, not the rate limit's buckets, the cost analysis or the
// dataloaders. Package resolvers builds it in NewHandler.
type Deps struct {
	// Auth authenticates the credential of a websocket's connection_init.
	Auth *auth.Authenticator
	// ClientOf names the client of a request, as the rate limit names it
	// ("" for one that is not limited): whom the connection caps and the
	// subscription budget count.
	ClientOf func(*http.Request) string
	// RequestTimeout bounds each query or mutation over a websocket and
	// each event's execution.
	RequestTimeout time.Duration
	// Complexity is an operation's complexity as the cost analysis
	// measured it (0: not measured): what a subscription costs its
	// client's budget, and each of its events its rate budget.
	Complexity func(*graphql.OperationContext) int
	// PerEvent gives each event's execution what it needs afresh (its
	// dataloaders); nil: nothing.
	PerEvent func(context.Context) context.Context
	// ObserveDelivery observes each delivery's latency from the event's
	// publication; nil: not observed.
	ObserveDelivery func(time.Duration)
	// Rate is the rate limit; nil: none.
	Rate RateLimit
}

// RateLimit is the rate limit as the live transport is charged by it.
type RateLimit interface {
	// Bucket returns the budget of the client of ctx's request; nil when
	// that client is not limited.
	Bucket(ctx context.Context) Bucket
	// ChargeEvent takes cost from client's budget for one event of its
	// subscription, or returns the error (THROTTLED) that ends the
	// subscription when the budget cannot pay.
	ChargeEvent(client string, cost int) *gqlerror.Error
}

// Bucket is one client's rate budget, as a websocket spends it.
type Bucket interface {
	// Refusal returns what one websocket operation owes when it runs no
	// operation: settled once unless its operation is charged.
	Refusal() Refusal
	// Spent reports whether the budget is below what a refusal costs: then
	// a subscribe is refused before anything of it is read.
	Spent() bool
	// Throttled returns the error (THROTTLED, with extensions.cost) that
	// refuses a subscribe of a client whose budget is spent.
	Throttled() *gqlerror.Error
}

// Refusal is the refused cost one websocket operation owes.
type Refusal interface {
	// Charged records that the operation pays its complexity instead.
	Charged()
	// Settle takes the refused cost, once, unless the operation was charged.
	Settle()
}
