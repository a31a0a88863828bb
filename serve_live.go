package main

import (
	"context"
	"flag"
	"log/slog"
	"sync"
	"time"

	"github.com/acme/comments-gateway/live"
	"github.com/acme/comments-gateway/resolvers"
	"github.com/acme/comments-gateway/store"
)

// liveFlags are the serve command's subscription settings.
type liveFlags struct {
	cfg      resolvers.LiveConfig
	buffer   int
	shards   int
	poll     time.Duration
	overlap  time.Duration
	disabled bool
}

// register adds the -live-* flags to fs.
func (f *liveFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&f.disabled, "no-subscriptions", false, "turn off subscriptions (websocket and SSE)")
	fs.BoolVar(&f.cfg.RequireAuth, "live-auth", false, "subscriptions need a credential, as mutations do")
	fs.IntVar(&f.cfg.MaxSubscriptionsPerConn, "live-max-subscriptions", resolvers.DefaultMaxSubscriptionsPerConn, "most active subscriptions on one websocket connection")
	fs.IntVar(&f.cfg.MaxConnsPerClient, "live-max-connections", resolvers.DefaultMaxConnsPerClient, "most open websocket/SSE connections of one client (by JWT subject or address; API keys unlimited)")
	fs.DurationVar(&f.cfg.KeepAlive, "live-keepalive", resolvers.DefaultKeepAlive, "websocket ping and SSE keep-alive comment interval")
	fs.DurationVar(&f.cfg.WriteTimeout, "live-write-timeout", resolvers.DefaultLiveWriteTimeout, "close a live connection whose client accepts no data for this long")
	fs.IntVar(&f.buffer, "live-buffer", live.DefaultBuffer, "events held per subscriber; a subscriber that falls further behind is ended with SLOW_CONSUMER")
	fs.IntVar(&f.shards, "live-shards", 1, "DynamoDB: change log partitions (every instance on a table must use the same number)")
	fs.DurationVar(&f.poll, "live-poll", live.DefaultPollInterval, "DynamoDB: how often an instance with subscribers reads the change log")
	fs.DurationVar(&f.overlap, "live-overlap", live.DefaultOverlap, "DynamoDB: how far back each change log read goes before the newest change seen (writers' clock skew plus the longest write)")
}

// liveRun is the running subscription machinery of one server.
type liveRun struct {
	hub    *live.Hub
	conns  *resolvers.Live
	stop   context.CancelFunc
	stores []store.Option
	s      *store.Store // set by start
	once   sync.Once
}

// newLive prepares subscriptions for a store of kind "bolt" or "dynamodb"
// (trustXFF: name clients by X-Forwarded-For, as the rate limit does):
// the store options that make its writes reach the hub. Call start once
// the store exists.
func (f *liveFlags) newLive(kind string, trustXFF bool, log *slog.Logger) *liveRun {
	if f.disabled {
		return &liveRun{}
	}
	lr := &liveRun{}
	lr.hub = live.NewHub(live.Config{Buffer: f.buffer, Logger: log,
		Stats: func(ctx context.Context, ids []store.StatsID) ([]*store.Stats, error) { return lr.s.GetStats(ctx, ids) }})
	f.cfg.Hub, f.cfg.TrustForwardedFor = lr.hub, trustXFF
	lr.conns = resolvers.NewLive(f.cfg)
	if kind == "dynamodb" {
		lr.stores = []store.Option{store.WithChangeLog(f.shards)}
	} else {
		lr.stores = []store.Option{store.WithPublisher(lr.hub)}
	}
	return lr
}

// start begins following the change log (DynamoDB) for store s.
func (lr *liveRun) start(ctx context.Context, s *store.Store, f *liveFlags, log *slog.Logger) {
	lr.s = s
	if lr.hub == nil || s.ChangeShards() == 0 {
		return
	}
	ctx, lr.stop = context.WithCancel(ctx)
	fl := &live.Follower{Log: s, Hub: lr.hub, Interval: f.poll, Overlap: f.overlap, Logger: log}
	go fl.Run(ctx)
}

// shutdown closes every live connection (clients reconnect elsewhere),
// then the hub. Concurrent and later calls wait for the first one.
func (lr *liveRun) shutdown(ctx context.Context, log *slog.Logger) {
	if lr.hub == nil {
		return
	}
	lr.once.Do(func() {
		if err := lr.conns.Shutdown(ctx); err != nil {
			log.Warn("live connections still open at shutdown", "err", err, "open", lr.conns.Conns())
		}
		if lr.stop != nil {
			lr.stop()
		}
		lr.hub.Close()
	})
}
