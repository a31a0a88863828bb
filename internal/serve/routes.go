package serve

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/acme/comments-gateway/internal/gqlhttp"
	"github.com/acme/comments-gateway/resolvers"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/web"
)

// routes mounts the API listener's endpoints: /graphql (the GraphQL
// handler, whose one chain, resolvers.NewHandler, has everything from the
// server span to CORS; a browser opening it gets GraphiQL when that is
// on), the SDL at
// /graphql/schema.graphql when introspection is on, GraphiQL at / when on, the
// reviews widget's files at /widget/, /healthz,
// /readyz, and /metrics in dev mode when it has no listener of its own
// (-metrics-addr, started by serve).
func routes(a *app) *http.ServeMux {
	mux := http.NewServeMux()
	cfg := a.graphql
	web.RegisterWidget(mux) // the reviews widget shops embed, at /widget/
	if a.cfg.graphiql {
		web.Register(mux, "/graphql", string(a.cfg.moderation.Mode)) // GraphiQL at /, its assets, and /demo
		cfg.BrowserPage = pageAtRoot(mux)
	}
	mux.Handle("/graphql", resolvers.NewHandler(cfg))
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

// pageAtRoot serves mux's page at / (GraphiQL) to a browser opening
// another path (the GraphQL endpoint; gqlhttp.BrowserPage).
func pageAtRoot(mux http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		page := r.Clone(r.Context())
		page.URL.Path = "/"
		mux.ServeHTTP(w, page)
	})
}
