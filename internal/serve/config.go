package serve

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/acme/comments-gateway/internal/flagenv"
	"github.com/acme/comments-gateway/internal/gqlhttp"
	"github.com/acme/comments-gateway/internal/policy"
	"github.com/acme/comments-gateway/internal/storespec"
	"github.com/acme/comments-gateway/origin"
	"github.com/acme/comments-gateway/resolvers"
	"github.com/acme/comments-gateway/store"
)

// This file is the serve command's configuration: every flag with its
// default and COMMENTS_* environment variable (defaults < environment <
// flags, see package flagenv), parsed once into a Config and validated. The
// flags of subscriptions are in live.go, those of access control in
// access.go; the "Every serve flag" table of docs/operations.md is tested
// against this flag set (config_test.go, e2e/readme_test.go).

// Config is the serve command's configuration, parsed and validated
// by ParseConfig; Run builds the server from it (newApp).
type Config struct {
	access          accessConfig // -dev, -open-mutations, credentials
	introspection   bool         // -introspection, default: on in dev mode
	graphiql        bool         // -graphiql, default: on in dev mode
	openExplain     bool         // -open-explain, default: on in dev mode
	addr            string
	store           storespec.Spec
	demo            bool
	logFormat       string // text or json
	corsOrigins     []string
	shutdownTimeout time.Duration
	readTimeout     time.Duration
	requestTimeout  time.Duration
	loaderWait      time.Duration
	sizing          store.Sizing
	moderation      store.Moderation // -moderation, -report-threshold
	limits          policy.Limits
	rateLimit       policy.RateLimit
	maxInFlight     int             // -max-inflight-client; negative: no bound
	clientAddr      clientAddrFlags // -trusted-proxy-hops, -trusted-proxies, …
	apqCacheSize    int             // 0: APQ off
	caches          policy.QueryCaches
	trustedPath     string
	onlyTrusted     bool
	micro           gqlhttp.MicroCacheConfig
	metricsAddr     string
	pprof           bool
	pprofPublic     bool // -pprof on a public -metrics-addr, asked for explicitly
	adminAddr       string
	otlpEndpoint    string
	live            liveFlags
	// getenv reads the OTEL_* variables of the OpenTelemetry SDK (tracing.Setup).
	getenv func(string) string

	// typed holds the flags whose value is resolved after parsing (against
	// -dev, or into the fields above).
	typed struct {
		store, mergeSizing, corsOrigins string
		moderation                      string
		corsOriginsSet                  bool // by a flag or the environment
		introspection, graphiql         modeBool
		openExplain                     modeBool
	}
}

// Help is what serve -h prints above the flags.
const Help = `Usage: comments-gateway serve [flags]

Serves GraphQL at /graphql (GraphiQL at / in dev mode or with -graphiql).
Without the command word the server runs in dev mode (-dev=true); "serve"
named explicitly is production mode. Flags:
`

// ParseConfig parses the serve command's flags and their environment
// variables (devDefault: -dev's default) and validates them; -h prints
// Help and the flags on stderr.
func ParseConfig(args []string, devDefault bool, getenv func(string) string, stderr io.Writer) (*Config, error) {
	fs := flagenv.New("serve", Help, stderr)
	c := &Config{getenv: getenv}
	c.register(fs, devDefault)
	if err := flagenv.Parse(fs, args, getenv); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("serve: unexpected argument %q", fs.Arg(0))
	}
	// The AWS SDK's own variable for the Streams endpoint (DynamoDB Local
	// serves both APIs on one port, so unset means the DynamoDB endpoint).
	c.live.streamsEndpoint = getenv("AWS_ENDPOINT_URL_DYNAMODB_STREAMS")
	fs.Visit(func(f *flag.Flag) { c.typed.corsOriginsSet = c.typed.corsOriginsSet || f.Name == "cors-origins" })
	if err := c.resolve(); err != nil {
		return nil, err
	}
	return c, nil
}

// register adds every serve flag to fs, group by group.
func (c *Config) register(fs *flag.FlagSet, devDefault bool) {
	c.access.register(fs, devDefault)
	c.registerServer(fs, devDefault)
	c.registerLimits(fs)
	c.registerCaching(fs)
	c.registerObservability(fs)
	c.live.register(fs)
}

// registerServer adds the flags of the listener, the store and the modes
// (devDefault: true without a command word, where the demo data loads).
func (c *Config) registerServer(fs *flag.FlagSet, devDefault bool) {
	fs.Var(&c.typed.introspection, "introspection", "allow introspection (default: on in dev mode); off also hides field suggestions")
	fs.Var(&c.typed.graphiql, "graphiql", "serve GraphiQL at / (default: on in dev mode)")
	fs.Var(&c.typed.openExplain, "open-explain", "anyone may ask for the read plan (X-Explain: 1), which names table keys and indexes; off: API keys and moderators only (default: on in dev mode)")
	fs.StringVar(&c.typed.corsOrigins, "cors-origins", "", "comma-separated browser origins allowed on /graphql by CORS, websockets and SSE (e.g. https://shop.example.com, https://*.example.com); others get 403 FORBIDDEN_ORIGIN for a preflight, websocket or SSE request (default in dev mode: http://localhost:*,http://127.0.0.1:*; else none, same-origin only)")
	fs.StringVar(&c.addr, "addr", "127.0.0.1:8080", "listen address (host:port; port 0 picks a free one)")
	fs.StringVar(&c.typed.store, "store", storespec.Default, "store: bolt:PATH or dynamodb:TABLE")
	fs.StringVar(&c.typed.moderation, "moderation", string(store.ModerationOff), "moderation of comments: off (published at once), pre (pending until a moderator approves) or post (published at once, hidden by -report-threshold reports); see docs/moderation.md")
	fs.Int64Var(&c.moderation.ReportThreshold, "report-threshold", store.DefaultReportThreshold, "with -moderation post, the number of reports (one per user) that hide a comment until a moderator reviews it (0: never)")
	fs.BoolVar(&c.demo, "demo", devDefault, "load the demo data set when the store is empty (default true without a command word, false for the serve command: a production table never gets fake reviews unless asked)")
	fs.DurationVar(&c.shutdownTimeout, "shutdown-timeout", 10*time.Second, "how long in-flight requests may finish on SIGINT/SIGTERM")
	fs.DurationVar(&c.loaderWait, "loader-wait", resolvers.DefaultLoaderWait, "how long a dataloader collects keys before its one batched read")
	fs.StringVar(&c.typed.mergeSizing, "merge-sizing", "auto", "how a merge of several ratings sizes its queries: lean (fewest items read, most refill rounds), balanced, spread (on bolt one merged read a page; elsewhere first reads cover the share's spread), few-rounds, or one-round (at most two rounds, most pages one); auto is one-round on DynamoDB and spread on bolt")
	fs.DurationVar(&c.requestTimeout, "request-timeout", resolvers.DefaultRequestTimeout, "bound on one request's work, store calls included")
	fs.DurationVar(&c.readTimeout, "read-timeout", 15*time.Second, "how long a client may take to send a whole request, body included; a body that stalls past it gets 408")
	fs.StringVar(&c.adminAddr, "admin-addr", "", "serve GET /backup and /export (unauthenticated: bind to loopback) on this address; empty: off")
}

// registerLimits adds the flags that bound what a request or a client may
// ask for: the size of an operation, the rate limit and how it names
// clients, trusted documents.
func (c *Config) registerLimits(fs *flag.FlagSet) {
	lim, rl := &c.limits, &c.rateLimit
	fs.Int64Var(&lim.MaxBodyBytes, "max-body-bytes", policy.DefaultMaxBodyBytes, "largest request body; larger ones get 413")
	fs.IntVar(&lim.MaxComplexity, "max-complexity", policy.DefaultMaxComplexity, "largest query complexity (page sizes multiply their selections)")
	fs.IntVar(&lim.MaxDepth, "max-depth", policy.DefaultMaxDepth, "deepest selection nesting")
	fs.IntVar(&lim.MaxAliases, "max-aliases", policy.DefaultMaxAliases, "most aliased fields in one operation")
	fs.IntVar(&lim.MaxTokens, "max-tokens", policy.DefaultMaxTokens, "most lexer tokens in one query")
	fs.IntVar(&lim.MaxSelections, "max-selections", policy.DefaultMaxSelections, "most fields in one document, fragments expanded")
	fs.IntVar(&lim.MaxEntities, "max-entities", policy.DefaultMaxEntities, "most _entities representations in one request")
	fs.Float64Var(&rl.Rate, "rate-limit", 0, "per-client budget restored per second, in query-complexity points (0: no rate limit)")
	fs.IntVar(&rl.Burst, "rate-burst", 0, "per-client budget at most, in points (default 10 × -rate-limit)")
	fs.IntVar(&rl.RefusedCost, "rate-refused-cost", policy.DefaultRefusedCost, "points a request that runs no operation (a parse, validation or limit failure) costs; a client with fewer left gets 429")
	fs.IntVar(&c.maxInFlight, "max-inflight-client", policy.DefaultMaxRequestsInFlight, "most GraphQL-over-HTTP requests of one client (by JWT subject or address; API keys unlimited) served at once, each until its reply is written; more get 429 (negative: no bound)")
	c.clientAddr.register(fs)
	fs.StringVar(&c.trustedPath, "trusted-documents", "", "JSON manifest of trusted documents, id → document (GraphQL Codegen's persisted-documents.json, Relay's persisted_queries.json); clients send documentId or extensions.persistedQuery.sha256Hash")
	fs.BoolVar(&c.onlyTrusted, "only-trusted-documents", false, "refuse every operation that is not in the -trusted-documents manifest")
}

// registerCaching adds the flags of the caches: the byte budgets of the
// query caches (parsed documents, cost analysis, persisted queries) and
// the micro-cache of GET responses.
func (c *Config) registerCaching(fs *flag.FlagSet) {
	q := &c.caches
	q.DocumentBytes, q.CostBytes, q.APQBytes, q.MaxQueryBytes = policy.DefaultDocumentCacheBytes, policy.DefaultCostCacheBytes,
		policy.DefaultAPQCacheBytes, policy.DefaultMaxCachedQuery
	fs.Var((*flagenv.Bytes)(&q.DocumentBytes), "document-cache-bytes", "bound on the memory of the parsed, validated documents kept (e.g. 32MiB)")
	fs.Var((*flagenv.Bytes)(&q.CostBytes), "cost-cache-bytes", "bound on the memory of the cost analysis's parsed documents and measures kept (e.g. 32MiB)")
	fs.Var((*flagenv.Bytes)(&q.APQBytes), "apq-cache-bytes", "bound on the memory of the automatic persisted queries kept (e.g. 8MiB)")
	fs.Var((*flagenv.Bytes)(&q.MaxQueryBytes), "max-cached-query-bytes", "longest query text whose document, cost or persisted text is cached; longer ones are analysed on every request and freed after it")
	fs.IntVar(&c.apqCacheSize, "apq-cache-size", resolvers.DefaultAPQCacheSize, "automatic persisted queries kept in the LRU cache; 0 turns APQ off")
	c.micro.MaxBytes = gqlhttp.DefaultMicroCacheBytes
	fs.DurationVar(&c.micro.TTL, "micro-cache-ttl", 0, "serve public GET query responses from an in-process cache for this long, e.g. 500ms (0: off)")
	fs.Var((*flagenv.Bytes)(&c.micro.MaxBytes), "micro-cache-bytes", "bound on the micro-cache's memory, e.g. 64MB or 64MiB (least recently used entries are evicted)")
}

// registerObservability adds the flags of logs, metrics, profiles and traces.
func (c *Config) registerObservability(fs *flag.FlagSet) {
	fs.StringVar(&c.logFormat, "log-format", "", "log format: text or json (default: text in dev mode, json otherwise)")
	fs.StringVar(&c.metricsAddr, "metrics-addr", "", "serve /metrics (and pprof with -pprof) on this separate listener, e.g. 127.0.0.1:9090; without it /metrics is served on -addr in dev mode only")
	fs.BoolVar(&c.pprof, "pprof", false, "serve Go's profiles at /debug/pprof/ on the -metrics-addr listener (a loopback or private address unless -pprof-public)")
	fs.BoolVar(&c.pprofPublic, "pprof-public", false, "allow -pprof on a -metrics-addr that is neither loopback nor private (the profiles and the command line are unauthenticated)")
	fs.StringVar(&c.otlpEndpoint, "otlp-endpoint", "", "export OpenTelemetry traces over OTLP/HTTP to this URL (e.g. http://localhost:4318); empty: off unless OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set")
}

// resolve fills the defaults that depend on -dev, turns the typed flags
// into their values and refuses values the server cannot run with.
func (c *Config) resolve() error {
	dev := c.access.dev
	c.introspection, c.graphiql = c.typed.introspection.or(dev), c.typed.graphiql.or(dev)
	c.openExplain = c.typed.openExplain.or(dev)
	c.corsOrigins = splitList(c.typed.corsOrigins)
	if dev && !c.typed.corsOriginsSet {
		c.corsOrigins = origin.DevPatterns
	}
	if c.logFormat == "" {
		c.logFormat = "json"
		if dev {
			c.logFormat = "text"
		}
	}
	if _, ok := logHandlers[c.logFormat]; !ok {
		return fmt.Errorf("-log-format %q: want text or json", c.logFormat)
	}
	var err error
	if c.store, err = storespec.Parse(c.typed.store); err != nil {
		return err
	}
	if err := c.resolveModeration(); err != nil {
		return err
	}
	if c.readTimeout <= 0 {
		return fmt.Errorf("-read-timeout %s: want a positive duration (a stalled body would hold its connection forever)", c.readTimeout)
	}
	if c.micro.TTL < 0 || c.micro.MaxBytes <= 0 {
		return fmt.Errorf("-micro-cache-ttl %v, -micro-cache-bytes %d: want a TTL of 0 (off) or more and a positive size", c.micro.TTL, c.micro.MaxBytes)
	}
	if q := c.caches; q.DocumentBytes <= 0 || q.CostBytes <= 0 || q.APQBytes <= 0 || q.MaxQueryBytes <= 0 {
		return fmt.Errorf("-document-cache-bytes %d, -cost-cache-bytes %d, -apq-cache-bytes %d, -max-cached-query-bytes %d: want positive sizes",
			q.DocumentBytes, q.CostBytes, q.APQBytes, q.MaxQueryBytes)
	}
	if c.maxInFlight == 0 {
		return errors.New("-max-inflight-client 0: want a positive number, or a negative one for no bound")
	}
	if c.apqCacheSize < 0 {
		return fmt.Errorf("-apq-cache-size %d: want 0 (off) or more", c.apqCacheSize)
	}
	if err := c.clientAddr.resolve(); err != nil {
		return err
	}
	if c.pprof && c.metricsAddr == "" {
		return errors.New("-pprof needs -metrics-addr: profiles are served on the metrics listener only, never on the API's")
	}
	if c.pprof && !c.pprofPublic {
		if err := checkPrivateAddr("-metrics-addr", c.metricsAddr, "with -pprof it serves Go's profiles and the command line unauthenticated",
			"e.g. 127.0.0.1:9090, or add -pprof-public to serve them there anyway"); err != nil {
			return err
		}
	}
	sizing, ok := store.Sizings[c.mergeSizingName()]
	if !ok {
		return fmt.Errorf("-merge-sizing %q: want auto, lean, balanced, spread, few-rounds or one-round", c.typed.mergeSizing)
	}
	c.sizing = sizing
	return nil
}

// resolveModeration reads -moderation and checks -report-threshold.
func (c *Config) resolveModeration() error {
	var err error
	if c.moderation.Mode, err = store.ParseModerationMode(c.typed.moderation); err != nil {
		return fmt.Errorf("-moderation: %w", err)
	}
	if c.moderation.ReportThreshold < 0 {
		return fmt.Errorf("-report-threshold %d: want 0 (reports never hide) or more", c.moderation.ReportThreshold)
	}
	return nil
}

// mergeSizingName is the -merge-sizing asked for; auto is one-round on
// DynamoDB, where a refill is a network round trip, and spread on the
// embedded store, where a refill costs a read transaction and a few more
// items cost less.
func (c *Config) mergeSizingName() string {
	switch {
	case c.typed.mergeSizing != "auto":
		return c.typed.mergeSizing
	case c.store.Kind == storespec.DynamoDB:
		return "one-round"
	}
	return "spread"
}

// modeBool is a boolean flag whose default depends on -dev: it remembers
// whether it was set (by the environment or the command line).
type modeBool struct {
	v, set bool
}

// String prints the value (false when unset).
func (b *modeBool) String() string {
	if b == nil {
		return "false"
	}
	return strconv.FormatBool(b.v)
}

// IsBoolFlag lets the flag be written without a value (-graphiql).
func (b *modeBool) IsBoolFlag() bool { return true }

// Set parses the value and remembers that it was set.
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
