package serve

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/acme/comments-gateway/internal/gqlhttp"
	"github.com/acme/comments-gateway/obs"
)

// Run serves what cfg describes until ctx ends: the app built from it
// (newApp), its routes, served (and shut down gracefully); the first line
// on stdout says where it listens, the log goes to stderr.
func Run(ctx context.Context, cfg *Config, stdout, stderr io.Writer) error {
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
	ln = gqlhttp.ReplyListener(ln) // a reply in one write call
	srv := &http.Server{
		Handler:  obs.Middleware(a.log, mux),
		ErrorLog: httpErrorLog(a.log),
		// Requests count their store calls in the metrics (ctx's accountant),
		// without ctx's cancellation.
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(a.accounted(ctx)) },
		ConnContext:       gqlhttp.ReplyConnContext,
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

// baseURL is the URL a client on this machine reaches the listener at:
// an unspecified address (":8080", "0.0.0.0:8080") is shown as localhost.
func baseURL(addr net.Addr) string {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return "http://" + addr.String()
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "localhost"
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return "http://" + host + ":" + port
}
