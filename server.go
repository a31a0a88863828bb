package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/rs/cors"

	"github.com/acme/comments-gateway/auth"
	"github.com/acme/comments-gateway/demo"
	"github.com/acme/comments-gateway/jsonl"
	"github.com/acme/comments-gateway/metrics"
	"github.com/acme/comments-gateway/obs"
	"github.com/acme/comments-gateway/resolvers"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/bolt"
	"github.com/acme/comments-gateway/store/dynamo"
	"github.com/acme/comments-gateway/tracing"
	"github.com/acme/comments-gateway/web"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

// run is the whole program: main only adds signals and the exit code.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	runCmd := func(args []string) error { return run(ctx, args, getenv, stdin, stdout, stderr) }
	if handled, err := helpCommand(args, stdout, stderr, runCmd); handled {
		return err
	}
	cmd, named := "serve", false
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args, named = args[0], args[1:], true
	}
	switch cmd {
	case "serve":
		// Without a command word (`go run .`) the gateway runs in dev mode;
		// `serve` named explicitly defaults to production mode.
		return cmdServe(ctx, args, !named, getenv, stdout, stderr)
	case "import":
		return cmdImport(ctx, args, getenv, stdin, stdout, stderr)
	case "seed":
		return cmdSeed(ctx, args, getenv, stdout, stderr)
	case "create-table":
		return cmdCreateTable(ctx, args, getenv, stdout, stderr)
	case "rebuild-stats":
		return cmdRebuildStats(ctx, args, getenv, stdout, stderr)
	case "export":
		return cmdExport(ctx, args, getenv, stdout, stderr)
	case "backup":
		return cmdBackup(ctx, args, getenv, stdout, stderr)
	default:
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("unknown command %q", cmd)
	}
}

// newFlags returns a flag set for cmd whose flags take their defaults from
// COMMENTS_<FLAG> environment variables (see parse).
func newFlags(cmd string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	setUsage(fs)
	return fs
}

// parse applies defaults < environment < flags.
func parse(fs *flag.FlagSet, args []string, getenv func(string) string) error {
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		env := "COMMENTS_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		f.Usage += " (env " + env + ")"
		if v := getenv(env); v != "" && err == nil {
			if e := fs.Set(f.Name, v); e != nil {
				err = fmt.Errorf("%s=%q: %v", env, v, e)
			}
		}
	})
	if err != nil {
		return err
	}
	return fs.Parse(args)
}

const defaultStore = "bolt:comments.db"

// parseStoreSpec splits a -store spec: bolt:PATH or dynamodb:TABLE.
func parseStoreSpec(spec string) (kind, arg string, err error) {
	kind, arg, ok := strings.Cut(spec, ":")
	if !ok || arg == "" {
		return "", "", fmt.Errorf("-store %q: want bolt:PATH or dynamodb:TABLE", spec)
	}
	if kind != "bolt" && kind != "dynamodb" {
		return "", "", fmt.Errorf("-store %q: unknown store %q (want bolt or dynamodb)", spec, kind)
	}
	return kind, arg, nil
}

// openTable opens the Table a -store spec names: bolt:PATH or dynamodb:TABLE.
func openTable(ctx context.Context, spec string) (store.Table, error) {
	kind, arg, err := parseStoreSpec(spec)
	if err != nil {
		return nil, err
	}
	if kind == "bolt" {
		return bolt.Open(arg)
	}
	return dynamo.Open(ctx, arg)
}

// newLogger returns a logger writing text or JSON records to w; records
// logged with a request's context carry its requestId.
func newLogger(w io.Writer, format string) (*slog.Logger, error) {
	switch format {
	case "json":
		return slog.New(obs.NewHandler(slog.NewJSONHandler(w, nil))), nil
	case "text":
		return slog.New(obs.NewHandler(slog.NewTextHandler(w, nil))), nil
	}
	return nil, fmt.Errorf("-log-format %q: want text or json", format)
}

// modeBool is a boolean flag whose default depends on -dev: it remembers
// whether it was set (by the environment or the command line).
type modeBool struct {
	v, set bool
}

func (b *modeBool) String() string {
	if b == nil {
		return "false"
	}
	return strconv.FormatBool(b.v)
}
func (b *modeBool) IsBoolFlag() bool { return true }
func (b *modeBool) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	b.v, b.set = v, true
	return nil
}

// or returns the flag's value when set, else def.
func (b *modeBool) or(def bool) bool {
	if b.set {
		return b.v
	}
	return def
}

// accessConfig is the serve flags about who may do what.
type accessConfig struct {
	dev, open                 bool
	apiKeys, apiKeysFile      string
	jwksURL, issuer, audience string
	rolesClaim                string
}

// authenticator builds the mutations' credentials from the flags, and
// decides whether serving with open mutations is allowed: in dev mode
// (with a warning), or with -open-mutations; never silently in production.
func (c accessConfig) authenticator(ctx context.Context, log *slog.Logger) (*auth.Authenticator, error) {
	a := &auth.Authenticator{Keys: &auth.KeySet{}}
	if c.apiKeys != "" {
		ks, err := auth.ParseKeyHashes(c.apiKeys)
		if err != nil {
			return nil, fmt.Errorf("-api-keys: %w", err)
		}
		a.Keys.Add(ks)
	}
	if c.apiKeysFile != "" {
		ks, err := auth.LoadKeyHashes(c.apiKeysFile)
		if err != nil {
			return nil, fmt.Errorf("-api-keys-file: %w", err)
		}
		a.Keys.Add(ks)
	}
	if c.jwksURL == "" && (c.issuer != "" || c.audience != "") {
		return nil, errors.New("-jwt-issuer and -jwt-audience need -jwks-url")
	}
	if c.jwksURL != "" && (c.issuer == "" || c.audience == "") {
		// Without both checks any token the IdP signs, for any application, would do.
		return nil, errors.New("-jwks-url needs -jwt-issuer and -jwt-audience: without them a token the identity provider issued for any other application would be accepted")
	}
	if a.Keys.Len() > 0 || c.jwksURL != "" {
		if c.open {
			return nil, errors.New("-open-mutations contradicts -api-keys/-api-keys-file/-jwks-url: drop one")
		}
	} else {
		switch {
		case c.open:
			log.Warn("WARNING: mutations are open to anyone (-open-mutations): no credential is checked")
		case c.dev:
			log.Warn("WARNING: dev mode: mutations are open to anyone; configure -api-keys or -jwks-url, and run `serve` (production mode), before exposing this server")
		default:
			return nil, errors.New("serve: mutations would be open to anyone: configure -api-keys, -api-keys-file or -jwks-url, or pass -open-mutations to allow it explicitly (or -dev for dev mode)")
		}
		return nil, nil
	}
	if c.jwksURL != "" {
		j, err := auth.NewJWKS(ctx, auth.JWTConfig{JWKSURL: c.jwksURL, Issuer: c.issuer, Audience: c.audience, RolesClaim: c.rolesClaim})
		if err != nil {
			return nil, err
		}
		a.JWT = j
	}
	log.Info("mutations need a credential", "apiKeys", a.Keys.Len(), "jwks", c.jwksURL != "")
	return a, nil
}

// splitList splits a comma-separated flag value, dropping blanks.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// withCORS answers CORS for the allowed origins (github.com/rs/cors); no
// origins, no CORS headers at all.
func withCORS(origins []string, h http.Handler) http.Handler {
	if len(origins) == 0 {
		return h
	}
	return cors.New(cors.Options{
		AllowedOrigins: origins,
		AllowedMethods: []string{http.MethodGet, http.MethodPost},
		AllowedHeaders: []string{"Content-Type", "Accept", "Authorization", "X-API-Key", "X-Request-Id", "X-Explain",
			// What Apollo Client and urql send (CSRF prevention, operation name, client awareness).
			"Apollo-Require-Preflight", "X-Apollo-Operation-Name", "Apollographql-Client-Name", "Apollographql-Client-Version"},
		ExposedHeaders: []string{"X-Request-Id"},
		MaxAge:         600,
	}).Handler(h)
}

func cmdServe(ctx context.Context, args []string, devDefault bool, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlags("serve", stderr)
	var acc accessConfig
	fs.BoolVar(&acc.dev, "dev", devDefault, "dev mode: open mutations allowed (with a warning), introspection and GraphiQL on, text logs (default true without a command word, false for the serve command)")
	fs.BoolVar(&acc.open, "open-mutations", false, "allow mutations without any credential outside dev mode")
	fs.StringVar(&acc.apiKeys, "api-keys", "", "comma-separated SHA-256 hex hashes of the accepted API keys")
	fs.StringVar(&acc.apiKeysFile, "api-keys-file", "", "file of API key hashes, one a line (# comments)")
	fs.StringVar(&acc.jwksURL, "jwks-url", "", "JWKS URL: accept JWT bearer tokens signed by its keys")
	fs.StringVar(&acc.issuer, "jwt-issuer", "", "required JWT iss (with -jwks-url)")
	fs.StringVar(&acc.audience, "jwt-audience", "", "required JWT aud (with -jwks-url)")
	fs.StringVar(&acc.rolesClaim, "jwt-roles-claim", auth.DefaultRolesClaim, "JWT claim listing roles; \""+auth.ModeratorRole+"\" may change anyone's comments")
	var introspection, graphiql modeBool
	fs.Var(&introspection, "introspection", "allow introspection (default: on in dev mode); off also hides field suggestions")
	fs.Var(&graphiql, "graphiql", "serve GraphiQL at / (default: on in dev mode)")
	corsOrigins := fs.String("cors-origins", "", "comma-separated origins allowed by CORS on /graphql (e.g. https://shop.example.com, https://*.example.com); empty: no CORS headers")
	apqSize := fs.Int("apq-cache-size", resolvers.DefaultAPQCacheSize, "automatic persisted queries kept in the LRU cache; 0 turns APQ off")
	addr := fs.String("addr", "127.0.0.1:8080", "listen address (host:port; port 0 picks a free one)")
	spec := fs.String("store", defaultStore, "store: bolt:PATH or dynamodb:TABLE")
	loadDemo := fs.Bool("demo", true, "load the demo data set when the store is empty")
	logFormat := fs.String("log-format", "", "log format: text or json (default: text in dev mode, json otherwise)")
	shutdown := fs.Duration("shutdown-timeout", 10*time.Second, "how long in-flight requests may finish on SIGINT/SIGTERM")
	loaderWait := fs.Duration("loader-wait", resolvers.DefaultLoaderWait, "how long a dataloader collects keys before its one batched read")
	mergeSizing := fs.String("merge-sizing", "balanced", "how a merge of several ratings sizes its queries: lean (fewest items read, most refill rounds), balanced, or few-rounds (fewest refill round trips)")
	var lim resolvers.Limits
	fs.Int64Var(&lim.MaxBodyBytes, "max-body-bytes", resolvers.DefaultMaxBodyBytes, "largest request body; larger ones get 413")
	fs.IntVar(&lim.MaxComplexity, "max-complexity", resolvers.DefaultMaxComplexity, "largest query complexity (page sizes multiply their selections)")
	fs.IntVar(&lim.MaxDepth, "max-depth", resolvers.DefaultMaxDepth, "deepest selection nesting")
	fs.IntVar(&lim.MaxAliases, "max-aliases", resolvers.DefaultMaxAliases, "most aliased fields in one operation")
	fs.IntVar(&lim.MaxTokens, "max-tokens", resolvers.DefaultMaxTokens, "most lexer tokens in one query")
	fs.IntVar(&lim.MaxSelections, "max-selections", resolvers.DefaultMaxSelections, "most fields in one document, fragments expanded")
	fs.IntVar(&lim.MaxEntities, "max-entities", resolvers.DefaultMaxEntities, "most _entities representations in one request")
	reqTimeout := fs.Duration("request-timeout", resolvers.DefaultRequestTimeout, "bound on one request's work, store calls included")
	readTimeout := fs.Duration("read-timeout", 15*time.Second, "how long a client may take to send a whole request, body included; a body that stalls past it gets 408")
	var rateLimit resolvers.RateLimit
	fs.Float64Var(&rateLimit.Rate, "rate-limit", 0, "per-client budget restored per second, in query-complexity points (0: no rate limit)")
	fs.IntVar(&rateLimit.Burst, "rate-burst", 0, "per-client budget at most, in points (default 10 × -rate-limit)")
	fs.IntVar(&rateLimit.RefusedCost, "rate-refused-cost", resolvers.DefaultRefusedCost, "points a request that runs no operation (a parse, validation or limit failure) costs; a client with fewer left gets 429")
	fs.BoolVar(&rateLimit.TrustForwardedFor, "trust-forwarded-for", false, "identify anonymous clients by the first X-Forwarded-For address (behind a CDN or load balancer)")
	trustedPath := fs.String("trusted-documents", "", "JSON manifest of trusted documents, id → document (GraphQL Codegen's persisted-documents.json, Relay's persisted_queries.json); clients send documentId or extensions.persistedQuery.sha256Hash")
	onlyTrusted := fs.Bool("only-trusted-documents", false, "refuse every operation that is not in the -trusted-documents manifest")
	metricsAddr := fs.String("metrics-addr", "", "serve /metrics (and pprof with -pprof) on this separate listener, e.g. 127.0.0.1:9090; without it /metrics is served on -addr in dev mode only")
	withPprof := fs.Bool("pprof", false, "serve Go's profiles at /debug/pprof/ on the -metrics-addr listener")
	var lf liveFlags
	lf.register(fs)
	micro := resolvers.MicroCacheConfig{MaxBytes: resolvers.DefaultMicroCacheBytes}
	fs.DurationVar(&micro.TTL, "micro-cache-ttl", 0, "serve public GET query responses from an in-process cache for this long, e.g. 500ms (0: off)")
	fs.Var((*byteSize)(&micro.MaxBytes), "micro-cache-bytes", "bound on the micro-cache's memory, e.g. 64MB or 64MiB (least recently used entries are evicted)")
	adminAddr := fs.String("admin-addr", "", "serve GET /backup and /export (unauthenticated: bind to loopback) on this address; empty: off")
	otlpEndpoint := fs.String("otlp-endpoint", "", "export OpenTelemetry traces over OTLP/HTTP to this URL (e.g. http://localhost:4318); empty: off unless OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set")
	if err := parse(fs, args, getenv); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("serve: unexpected argument %q", fs.Arg(0))
	}
	if *logFormat == "" {
		*logFormat = "json"
		if acc.dev {
			*logFormat = "text"
		}
	}
	log, err := newLogger(stderr, *logFormat)
	if err != nil {
		return err
	}
	if _, _, err := parseStoreSpec(*spec); err != nil {
		return err
	}
	if *readTimeout <= 0 {
		return fmt.Errorf("-read-timeout %s: want a positive duration (a stalled body would hold its connection forever)", *readTimeout)
	}
	if micro.TTL < 0 || micro.MaxBytes <= 0 {
		return fmt.Errorf("-micro-cache-ttl %v, -micro-cache-bytes %d: want a TTL of 0 (off) or more and a positive size", micro.TTL, micro.MaxBytes)
	}
	if *apqSize < 0 {
		return fmt.Errorf("-apq-cache-size %d: want 0 (off) or more", *apqSize)
	}
	if *withPprof && *metricsAddr == "" {
		return errors.New("-pprof needs -metrics-addr: profiles are served on the metrics listener only, never on the API's")
	}
	sizing, ok := store.Sizings[*mergeSizing]
	if !ok {
		return fmt.Errorf("-merge-sizing %q: want lean, balanced or few-rounds", *mergeSizing)
	}
	authn, err := acc.authenticator(ctx, log)
	if err != nil {
		return err
	}
	trustedDocs, err := openTrusted(*trustedPath, *onlyTrusted, log)
	if err != nil {
		return err
	}
	tp, shutdownTracing, err := tracing.Setup(ctx, *otlpEndpoint, getenv)
	if err != nil {
		return err
	}
	defer func() {
		// Flush the last spans (after the server's graceful shutdown).
		fctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := shutdownTracing(fctx); err != nil {
			log.Warn("flush traces", "err", err)
		}
	}()
	if tp != nil {
		log.Info("tracing on", "exporter", "otlp/http")
	}
	tbl, err := openTable(ctx, *spec)
	if err != nil {
		return err
	}
	defer tbl.Close()
	// A registry per server (the Go runtime's and the process's collectors
	// and ours), so that one process may run several servers (tests).
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m := metrics.New(reg)
	if micro.TTL > 0 {
		micro.Metrics = metrics.NewMicroCache(reg)
	}
	if d, ok := tbl.(*dynamo.Table); ok {
		// extensions.cost reports the read capacity DynamoDB says each
		// request consumed.
		d.OnCall = func(ctx context.Context, c dynamo.Call) {
			if u := metrics.UsageFrom(ctx); u != nil && c.Err == nil && isRead(c.Op) {
				u.AddCapacity(c.Capacity)
			}
		}
	}
	raw := tbl
	tbl = m.Table(tbl)
	kind, _, _ := parseStoreSpec(*spec)
	lr := lf.newLive(kind, rateLimit.TrustForwardedFor, log)
	s := store.New(tbl, append(lr.stores, store.WithSizing(sizing))...)
	if err := lr.start(ctx, s, raw, &lf, log); err != nil {
		return err
	}
	if *adminAddr != "" {
		a, err := serveAdmin(ctx, *adminAddr, raw, s, log)
		if err != nil {
			return err
		}
		log.Info("admin endpoints", "addr", a.String(), "paths", "/backup /export")
	}
	if *loadDemo {
		if err := loadDemoData(ctx, s, log); err != nil {
			return err
		}
	}

	mux := http.NewServeMux()
	apq := *apqSize
	if apq == 0 {
		apq = -1 // off
	}
	gql := resolvers.NewHandler(resolvers.Config{
		Store: s, Logger: log, Metrics: m, LoaderWait: *loaderWait, Limits: lim, RequestTimeout: *reqTimeout, RateLimit: rateLimit,
		Auth: authn, DisableIntrospection: !introspection.or(acc.dev), APQCacheSize: apq,
		TracerProvider: tp, Trusted: trustedDocs, Live: lr.conns, MicroCache: micro,
	})
	mux.Handle("/graphql", tracing.HTTP(withCORS(splitList(*corsOrigins), gql), tp))
	mux.Handle("/graphql/", resolvers.NotFoundHandler("/graphql"))
	if graphiql.or(acc.dev) {
		web.Register(mux, "/graphql") // GraphiQL at /, its assets, and /demo
	}
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok\n") })
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if err := s.Ping(ctx); err != nil {
			log.WarnContext(ctx, "not ready", "err", err)
			http.Error(w, "store unreachable", http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "ok\n")
	})
	metricsHandler := promhttp.InstrumentMetricHandler(reg, promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	stopMetrics, err := placeMetrics(mux, metricsHandler, *metricsAddr, *withPprof, acc.dev, log)
	if err != nil {
		return err
	}
	defer stopMetrics(*shutdown)

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           obs.Middleware(log, mux),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       *readTimeout,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       120 * time.Second,
	}
	// The first line on stdout is the GraphQL endpoint, for people, scripts
	// and tests; GraphiQL's page follows when it is on.
	endpoint := baseURL(ln.Addr()) + "/graphql"
	line := fmt.Sprintf("listening on %s (store %s)", endpoint, *spec)
	if graphiql.or(acc.dev) {
		line += "; GraphiQL at " + baseURL(ln.Addr()) + "/"
	}
	fmt.Fprintln(stdout, line)
	log.Info("serving", "endpoint", endpoint, "addr", ln.Addr().String(), "store", *spec, "dev", acc.dev,
		"introspection", introspection.or(acc.dev), "graphiql", graphiql.or(acc.dev), "cors", *corsOrigins)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down", "timeout", shutdown.String())
	sctx, cancel := context.WithTimeout(context.Background(), *shutdown)
	defer cancel()
	srv.RegisterOnShutdown(func() { lr.shutdown(sctx, log) })
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	lr.shutdown(sctx, log) // Shutdown does not wait for websockets: this does
	log.Info("stopped")
	return nil
}

// isRead reports whether a DynamoDB operation consumes read capacity.
func isRead(op string) bool {
	switch op {
	case "GetItem", "BatchGetItem", "Query", "Scan":
		return true
	}
	return false
}

// loadDemoData loads the demo data set into s when its table is empty.
func loadDemoData(ctx context.Context, s *store.Store, log *slog.Logger) error {
	empty, err := s.IsEmpty(ctx)
	if err != nil || !empty {
		return err
	}
	start := time.Now()
	cs := demo.Default()
	if err := s.PutComments(ctx, cs); err != nil {
		return fmt.Errorf("loading demo data: %w", err)
	}
	res, err := s.RebuildStats(ctx, 4)
	if err != nil {
		return fmt.Errorf("counting demo data: %w", err)
	}
	log.Info("loaded demo data", "comments", res.Comments, "products", res.Products, "took", time.Since(start).Round(time.Millisecond).String())
	return nil
}

func cmdSeed(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlags("seed", stderr)
	spec := fs.String("store", defaultStore, "store: bolt:PATH or dynamodb:TABLE")
	products := fs.Int("products", demo.DefaultProducts, "number of products")
	comments := fs.Int("comments", demo.DefaultComments, "number of comments")
	seed := fs.Uint64("rand-seed", demo.DefaultSeed, "random seed (the same seed gives the same data)")
	if err := parse(fs, args, getenv); err != nil {
		return err
	}
	if *products < 1 || *comments < 0 {
		return fmt.Errorf("seed: -products must be at least 1 and -comments at least 0")
	}
	tbl, err := openTable(ctx, *spec)
	if err != nil {
		return err
	}
	defer tbl.Close()
	s := store.New(tbl)
	start := time.Now()
	cfg := demo.DefaultConfig()
	cfg.Products, cfg.Comments = *products, *comments
	cs := demo.Generate(demo.NewRand(*seed), cfg)
	const chunk = 5000
	for i := 0; i < len(cs); i += chunk {
		if err := s.PutComments(ctx, cs[i:min(i+chunk, len(cs))]); err != nil {
			return err
		}
	}
	res, err := s.RebuildStats(ctx, 4)
	if err != nil {
		return err
	}
	d := time.Since(start)
	fmt.Fprintf(stdout, "seeded %d comments (%d products with comments) in %s, %.0f comments/s\n",
		len(cs), res.Products, d.Round(time.Millisecond), float64(len(cs))/d.Seconds())
	return nil
}

func cmdCreateTable(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlags("create-table", stderr)
	spec := fs.String("store", "", "the table to create: dynamodb:TABLE")
	if err := parse(fs, args, getenv); err != nil {
		return err
	}
	name, ok := strings.CutPrefix(*spec, "dynamodb:")
	if !ok || name == "" {
		return fmt.Errorf("create-table: -store must be dynamodb:TABLE (the embedded store needs no table)")
	}
	t, err := dynamo.Open(ctx, name)
	if err != nil {
		return err
	}
	defer t.Close()
	if err := t.CreateTable(ctx); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "table %s is ACTIVE with its four indexes\n", name)
	return nil
}

func cmdRebuildStats(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlags("rebuild-stats", stderr)
	spec := fs.String("store", defaultStore, "store: bolt:PATH or dynamodb:TABLE")
	segments := fs.Int("segments", 8, "parallel scan segments")
	if err := parse(fs, args, getenv); err != nil {
		return err
	}
	tbl, err := openTable(ctx, *spec)
	if err != nil {
		return err
	}
	defer tbl.Close()
	start := time.Now()
	res, err := store.New(tbl).RebuildStats(ctx, *segments)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "recounted %d comments of %d products, wrote %d stats items in %s\n",
		res.Comments, res.Products, res.StatsItems, time.Since(start).Round(time.Millisecond))
	return nil
}

func cmdImport(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("import", stderr)
	spec := fs.String("store", defaultStore, "store: bolt:PATH or dynamodb:TABLE")
	if err := parse(fs, args, getenv); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("import: want one FILE (or - for standard input), got %d arguments", fs.NArg())
	}
	in := stdin
	if name := fs.Arg(0); name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	tbl, err := openTable(ctx, *spec)
	if err != nil {
		return err
	}
	defer tbl.Close()
	s := store.New(tbl)
	bar := jsonl.NewBar(stderr)
	sum, err := jsonl.Read(in, jsonl.Options{Progress: bar.Update}, func(batch []*store.Comment) error {
		return s.PutComments(ctx, batch)
	})
	bar.Clear()
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	res, err := s.RebuildStats(ctx, 8)
	if err != nil {
		return fmt.Errorf("import: comments loaded, but recounting the stats failed (run rebuild-stats): %w", err)
	}
	fmt.Fprintln(stdout, sum)
	fmt.Fprintf(stdout, "stats recounted: %d comments in the store, %d products\n", res.Comments, res.Products)
	return nil
}
