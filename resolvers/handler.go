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
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"go.opentelemetry.io/otel/trace"

	"github.com/acme/comments-gateway/auth"
	"github.com/acme/comments-gateway/clientaddr"
	"github.com/acme/comments-gateway/graph"
	"github.com/acme/comments-gateway/internal/complexity"
	"github.com/acme/comments-gateway/internal/gqlexec"
	"github.com/acme/comments-gateway/internal/gqlhttp"
	"github.com/acme/comments-gateway/internal/policy"
	"github.com/acme/comments-gateway/live/livehttp"
	"github.com/acme/comments-gateway/metrics"
	"github.com/acme/comments-gateway/obs"
	"github.com/acme/comments-gateway/origin"
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
	Limits policy.Limits
	// RequestTimeout bounds each request's work, store calls included
	// (DefaultRequestTimeout when 0).
	RequestTimeout time.Duration
	// Metrics, when set, counts requests and their latency by operation.
	// (Wrap the store's Table with Metrics.Table to count store reads.)
	Metrics *metrics.Collectors
	// Auth, when it has credentials configured, makes mutations need one
	// (see policy.GuardMutations). Nil or empty leaves mutations open: the serve
	// command refuses that outside dev mode unless -open-mutations is given.
	Auth *auth.Authenticator
	// DisableIntrospection turns off __schema/__type and hides every "Did
	// you mean" suggestion of a schema name in error messages.
	DisableIntrospection bool
	// RateLimit limits each client by the cost of its operations (off when
	// its Rate is 0).
	RateLimit policy.RateLimit
	// OpenExplain lets anyone have extensions.plan (X-Explain: 1); else
	// only API keys and moderators may (policy.GuardExplain).
	OpenExplain bool
	// ClientAddr names an anonymous client by its address, for the rate
	// limit and the live connection caps; nil: the peer's address.
	ClientAddr *clientaddr.Rule
	// APQCacheSize is how many automatic persisted queries are kept
	// (DefaultAPQCacheSize when 0; negative turns APQ off); Caches.APQBytes
	// bounds their bytes.
	APQCacheSize int
	// Caches bounds the caches of query texts and their documents in bytes
	// (defaults for zero fields; see policy/querycache.go).
	Caches policy.QueryCaches
	// Trusted, when set, resolves trusted documents (persisted operations)
	// and with Trusted.Only refuses every other operation (package trusted).
	Trusted *trusted.Manifest
	// TracerProvider, when set, gives each operation and each resolver call a
	// span (package tracing); nil: no tracing.
	TracerProvider trace.TracerProvider
	// Live, when set, serves subscriptions over websocket and SSE (see
	// livehttp.New); nil: no subscription transports.
	Live *livehttp.Live
	// MicroCache caches hot GET responses in process (off when its TTL is 0;
	// see gqlhttp.Cache).
	MicroCache gqlhttp.MicroCacheConfig
	// Origins are the browser origins allowed cross-origin: CORS, websocket
	// upgrades and SSE streams (package origin); nil: same-origin only.
	Origins *origin.Policy
	// MaxRequestsInFlight bounds the GraphQL-over-HTTP requests of one
	// client served at once, each until its reply is written (policy/inflight.go;
	// policy.DefaultMaxRequestsInFlight when 0, negative: no bound).
	MaxRequestsInFlight int
	// Compress, when set, compresses replies as Accept-Encoding asks
	// (package httpcompress); nil: no compression.
	Compress gqlhttp.Middleware
	// BrowserPage, when set, is served to a browser opening the endpoint
	// (GraphiQL; gqlhttp.BrowserPage); nil: such a GET gets the usual 400.
	BrowserPage http.Handler
}

// DefaultAPQCacheSize is how many persisted queries the APQ cache keeps.
const DefaultAPQCacheSize = 1000

// NewHandler returns the /graphql handler: POST and GET (queries only),
// websocket and SSE, introspection (switchable), automatic persisted
// queries and trusted documents, access control on mutations, one error
// presenter, panic recovery, per-request dataloaders, extensions.cost on
// every response, and EXPLAIN (extensions.plan) on the X-Explain: 1
// header. Each request's operation and cost go on its log line (package
// obs).
//
// The whole chain a request passes is listed here, outermost first; a
// layer that is off is nil (gqlhttp.Chain skips it). gqlgen's server at its
// core is assembled in steps (newServer).
func NewHandler(cfg Config) http.Handler {
	cfg = cfg.withDefaults()
	root := &Resolver{Store: cfg.Store, Logger: cfg.Logger, Live: cfg.Live}
	es := gqlexec.PageQuery(graph.NewExecutableSchema(graph.Config{
		Resolvers:  root,
		Complexity: complexity.Root(),
	}), gqlexec.PageResolvers{Product: root.Query().Product, Comments: root.Product().Comments})
	rl := policy.NewRateLimiter(cfg.RateLimit) // nil: no rate limit
	// HTTP caching (gqlhttp.Cache): Cache-Control, ETag and 304, micro-cache.
	micro := cfg.MicroCache
	micro.Compress = cfg.Compress // a hit keeps its encoded copies
	hc := gqlhttp.NewCache(es.Schema(), micro, cfg.Metrics.Cache("micro"))
	return gqlhttp.Chain(
		// Every request: its id and log line (package obs; the server's
		// own, around every route, when there is one), its server span
		// (package tracing), its reply compressed, GraphiQL for a browser.
		func(h http.Handler) http.Handler { return obs.Middleware(cfg.Logger, h) },
		func(h http.Handler) http.Handler { return tracing.HTTP(h, cfg.TracerProvider) },
		cfg.Compress,
		gqlhttp.BrowserPage(cfg.BrowserPage),
		// Who asks: the origin rule (CORS; no websocket or SSE from an
		// origin outside the list), the client's address, its credentials
		// (an oversize one refused, policy/access.go), its requests in flight
		// (policy/inflight.go: refused before any body is read, a micro-cached
		// reply counted too).
		cfg.Origins.Handler,
		cfg.ClientAddr.Middleware,
		policy.Authenticate(cfg.Auth),
		policy.LimitInFlight(cfg.MaxRequestsInFlight),
		// The reply's HTTP caching, and the micro-cache's hits.
		hc.Middleware,
		// Websocket and SSE connections (package livehttp).
		cfg.Live.Middleware,
		// Refusals cost too (policy/ratelimit_refused.go); who may EXPLAIN
		// (policy/explain.go); the GraphQL-over-HTTP edge (package gqlhttp).
		rl.Gate,
		policy.GuardExplain(cfg.OpenExplain),
		gqlhttp.Edge(cfg.Limits.MaxBodyBytes),
		// The request's context (timeout, usage, EXPLAIN), then trusted
		// documents' ids resolved (package trusted).
		withRequestContext(cfg, rl),
		cfg.Trusted.Middleware,
	)(newServer(cfg, es, rl, hc))
}

// newServer assembles gqlgen's server in steps, each adding one kind of
// extension in the order it runs: transports, the checks of an operation
// before it runs, error handling, the operation's middleware, the
// response's.
func newServer(cfg Config, es graphql.ExecutableSchema, rl *policy.RateLimiter, hc *gqlhttp.Cache) *handler.Server {
	srv := handler.New(es)
	addTransports(srv, cfg, es.Schema(), rl)
	addOperationChecks(srv, cfg, es)
	handleErrors(srv, cfg)
	addOperationMiddleware(srv, cfg, rl)
	addResponseMiddleware(srv, hc)
	return srv
}

// withDefaults fills the zero fields that have a default. Every record
// logged with a request's context carries its requestId (obs.Handler).
func (cfg Config) withDefaults() Config {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if _, ok := cfg.Logger.Handler().(*obs.Handler); !ok {
		cfg.Logger = slog.New(obs.NewHandler(cfg.Logger.Handler()))
	}
	cfg.RequestTimeout = policy.PositiveOr(cfg.RequestTimeout, DefaultRequestTimeout)
	cfg.Limits = cfg.Limits.WithDefaults()
	cfg.Caches = cfg.Caches.WithDefaults()
	if cfg.MaxRequestsInFlight == 0 {
		cfg.MaxRequestsInFlight = policy.DefaultMaxRequestsInFlight
	}
	return cfg
}

// addTransports registers the transports: websocket and SSE (package
// livehttp, given what it needs of this handler: livewire.go), which must
// come before POST (SSE is a POST that accepts text/event-stream), then
// the strict GraphQL-over-HTTP ones (package gqlhttp).
func addTransports(srv *handler.Server, cfg Config, schema *ast.Schema, rl *policy.RateLimiter) {
	cfg.Live.Install(srv, liveDeps(cfg, rl))
	for _, t := range gqlhttp.Transports(schema) {
		srv.AddTransport(t)
	}
}

// addOperationChecks adds what checks an operation before it runs, in
// order: strict variables (package gqlhttp), introspection control
// (policy/introspection.go), trusted documents then APQ (one key space, the
// manifest first), the mutation guard (policy/access.go), and after every
// parameter mutator the token limit and the cost limit (policy/cost.go), which
// measure the final text; last, the mark of an admitted websocket
// operation (livehttp/proto.go). gqlgen's documents, the APQ texts and the cost
// analysis are cached within cfg.Caches' bytes (policy/querycache.go).
func addOperationChecks(srv *handler.Server, cfg Config, es graphql.ExecutableSchema) {
	srv.Use(gqlhttp.StrictVariables{Schema: es.Schema()})
	srv.SetQueryCache(policy.DocumentCache(cfg.Caches, cfg.Metrics))
	if cfg.DisableIntrospection {
		srv.SetDisableSuggestion(true)
		srv.Use(policy.NoIntrospection{})
	} else {
		srv.Use(extension.Introspection{})
	}
	if cfg.Trusted != nil {
		srv.Use(trusted.Extension{Manifest: cfg.Trusted})
	}
	if cfg.APQCacheSize >= 0 {
		n := cfg.APQCacheSize
		if n == 0 {
			n = DefaultAPQCacheSize
		}
		srv.Use(extension.AutomaticPersistedQuery{Cache: policy.APQCache(cfg.Caches, n, cfg.Metrics)})
	}
	srv.Use(policy.MutationGuard{Guard: policy.GuardMutations(cfg.Auth)})
	srv.SetParserTokenLimit(cfg.Limits.MaxTokens)
	srv.Use(policy.NewCostLimit(cfg.Limits, es, cfg.Caches, cfg.Metrics))
	srv.Use(livehttp.AdmittedOperations{}) // last: what reaches it passed every check
}

// handleErrors sets the one error presenter (ErrorPresenter behind the
// edge's, gqlhttp.EdgePresenter, each error it presents counted by code in the
// metrics, codes.go) and turns a resolver's panic into a logged INTERNAL
// error.
func handleErrors(srv *handler.Server, cfg Config) {
	srv.SetErrorPresenter(countedErrors(gqlhttp.EdgePresenter(ErrorPresenter(cfg.Logger), cfg.DisableIntrospection), cfg.Metrics))
	srv.SetRecoverFunc(func(ctx context.Context, p any) error {
		cfg.Logger.ErrorContext(ctx, "panic in resolver", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
		return store.Errorf(store.EINTERNAL, "internal error")
	})
}

// addOperationMiddleware adds what wraps a running operation, outermost
// first: its span (package tracing), its dataloaders (loaderplan.go), its
// name for the log and the metrics, and the rate limit (policy/ratelimit.go).
// Any field middleware (the span of a resolver with tracing on, the
// mutation guard on mutations) makes pages of comments take gqlgen's
// generated marshalling, which runs it on every field (gqlexec).
func addOperationMiddleware(srv *handler.Server, cfg Config, rl *policy.RateLimiter) {
	if cfg.TracerProvider != nil {
		srv.Use(tracing.NewExtension(cfg.TracerProvider))
	}
	srv.AroundOperations(withLoaders(cfg.Store, cfg.LoaderWait))
	srv.AroundOperations(nameOperation)
	if rl != nil {
		srv.AroundOperations(rl.Around)
	}
}

// nameOperation records the operation ("query Name", "mutation anonymous")
// in the request's info (the metrics' label) and on its log line, its name
// cut to maxLoggedName bytes (a client may send a name of a megabyte).
func nameOperation(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	info := requestInfoFrom(ctx)
	if info == nil {
		return next(ctx)
	}
	oc := graphql.GetOperationContext(ctx)
	name := oc.OperationName
	if name == "" && oc.Operation != nil {
		name = oc.Operation.Name
	}
	if name == "" {
		name = "anonymous"
	}
	name = gqlhttp.Clip(name, maxLoggedName)
	op := "query"
	if oc.Operation != nil {
		op = string(oc.Operation.Operation)
	}
	label := op + " " + name
	info.operation.Store(label)
	obs.Set(ctx, slog.String("operation", label))
	return next(ctx)
}

// addResponseMiddleware adds what shapes a response, outermost first: the
// capped error list (gqlhttp.CapErrors), the HTTP cache's view of the
// outcome (gqlhttp.Cache), and the extensions (cost and plan).
func addResponseMiddleware(srv *handler.Server, hc *gqlhttp.Cache) {
	srv.AroundResponses(gqlhttp.CapErrors)
	srv.AroundResponses(hc.RecordOutcome)
	srv.AroundResponses(addExtensions)
}

// addExtensions puts extensions.cost on every response of a request that
// counts its reads (policy/costreport.go), and extensions.plan on one that asked
// for EXPLAIN (policy/explain.go).
func addExtensions(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	resp := next(ctx)
	if resp == nil {
		return nil
	}
	if resp.Extensions == nil {
		resp.Extensions = map[string]any{}
	}
	if cost := policy.OperationCostReport(ctx); cost != nil {
		resp.Extensions["cost"] = cost
	}
	if plan, ok := policy.ExplainPlan(ctx); ok {
		resp.Extensions["plan"] = plan
	}
	return resp
}

// withRequestContext gives each request its context: the request timeout,
// a store.Usage for extensions.cost, the requestInfo the operation fills,
// the rate limit's client, and an EXPLAIN collector on X-Explain: 1. After
// next it observes the request's latency by operation.
func withRequestContext(cfg Config, rl *policy.RateLimiter) gqlhttp.Middleware {
	return func(next http.Handler) http.Handler { return requestContextOf(cfg, rl, next) }
}

// requestContextOf is withRequestContext's handler around next.
func requestContextOf(cfg Config, rl *policy.RateLimiter, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		start := time.Now()
		ctx, cancel := livehttp.RequestContext(req, cfg.RequestTimeout)
		defer cancel()
		ctx, _ = store.WithUsage(ctx)
		info := &requestInfo{}
		ctx = context.WithValue(ctx, requestInfoKey{}, info)
		ctx = rl.WithClient(ctx, req)
		if policy.WantsExplain(req) {
			ctx = policy.WithExplain(ctx)
		}
		next.ServeHTTP(w, req.WithContext(ctx))
		op, _ := info.operation.Load().(string)
		if op == "" {
			op = "invalid"
		}
		cfg.Metrics.ObserveRequest(op, time.Since(start))
	})
}

// maxLoggedName bounds an operation's name on its log line.
const maxLoggedName = 128

// DefaultRequestTimeout bounds one request's work.
const DefaultRequestTimeout = 10 * time.Second

// requestInfo carries what the operation middleware learns back to the
// HTTP handler (for the metrics' operation label).
type requestInfo struct {
	operation atomic.Value // string: "query Name"
}

type requestInfoKey struct{}

// requestInfoFrom returns the request's info (nil outside NewHandler's
// requests).
func requestInfoFrom(ctx context.Context) *requestInfo {
	info, _ := ctx.Value(requestInfoKey{}).(*requestInfo)
	return info
}

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
				code = gqlhttp.CodeInternal
			}
			if code == gqlhttp.CodeInternal || code == gqlhttp.CodeUnavailable {
				log.Log(ctx, gqlhttp.LogLevel(ctx, err), "store error", "err", err.Error(), "path", gerr.Path.String())
				setRequestID(ctx, gerr)
			}
			if code == gqlhttp.CodeInternal {
				gerr.Message = "internal error"
			} else {
				gerr.Message = se.Message
			}
			gqlhttp.SetCode(gerr, code)
			setArgument(gerr, se)
		case gerr.Extensions["code"] != nil:
		case isRequestError(err), isEntitiesError(gerr):
			gqlhttp.SetCode(gerr, "BAD_USER_INPUT")
		default:
			log.Log(ctx, gqlhttp.LogLevel(ctx, err), "unexpected error", "err", err.Error(), "path", gerr.Path.String())
			gerr.Message = "internal error"
			gqlhttp.SetCode(gerr, gqlhttp.CodeInternal)
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
