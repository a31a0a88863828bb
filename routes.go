package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/rs/cors"

	"github.com/acme/comments-gateway/resolvers"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/tracing"
	"github.com/acme/comments-gateway/web"
)

// routes mounts the API listener's endpoints: /graphql (a server span
// around CORS around the GraphQL handler), GraphiQL at / when on, /healthz,
// /readyz, and /metrics in dev mode when it has no listener of its own
// (-metrics-addr, started by serve).
func routes(a *app) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("/graphql", tracing.HTTP(withCORS(a.cfg.corsOrigins, a.graphql), a.tracer))
	mux.Handle("/graphql/", resolvers.NotFoundHandler("/graphql"))
	if a.cfg.graphiql {
		web.Register(mux, "/graphql") // GraphiQL at /, its assets, and /demo
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
