package resolvers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"go.opentelemetry.io/otel/trace"

	"github.com/acme/comments-gateway/auth"
	"github.com/acme/comments-gateway/graph"
	"github.com/acme/comments-gateway/metrics"
	"github.com/acme/comments-gateway/obs"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/tracing"
	"github.com/acme/comments-gateway/trusted"
)

// Config configures the GraphQL handler.
type Config struct {
	Store  *store.Store
	Logger *slog.Logger
	// LoaderWait is the dataloaders' batching window (DefaultLoaderWait when 0).
	LoaderWait time.Duration
	// Limits bound each request (defaults for zero fields).
	Limits Limits
	// RequestTimeout bounds each request's work, store calls included
	// (DefaultRequestTimeout when 0).
	RequestTimeout time.Duration
	// Metrics, when set, counts requests and their latency by operation.
	// (Wrap the store's Table with Metrics.Table to count store reads.)
	Metrics *metrics.Collectors
	// Auth, when it has credentials configured, makes mutations need one
	// (see guardMutations). Nil or empty leaves mutations open: cmdServe
	// refuses that outside dev mode unless -open-mutations is given.
	Auth *auth.Authenticator
	// DisableIntrospection turns off __schema/__type and hides every "Did
	// you mean" suggestion of a schema name in error messages.
	DisableIntrospection bool
	// RateLimit limits each client by the cost of its operations (off when
	// its Rate is 0).
	RateLimit RateLimit
	// APQCacheSize is how many automatic persisted queries are kept
	// (DefaultAPQCacheSize when 0; negative turns APQ off).
	APQCacheSize int
	// Trusted, when set, resolves trusted documents (persisted operations)
	// and with Trusted.Only refuses every other operation (package trusted).
	Trusted *trusted.Manifest
	// TracerProvider, when set, gives each operation and each resolver call a
	// span (package tracing); nil: no tracing.
	TracerProvider trace.TracerProvider
	// Live, when set, serves subscriptions over websocket and SSE (see
	// NewLive); nil: no subscription transports.
	Live *Live
	// MicroCache caches hot GET responses in process (off when its TTL is 0;
	// see httpcache.go).
	MicroCache MicroCacheConfig
}

// DefaultAPQCacheSize is how many persisted queries the APQ cache keeps.
const DefaultAPQCacheSize = 1000

// NewHandler returns the GraphQL-over-HTTP handler: POST and GET (queries
// only), introspection (switchable), automatic persisted queries, access
// control on mutations, one error presenter, panic recovery, per-request
// dataloaders, extensions.cost on every response, and EXPLAIN
// (extensions.plan) on the X-Explain: 1 header. Each request's operation and
// cost go on its log line (package obs).
func NewHandler(cfg Config) http.Handler {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	// Every record logged with a request's context carries its requestId.
	if _, ok := cfg.Logger.Handler().(*obs.Handler); !ok {
		cfg.Logger = slog.New(obs.NewHandler(cfg.Logger.Handler()))
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	lim := cfg.Limits.withDefaults()
	r := &Resolver{Store: cfg.Store, Logger: cfg.Logger, Live: cfg.Live}
	es := graph.NewExecutableSchema(graph.Config{Resolvers: r, Complexity: complexity()})
	srv := handler.New(es)
	addLiveTransports(srv, cfg) // before POST: SSE is a POST that accepts text/event-stream
	// The HTTP edge: strict GraphQL-over-HTTP transports (transport.go),
	// strict variables (variables.go), capped error lists (httperrors.go).
	ops := operations{schema: es.Schema()}
	srv.AddTransport(transport.Options{})
	srv.AddTransport(getTransport{ops: ops})
	srv.AddTransport(postTransport{ops: ops})
	srv.Use(strictVariables{schema: es.Schema()})
	srv.AroundResponses(capErrors)
	srv.SetQueryCache(lru.New[*ast.QueryDocument](1000))
	if cfg.DisableIntrospection {
		srv.SetDisableSuggestion(true)
		srv.Use(noIntrospection{})
	} else {
		srv.Use(extension.Introspection{})
	}
	if cfg.Trusted != nil {
		srv.Use(trusted.Extension{Manifest: cfg.Trusted}) // before APQ: one key space, the manifest first
	}
	if cfg.APQCacheSize >= 0 {
		n := cfg.APQCacheSize
		if n == 0 {
			n = DefaultAPQCacheSize
		}
		srv.Use(extension.AutomaticPersistedQuery{Cache: lru.New[string](n)})
	}
	if cfg.TracerProvider != nil {
		srv.Use(tracing.NewExtension(cfg.TracerProvider))
	}
	srv.Use(mutationGuard{guardMutations(cfg.Auth, cfg.Store)})
	srv.SetParserTokenLimit(lim.MaxTokens)
	// After APQ and every other parameter mutator: it measures the final text.
	srv.Use(newCostLimit(lim, es))
	srv.SetErrorPresenter(edgePresenter(ErrorPresenter(cfg.Logger), cfg.DisableIntrospection))
	srv.SetRecoverFunc(func(ctx context.Context, p any) error {
		cfg.Logger.ErrorContext(ctx, "panic in resolver", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
		return store.Errorf(store.EINTERNAL, "internal error")
	})
	srv.AroundOperations(withLoaders(cfg.Store, cfg.LoaderWait))
	srv.AroundOperations(func(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
		if info, _ := ctx.Value(requestInfoKey{}).(*requestInfo); info != nil {
			oc := graphql.GetOperationContext(ctx)
			name := oc.OperationName
			if name == "" && oc.Operation != nil {
				name = oc.Operation.Name
			}
			if name == "" {
				name = "anonymous"
			}
			op := "query"
			if oc.Operation != nil {
				op = string(oc.Operation.Operation)
			}
			info.operation.Store(op + " " + name)
			obs.Set(ctx, slog.String("operation", op+" "+name))
		}
		return next(ctx)
	})
	// HTTP caching (httpcache.go): Cache-Control, ETag and 304, micro-cache.
	hc := newHTTPCache(graph.NewExecutableSchema(graph.Config{}).Schema(), cfg.MicroCache)
	srv.AroundResponses(hc.recordOutcome)
	rl := newRateLimiter(cfg.RateLimit)
	if rl != nil {
		srv.AroundOperations(rl.around)
	}
	srv.AroundResponses(func(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
		resp := next(ctx)
		if resp == nil {
			return nil
		}
		if resp.Extensions == nil {
			resp.Extensions = map[string]any{}
		}
		if u := store.UsageFrom(ctx); u != nil {
			cost := map[string]any{"itemsRead": u.ItemsRead(), "requests": u.Requests()}
			if m := costOf(graphql.GetOperationContext(ctx)); m != nil && m.Known {
				cost["complexity"] = m.Complexity
			}
			if rcu := u.ReadCapacity(); rcu > 0 {
				cost["readCapacityUnits"] = rcu
			}
			if ri, _ := ctx.Value(requestInfoKey{}).(*requestInfo); ri != nil {
				if t := ri.throttle.Load(); t != nil {
					cost["requestedQueryCost"] = t.requested
					cost["throttleStatus"] = t.status
				}
			}
			resp.Extensions["cost"] = cost
			obs.Set(ctx, slog.Int64("itemsRead", u.ItemsRead()), slog.Int64("storeRequests", u.Requests()))
			if rcu := u.ReadCapacity(); rcu > 0 {
				obs.Set(ctx, slog.Float64("readCapacityUnits", rcu))
			}
		}
		if e, _ := ctx.Value(explainKey{}).(*explain); e != nil {
			e.mu.Lock()
			entries := e.entries
			e.mu.Unlock()
			resp.Extensions["plan"] = entries
		}
		return resp
	})
	gqlHTTP := cfg.Trusted.Middleware(srv)
	var h http.Handler = httpEdge(lim.MaxBodyBytes, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		start := time.Now()
		ctx, cancel := requestContext(req, cfg.RequestTimeout)
		defer cancel()
		ctx, _ = store.WithUsage(ctx)
		info := &requestInfo{}
		ctx = context.WithValue(ctx, requestInfoKey{}, info)
		if rl != nil {
			ctx = context.WithValue(ctx, clientKey{}, rl.clientOf(req))
		}
		if req.Header.Get("X-Explain") == "1" {
			ctx, _ = withExplain(ctx)
		}
		gqlHTTP.ServeHTTP(w, req.WithContext(ctx))
		op, _ := info.operation.Load().(string)
		if op == "" {
			op = "invalid"
		}
		cfg.Metrics.ObserveRequest(op, time.Since(start))
	}))
	h = rl.gate(h) // refusals cost too (ratelimit_refused.go)
	h = cfg.Live.middleware(h)
	h = hc.wrap(h)
	if cfg.Auth.Enabled() {
		h = cfg.Auth.Middleware(h)
	}
	return h
}

// DefaultRequestTimeout bounds one request's work.
const DefaultRequestTimeout = 10 * time.Second

// requestInfo carries what the operation middleware learns back to the
// HTTP handler (for the metrics' operation label).
type requestInfo struct {
	operation atomic.Value                 // string: "query Name"
	throttle  atomic.Pointer[throttleInfo] // set when the rate limit took the operation's cost
}

type requestInfoKey struct{}

// ErrorPresenter maps every error to a GraphQL error with extensions.code:
// store errors by their code; gqlgen's own errors about the request (parse,
// validation, argument coercion) keep their code or get BAD_USER_INPUT;
// anything else is logged and shown as INTERNAL without detail.
func ErrorPresenter(log *slog.Logger) graphql.ErrorPresenterFunc {
	return func(ctx context.Context, err error) *gqlerror.Error {
		gerr := graphql.DefaultErrorPresenter(ctx, err)
		var se *store.Error
		switch {
		case errors.As(err, &se):
			code := storeCodes[se.Code]
			if code == "" {
				code = CodeInternal
			}
			if code == CodeInternal || code == CodeUnavailable {
				log.Log(ctx, logLevelOf(ctx, err), "store error", "err", err.Error(), "path", gerr.Path.String())
				setRequestID(ctx, gerr)
			}
			if code == CodeInternal {
				gerr.Message = "internal error"
			} else {
				gerr.Message = se.Message
			}
			setCode(gerr, code)
			setArgument(gerr, se)
		case gerr.Extensions["code"] != nil:
		case isRequestError(err), isEntitiesError(gerr):
			setCode(gerr, "BAD_USER_INPUT")
		default:
			log.Log(ctx, logLevelOf(ctx, err), "unexpected error", "err", err.Error(), "path", gerr.Path.String())
			gerr.Message = "internal error"
			setCode(gerr, CodeInternal)
			setRequestID(ctx, gerr)
		}
		return gerr
	}
}

// isRequestError reports whether err is gqlgen's own error about the request
// (a *gqlerror.Error built from a message, e.g. by validation), as opposed to
// an error a resolver returned, which gqlgen wraps with its path (Err set).
func isRequestError(err error) bool {
	var g *gqlerror.Error
	return errors.As(err, &g) && g.Err == nil
}

// setRequestID puts the request's id (see package obs) in an INTERNAL or
// UNAVAILABLE error's extensions.requestId, so a client can quote it and an operator
// find the logged cause.
func setRequestID(ctx context.Context, e *gqlerror.Error) {
	if id := obs.RequestID(ctx); id != "" {
		if e.Extensions == nil {
			e.Extensions = map[string]any{}
		}
		e.Extensions["requestId"] = id
	}
}

// isEntitiesError reports whether e is about a federation representation
// (the generated _entities code reports a malformed one, such as an unknown
// __typename or a missing id, with a plain error).
func isEntitiesError(e *gqlerror.Error) bool {
	return len(e.Path) > 0 && e.Path[0] == ast.PathName("_entities")
}

// setArgument puts, on an error about an argument, its name in
// extensions.argument, and for a number out of range the bounds and the
// value given in min, max and got (as GitHub's API does).
func setArgument(e *gqlerror.Error, se *store.Error) {
	if se.Code != store.EINVALID || se.Argument == "" {
		return
	}
	e.Extensions["argument"] = se.Argument
	if r := se.Range; r != nil {
		e.Extensions["min"], e.Extensions["max"], e.Extensions["got"] = r.Min, r.Max, r.Got
	}
}

func setCode(e *gqlerror.Error, code string) {
	if e.Extensions == nil {
		e.Extensions = map[string]any{}
	}
	e.Extensions["code"] = code
}
