package serve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// startMetricsListener serves /metrics (and pprof with -pprof) on the
// -metrics-addr listener, when there is one (routes mounts /metrics on the
// API's in dev mode otherwise). It returns that listener's stop (a no-op
// without one), which lets scrapes finish for at most the given time.
func (a *app) startMetricsListener() (func(time.Duration), error) {
	if a.cfg.metricsAddr == "" {
		return func(time.Duration) {}, nil
	}
	shutdown, err := serveMetrics(a.cfg.metricsAddr, a.cfg.pprof, a.metricsHandler(), a.log)
	if err != nil {
		return nil, err
	}
	return func(d time.Duration) {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		defer cancel()
		_ = shutdown(ctx)
	}, nil
}

// serveMetrics serves /metrics, and with withPprof Go's profiles at
// /debug/pprof/, on their own listener at addr: an operator's port, apart
// from the API's, so that neither is public with the API. It returns the
// listener's shutdown.
func serveMetrics(addr string, withPprof bool, metrics http.Handler, log *slog.Logger) (func(context.Context) error, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("-metrics-addr: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", metrics)
	if withPprof {
		mux.HandleFunc("/debug/pprof/", pprof.Index) // and the named profiles under it
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	// No WriteTimeout: a CPU profile or trace streams for its ?seconds=.
	srv := &http.Server{Handler: mux, ErrorLog: httpErrorLog(log), ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second, IdleTimeout: 120 * time.Second}
	log.Info("metrics listening", "addr", ln.Addr().String(), "url", "http://"+ln.Addr().String()+"/metrics", "pprof", withPprof)
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics listener stopped", "err", err)
		}
	}()
	return srv.Shutdown, nil
}
