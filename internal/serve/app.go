package serve

import (
	"context"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"go.opentelemetry.io/otel/trace"

	"github.com/acme/comments-gateway/auth"
	"github.com/acme/comments-gateway/demo"
	"github.com/acme/comments-gateway/httpcompress"
	"github.com/acme/comments-gateway/metrics"
	"github.com/acme/comments-gateway/obs"
	"github.com/acme/comments-gateway/origin"
	"github.com/acme/comments-gateway/resolvers"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/table"
	"github.com/acme/comments-gateway/tracing"
	"github.com/acme/comments-gateway/trusted"
)

// app is one server's parts, built by newApp from a Config: what
// routes mounts and serve runs.
type app struct {
	cfg     *Config
	log     *slog.Logger
	tracer  trace.TracerProvider // nil: no tracing
	reg     *prometheus.Registry // this server's metrics
	metrics *metrics.Collectors
	raw     table.Table  // the backend itself, for the admin listener's /backup
	store   *store.Store // the domain over the counted table
	live    *liveRun     // subscriptions (an empty liveRun when they are off)
	// graphql is resolvers.NewHandler's configuration; routes adds the
	// GraphiQL page and builds the handler.
	graphql resolvers.Config
	// compress compresses replies (gzip, zstd) as Accept-Encoding asks
	// (package httpcompress).
	compress func(http.Handler) http.Handler
	closers  []func() // what close releases, last first
}

// newApp builds the server cfg describes: it checks the credentials, loads
// the trusted documents, starts tracing, opens the store (with the demo
// data when empty) and the admin listener, and builds the GraphQL handler.
// On error what it had started is released; else the caller calls close.
func newApp(ctx context.Context, cfg *Config, stderr io.Writer) (_ *app, err error) {
	logs := obs.NewLineBuffer(stderr, logBufferSize, logBufferDelay)
	a := &app{cfg: cfg, log: newLogger(logs, cfg.logFormat)}
	a.closers = append(a.closers, func() { _ = logs.Close() }) // closed last
	a.closers = append(a.closers, captureStdLog(a.log))
	defer func() {
		if err != nil {
			a.close()
		}
	}()
	authn, err := cfg.access.authenticator(ctx, a.log)
	if err != nil {
		return nil, err
	}
	docs, err := openTrusted(cfg.trustedPath, cfg.onlyTrusted, a.log)
	if err != nil {
		return nil, err
	}
	cfg.clientAddr.announce(a.log)
	if err := a.startTracing(ctx); err != nil {
		return nil, err
	}
	a.newMetrics()
	// Every store call of the server's own work (live follower, admin,
	// demo load) counts in the metrics; requests count through
	// accounted, serve's BaseContext.
	ctx = a.accounted(ctx)
	if err := a.openStore(ctx); err != nil {
		return nil, err
	}
	if err := a.startAdmin(ctx); err != nil {
		return nil, err
	}
	if cfg.demo {
		if err := loadDemoData(ctx, a.store, a.log); err != nil {
			return nil, err
		}
	}
	if a.compress, err = httpcompress.New(httpcompress.Config{}); err != nil {
		return nil, err
	}
	a.graphql = a.handlerConfig(authn, docs)
	return a, nil
}

// close releases what newApp started, last first.
func (a *app) close() {
	for i := len(a.closers) - 1; i >= 0; i-- {
		a.closers[i]()
	}
}

// The log's batching (obs.LineBuffer): a line reaches stderr within
// logBufferDelay, in one write with the lines around it.
const (
	logBufferSize  = 64 << 10
	logBufferDelay = 100 * time.Millisecond
)

// logHandlers are the -log-format values and the slog handlers they make.
var logHandlers = map[string]func(io.Writer) slog.Handler{
	"json": func(w io.Writer) slog.Handler { return slog.NewJSONHandler(w, nil) },
	"text": func(w io.Writer) slog.Handler { return slog.NewTextHandler(w, nil) },
}

// newLogger returns a logger writing records of format (a key of
// logHandlers, checked by Config.resolve) to w; records logged with
// a request's context carry its requestId.
func newLogger(w io.Writer, format string) *slog.Logger {
	return slog.New(obs.NewHandler(logHandlers[format](w)))
}

// captureStdLog sends what libraries print through the standard log
// package (gqlgen's transports, OpenTelemetry's error handler, an
// http.Server without ErrorLog) to l, at WARN, so that every line of the
// server's log has its format (JSON in production); it returns what
// restores the log package as it was.
func captureStdLog(l *slog.Logger) func() {
	w, flags, prev := log.Writer(), log.Flags(), slog.Default()
	level := slog.SetLogLoggerLevel(slog.LevelWarn)
	slog.SetDefault(l)
	return func() {
		slog.SetDefault(prev)
		slog.SetLogLoggerLevel(level)
		log.SetOutput(w)
		log.SetFlags(flags)
	}
}

// httpErrorLog is an http.Server's ErrorLog: its messages (a handler's
// panic, a malformed request line, a superfluous WriteHeader) as WARN
// records of l.
func httpErrorLog(l *slog.Logger) *log.Logger {
	return slog.NewLogLogger(l.Handler(), slog.LevelWarn)
}

// startTracing sets up the OpenTelemetry exporter when configured; close
// flushes the last spans (after the server's graceful shutdown).
func (a *app) startTracing(ctx context.Context) error {
	tp, shutdown, err := tracing.Setup(ctx, a.cfg.otlpEndpoint, a.cfg.getenv)
	if err != nil {
		return err
	}
	a.tracer = tp
	a.closers = append(a.closers, func() {
		fctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := shutdown(fctx); err != nil {
			a.log.Warn("flush traces", "err", err)
		}
	})
	if tp != nil {
		a.log.Info("tracing on", "exporter", "otlp/http")
	}
	return nil
}

// accounted returns ctx with the server's metrics as its store accountant
// (table.WithAccountant): what the server and its requests read counts in
// /metrics.
func (a *app) accounted(ctx context.Context) context.Context {
	return table.WithAccountant(ctx, a.metrics)
}

// newMetrics makes the server's own registry (the Go runtime's and the
// process's collectors and the gateway's), so that one process may run
// several servers (tests).
func (a *app) newMetrics() {
	a.reg = prometheus.NewRegistry()
	a.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	a.metrics = metrics.New(a.reg)
}

// openStore opens the backend -store names, counts its reads (metrics),
// makes the store over it, wired to the subscriptions' hub, and upgrades
// or refuses a table of an older design (upgradeStore) or whose indexes
// project fewer attributes than a page shows (checkProjections).
func (a *app) openStore(ctx context.Context) error {
	tbl, err := a.cfg.store.Open(ctx, a.metrics.DynamoDBCalls)
	if err != nil {
		return err
	}
	a.closers = append(a.closers, func() { tbl.Close() })
	a.raw = tbl
	a.live = a.cfg.live.newLive(a.cfg.store.Kind, a.log)
	a.store = store.New(tbl, append(a.live.stores, store.WithSizing(a.cfg.sizing), store.WithModeration(a.cfg.moderation))...)
	a.closers = append(a.closers, func() { // a no-op after serve's graceful shutdown
		sctx, cancel := context.WithTimeout(context.Background(), a.cfg.shutdownTimeout)
		defer cancel()
		a.live.shutdown(sctx, a.log)
	})
	if err := a.upgradeStore(ctx); err != nil {
		return err
	}
	if err := checkProjections(ctx, tbl, a.cfg.store); err != nil {
		return err
	}
	// A table not yet upgraded to the helpful twins is served, without the
	// MOST_HELPFUL order (its reads say why: UNAVAILABLE).
	if err := a.store.CheckHelpful(ctx); store.ErrorCode(err) == store.EUNAVAILABLE {
		a.log.Warn("serving without the MOST_HELPFUL order", "store", a.cfg.store.String(), "reason", store.ErrorMessage(err))
	} else if err != nil {
		return fmt.Errorf("checking the helpful indexes of %s: %w", a.cfg.store, err)
	}
	if a.cfg.moderation.Mode != store.ModerationOff {
		if err := a.store.CheckModeration(ctx); err != nil {
			return err
		}
	}
	return a.live.start(ctx, a.store, tbl, &a.cfg.live, a.metrics, a.log)
}

// startAdmin starts the admin listener (/backup, /export) with -admin-addr.
func (a *app) startAdmin(ctx context.Context) error {
	if a.cfg.adminAddr == "" {
		return nil
	}
	addr, err := serveAdmin(ctx, a.cfg.adminAddr, a.raw, a.store, a.log)
	if err != nil {
		return err
	}
	a.log.Info("admin endpoints", "addr", addr.String(), "paths", "/backup /export")
	return nil
}

// loadDemoData loads the demo data set into s when its table is empty.
func loadDemoData(ctx context.Context, s *store.Store, log *slog.Logger) error {
	empty, err := s.IsEmpty(ctx)
	if err != nil || !empty {
		return err
	}
	start := time.Now()
	if err := s.PutComments(ctx, demo.Default()); err != nil {
		return fmt.Errorf("loading demo data: %w", err)
	}
	res, err := s.RebuildStats(ctx, 4)
	if err != nil {
		return fmt.Errorf("counting demo data: %w", err)
	}
	log.Info("loaded demo data", "comments", res.Comments, "products", res.Products, "took", time.Since(start).Round(time.Millisecond).String())
	return nil
}

// handlerConfig is the GraphQL handler's configuration: the flags', with
// the credentials and trusted documents newApp loaded.
func (a *app) handlerConfig(authn *auth.Authenticator, docs *trusted.Manifest) resolvers.Config {
	c := a.cfg
	apq := c.apqCacheSize
	if apq == 0 {
		apq = -1 // off
	}
	return resolvers.Config{
		Store: a.store, Logger: a.log, Metrics: a.metrics, LoaderWait: c.loaderWait, Limits: c.limits,
		RequestTimeout: c.requestTimeout, RateLimit: c.rateLimit, ClientAddr: c.clientAddr.rule, Auth: authn,
		DisableIntrospection: !c.introspection, OpenExplain: c.openExplain, APQCacheSize: apq, TracerProvider: a.tracer,
		Trusted: docs, Live: a.live.conns, MicroCache: c.micro, Caches: c.caches, Origins: origin.New(c.corsOrigins),
		MaxRequestsInFlight: c.maxInFlight, Compress: a.compress,
	}
}
