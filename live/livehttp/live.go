package livehttp

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/acme/comments-gateway/internal/clientslots"
	"github.com/acme/comments-gateway/live"
	"github.com/acme/comments-gateway/store"
)

// Live defaults.
const (
	DefaultMaxSubscriptionsPerConn = 100
	DefaultMaxConnsPerClient       = 20
	DefaultKeepAlive               = 15 * time.Second
	DefaultLiveWriteTimeout        = 10 * time.Second
	DefaultMaxInFlightPerConn      = 16
	DefaultMaxInFlightPerClient    = 32
)

// Websocket close codes the gateway sends besides the protocol's own.
const (
	// CloseServiceRestart (1012): the server is shutting down; reconnect.
	CloseServiceRestart = 1012
	// CloseForbidden (4403): connection_init carried an invalid
	// credential, or none when subscriptions need one.
	CloseForbidden = 4403
)

// Config configures subscriptions.
type Config struct {
	// Hub delivers the events; nil turns subscriptions off (UNAVAILABLE).
	Hub *live.Hub
	// RequireAuth makes subscribing need a credential, as mutations do.
	RequireAuth bool
	// MaxSubscriptionsPerConn bounds the active subscriptions of one
	// websocket connection (DefaultMaxSubscriptionsPerConn when 0).
	MaxSubscriptionsPerConn int
	// MaxConnsPerClient bounds the open websocket and SSE connections of
	// one client, named as the rate limit names them (Deps.ClientOf)
	// (DefaultMaxConnsPerClient when 0); API keys are not limited.
	MaxConnsPerClient int
	// MaxInFlightPerConn bounds the queries and mutations executing at once
	// on one websocket connection (DefaultMaxInFlightPerConn when 0);
	// subscriptions have their own limit.
	MaxInFlightPerConn int
	// MaxInFlightPerClient bounds them over all the websocket connections
	// of one client, named as MaxConnsPerClient names it
	// (DefaultMaxInFlightPerClient when 0).
	MaxInFlightPerClient int
	// KeepAlive is the websocket ping and SSE keep-alive comment interval
	// (DefaultKeepAlive when 0).
	KeepAlive time.Duration
	// WriteTimeout closes a connection whose client accepts no data for
	// this long (DefaultLiveWriteTimeout when 0); a websocket's, after
	// between this and 1.25 times this long (its write deadline is set
	// again only when nearer than this: batch.go).
	WriteTimeout time.Duration
	// WriteInterval paces the sends of one connection: one per interval
	// on average, up to pacedBurst at once; events that come sooner leave
	// together when the next send is due (pace.go). 0: every event at
	// once (the serve command's default is DefaultLiveWriteInterval).
	WriteInterval time.Duration
	// SubscriptionBudget bounds the summed complexity of one client's
	// active subscriptions (DefaultSubscriptionBudget when 0; negative: no
	// bound; see budget.go).
	SubscriptionBudget int
}

// Live owns the live connections of a handler: their limits, and their
// shutdown. Make one with New; the handler that serves it calls Install.
type Live struct {
	cfg     Config
	mu      sync.Mutex
	conns   map[*liveConn]struct{}
	clients *clientslots.Slots // live connections by client
	running *clientslots.Slots // queries and mutations in flight by client (liveOperations)
	closing bool
	drained chan struct{} // closed when closing and no connection is left
	fanout  *fanout       // subscribers grouped by operation (fanout.go)
	deps    Deps          // what the gateway gives it (Install)
}

// New returns the live connection registry for cfg.
func New(cfg Config) *Live {
	cfg.MaxSubscriptionsPerConn = positiveOr(cfg.MaxSubscriptionsPerConn, DefaultMaxSubscriptionsPerConn)
	cfg.MaxConnsPerClient = positiveOr(cfg.MaxConnsPerClient, DefaultMaxConnsPerClient)
	cfg.MaxInFlightPerConn = positiveOr(cfg.MaxInFlightPerConn, DefaultMaxInFlightPerConn)
	cfg.MaxInFlightPerClient = positiveOr(cfg.MaxInFlightPerClient, DefaultMaxInFlightPerClient)
	cfg.KeepAlive = positiveOr(cfg.KeepAlive, DefaultKeepAlive)
	cfg.WriteTimeout = positiveOr(cfg.WriteTimeout, DefaultLiveWriteTimeout)
	l := &Live{cfg: cfg, conns: map[*liveConn]struct{}{}, drained: make(chan struct{}),
		clients: clientslots.New(cfg.MaxConnsPerClient), running: clientslots.New(cfg.MaxInFlightPerClient)}
	if cfg.Hub != nil {
		l.fanout = newFanout(cfg.Hub, nil)
		l.fanout.budget.limit = budgetLimit(cfg.SubscriptionBudget)
	}
	return l
}

// Install registers, with what deps gives, the websocket
// (graphql-transport-ws, and the legacy graphql-ws) and SSE (graphql-sse)
// transports of l (nil: none); they must come before POST, which would
// take an SSE request for a plain one.
func (l *Live) Install(srv *handler.Server, deps Deps) {
	if l == nil {
		return
	}
	l.deps = deps
	srv.AroundOperations(liveOperations(deps.RequestTimeout))
	if l.fanout != nil {
		l.fanout.observe = deps.ObserveDelivery
		l.fanout.eventTimeout = deps.RequestTimeout
		l.fanout.perEvent = deps.PerEvent
		l.fanout.complexity = deps.Complexity
		l.fanout.rate = deps.Rate
		srv.AroundOperations(l.fanout.around)
	}
	srv.AddTransport(transport.Websocket{
		Implementation:        liveWebsocket{l: l}, // the init timeout is wsGuard's
		InitFunc:              l.initFunc(deps.Auth),
		KeepAlivePingInterval: l.cfg.KeepAlive, // legacy graphql-ws "ka"
		PingPongInterval:      l.cfg.KeepAlive, // graphql-transport-ws ping/pong
	})
	srv.AddTransport(transport.SSE{KeepAlivePingInterval: l.cfg.KeepAlive})
}

// liveOperations gives each operation on a live connection what the HTTP
// handler gives each request: its own cost accounting and, for a query or
// mutation, the request timeout and a slot among the operations in flight
// of its connection and its client (refused with IN_FLIGHT_LIMIT_EXCEEDED
// when there is none). The slot is held until the result is written.
// (Its own dataloaders come from the handler, as every operation's do: a
// websocket lives long, and one cache for all its operations would serve
// stale reads.)
func liveOperations(timeout time.Duration) graphql.OperationMiddleware {
	return func(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
		c := liveConnFrom(ctx)
		if c == nil {
			return next(ctx)
		}
		ctx, _ = store.WithUsage(ctx)
		if op := graphql.GetOperationContext(ctx).Operation; op == nil || op.Operation == ast.Subscription {
			return next(ctx)
		}
		release, err := c.startOperation()
		if err != nil {
			return graphql.OneShot(&graphql.Response{Errors: gqlerror.List{err}})
		}
		ctx, cancel := context.WithTimeout(ctx, timeout)
		responses := next(ctx)
		return func(ctx context.Context) *graphql.Response {
			resp := responses(ctx)
			if resp == nil {
				cancel()
				release()
			}
			return resp
		}
	}
}

// IsLiveRequest reports whether r opens a websocket or an SSE stream.
func IsLiveRequest(r *http.Request) bool {
	return transport.Websocket{}.Supports(r) || transport.SSE{}.Supports(r)
}

// RequestContext returns the context of one request: bounded by timeout,
// except for a live stream, which lasts until the client or the server
// ends it.
func RequestContext(r *http.Request, timeout time.Duration) (context.Context, context.CancelFunc) {
	if IsLiveRequest(r) {
		return context.WithCancel(r.Context())
	}
	return context.WithTimeout(r.Context(), timeout)
}

// Shutdown closes every live connection cleanly, so that clients reconnect
// (websocket: close code 1012 "service restart"; SSE: the stream ends
// without `complete`), refuses new ones, and waits until they are gone or
// ctx ends.
func (l *Live) Shutdown(ctx context.Context) error {
	l.mu.Lock()
	if !l.closing {
		l.closing = true
		for c := range l.conns {
			c.shutdown()
		}
		if len(l.conns) == 0 {
			close(l.drained)
		}
	}
	l.mu.Unlock()
	select {
	case <-l.drained:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Conns returns the number of open live connections.
func (l *Live) Conns() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.conns)
}

// Subscriptions returns the number of active subscriptions (of all
// connections; a subscription counts from its subscribe until it ends).
func (l *Live) Subscriptions() int {
	if l.fanout == nil {
		return 0
	}
	return l.fanout.subscriptions()
}

// positiveOr returns v, or def when v is not positive (a setting left 0).
func positiveOr[T int | time.Duration](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}

// errLiveClosing is the refusal of a connection during shutdown.
var errLiveClosing = errors.New("the server is shutting down")
