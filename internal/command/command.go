package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/acme/comments-gateway/demo"
	"github.com/acme/comments-gateway/obs"
	"github.com/acme/comments-gateway/store"
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
		defer tuneServeGC()()
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
		return unknownCommand(cmd)
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

// parse applies defaults < environment < flags. A bad flag is one error
// line with the nearest flag's name, not the whole usage (flagError); -h
// prints the usage.
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
	out := fs.Output()
	fs.SetOutput(io.Discard) // the flag package prints the error and the whole usage
	err = fs.Parse(args)
	fs.SetOutput(out)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.Usage()
		return err
	case err != nil:
		return flagError(fs, err)
	}
	return nil
}

// cmdServe is the serve command: the configuration, the app built from
// it, its routes, served until ctx ends.
func cmdServe(ctx context.Context, args []string, devDefault bool, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, err := parseServeConfig(args, devDefault, getenv, stderr)
	if err != nil {
		return err
	}
	sampleHeapForPprof(cfg.pprof)
	a, err := newApp(ctx, cfg, stderr)
	if err != nil {
		return err
	}
	defer a.close()
	return a.serve(ctx, routes(a), stdout)
}

// serve serves mux (and /metrics on its own listener) until ctx ends, then
// shuts down gracefully: in-flight requests may finish, live connections
// are closed, for at most -shutdown-timeout.
func (a *app) serve(ctx context.Context, mux http.Handler, stdout io.Writer) error {
	stopMetrics, err := a.startMetricsListener()
	if err != nil {
		return err
	}
	defer stopMetrics(a.cfg.shutdownTimeout)
	ln, err := net.Listen("tcp", a.cfg.addr)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:  obs.Middleware(a.log, mux),
		ErrorLog: httpErrorLog(a.log),
		// Requests count their store calls in the metrics (ctx's accountant),
		// without ctx's cancellation.
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(a.accounted(ctx)) },
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       a.cfg.readTimeout,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       120 * time.Second,
	}
	a.announce(ln.Addr(), stdout)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	return a.shutdown(srv)
}

// announce says where the server listens: the first line on stdout is the
// GraphQL endpoint, for people, scripts and tests (GraphiQL's page follows
// when it is on); in dev mode the demo page and the allowed browser
// origins follow on lines of their own. The log gets the whole
// configuration's gist.
func (a *app) announce(addr net.Addr, stdout io.Writer) {
	c := a.cfg
	endpoint := baseURL(addr) + "/graphql"
	line := fmt.Sprintf("listening on %s (store %s)", endpoint, c.store)
	if c.graphiql {
		line += "; GraphiQL at " + baseURL(addr) + "/"
	}
	fmt.Fprintln(stdout, line)
	if c.access.dev {
		if c.graphiql {
			fmt.Fprintf(stdout, "demo product page at %s/demo\n", baseURL(addr))
		}
		fmt.Fprintf(stdout, "browser origins allowed (CORS, websockets, SSE): %s; set -cors-origins to change\n", originList(c.corsOrigins))
	}
	a.log.Info("serving", "endpoint", endpoint, "addr", addr.String(), "store", c.store.String(), "dev", c.access.dev,
		"introspection", c.introspection, "graphiql", c.graphiql, "corsOrigins", c.corsOrigins)
}

// originList is -cors-origins' list as announced: "same-origin only" when
// it is empty.
func originList(patterns []string) string {
	if len(patterns) == 0 {
		return "same-origin only"
	}
	return strings.Join(patterns, ", ")
}

// shutdown stops srv gracefully within -shutdown-timeout: in-flight
// requests finish, and live connections, which http.Server.Shutdown does
// not wait for, are closed.
func (a *app) shutdown(srv *http.Server) error {
	a.log.Info("shutting down", "timeout", a.cfg.shutdownTimeout.String())
	sctx, cancel := context.WithTimeout(context.Background(), a.cfg.shutdownTimeout)
	defer cancel()
	srv.RegisterOnShutdown(func() { a.live.shutdown(sctx, a.log) })
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	a.live.shutdown(sctx, a.log) // Shutdown does not wait for websockets: this does
	a.log.Info("stopped")
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
	if _, err := s.ReadDesign(ctx); err != nil { // a newer gateway's table is left alone
		return err
	}
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
	stream := fs.Bool("stream", true, "give the table its stream, which subscriptions across gateways read (false: none, for gateways run with -no-subscriptions)")
	if err := parse(fs, args, getenv); err != nil {
		return err
	}
	ss, err := parseStoreSpec(*spec)
	if err != nil || ss.kind != "dynamodb" {
		return fmt.Errorf("create-table: -store must be dynamodb:TABLE (the embedded store needs no table)")
	}
	name := ss.arg
	t, err := openDynamo(ctx, name)
	if err != nil {
		return err
	}
	defer t.Close()
	if err := t.CreateTable(ctx, *stream); err != nil {
		return err
	}
	d, err := store.New(t).CheckDesign(ctx) // a new table records its design
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "table %s is ACTIVE with its four indexes\n", name)
	if d.Legacy {
		fmt.Fprintf(stdout, "note: %s\n", legacyMessage(ss))
	}
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
