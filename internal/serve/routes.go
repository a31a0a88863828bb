package serve

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/acme/comments-gateway/internal/gqlhttp"
	"github.com/acme/comments-gateway/resolvers"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/tracing"
	"github.com/acme/comments-gateway/web"
)

// routes mounts the API listener's endpoints: /graphql (a server span
// around compression around the GraphQL handler, which answers CORS; a
// browser opening it gets GraphiQL when that is on), the SDL at
// /graphql/schema.graphql when introspection is on, GraphiQL at / when on, /healthz,
// /readyz, and /metrics in dev mode when it has no listener of its own
// (-metrics-addr, started by serve).
func routes(a *app) *http.ServeMux {
	mux := http.NewServeMux()
	var api http.Handler = a.graphql // CORS and the origin rule inside (package origin)
	if a.cfg.graphiql {
		web.Register(mux, "/graphql") // GraphiQL at /, its assets, and /demo
		api = browserGetsGraphiQL(mux, api)
	}
	mux.Handle("/graphql", tracing.HTTP(a.compress(api), a.tracer))
	mux.Handle("/graphql/", gqlhttp.NotFoundHandler("/graphql"))
	if a.cfg.introspection {
		mux.Handle("GET /graphql/schema.graphql", a.compress(resolvers.SDLHandler()))
	}
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok\n") })
	mux.Handle("GET /readyz", readyz(a.store, a.log))
	if a.cfg.metricsAddr == "" && a.cfg.access.dev {
		mux.Handle("GET /metrics", a.metricsHandler()) // dev mode's convenience
	}
	return mux
}

// readyz answers 200 while the store answers (Store.Ping), else 503.
func readyz(s *store.Store, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if err := s.Ping(ctx); err != nil {
			log.WarnContext(ctx, "not ready", "err", err)
			http.Error(w, "store unreachable", http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "ok\n")
	})
}

// metricsHandler serves the server's registry in Prometheus' format.
func (a *app) metricsHandler() http.Handler {
	return promhttp.InstrumentMetricHandler(a.reg, promhttp.HandlerFor(a.reg, promhttp.HandlerOpts{}))
}

// browserGetsGraphiQL serves GraphiQL (mux's page at /) to a browser
// opening the endpoint, a GET that accepts text/html and has no query
// string, rather than the GraphQL-over-HTTP 400 for a request without a
// query; every other request goes to api.
func browserGetsGraphiQL(mux, api http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.RawQuery == "" && r.Header.Get("Upgrade") == "" &&
			strings.Contains(r.Header.Get("Accept"), "text/html") {
			page := r.Clone(r.Context())
			page.URL.Path = "/"
			mux.ServeHTTP(w, page)
			return
		}
		api.ServeHTTP(w, r)
	})
}
