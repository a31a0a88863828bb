package serve

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/acme/comments-gateway/live"
	"github.com/acme/comments-gateway/live/livehttp"
	"github.com/acme/comments-gateway/metrics"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/dynamo"
	"github.com/acme/comments-gateway/store/table"
)

// liveFlags are the serve command's subscription settings.
type liveFlags struct {
	cfg      livehttp.Config
	buffer   int
	shards   int
	poll     time.Duration
	overlap  time.Duration
	disabled bool
	// The table stream reader (DynamoDB).
	streamPoll      time.Duration
	lease           time.Duration
	streamsEndpoint string // AWS_ENDPOINT_URL_DYNAMODB_STREAMS, read with the config
}

// register adds the -live-* flags to fs.
func (f *liveFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&f.disabled, "no-subscriptions", false, "turn off subscriptions (websocket and SSE)")
	fs.BoolVar(&f.cfg.RequireAuth, "live-auth", false, "subscriptions need a credential, as mutations do")
	fs.IntVar(&f.cfg.MaxSubscriptionsPerConn, "live-max-subscriptions", livehttp.DefaultMaxSubscriptionsPerConn, "most active subscriptions on one websocket connection")
	fs.IntVar(&f.cfg.SubscriptionBudget, "live-subscription-budget", livehttp.DefaultSubscriptionBudget, "most complexity points one client's active subscriptions may cost together (each event executes them again; negative: no bound)")
	fs.IntVar(&f.cfg.MaxConnsPerClient, "live-max-connections", livehttp.DefaultMaxConnsPerClient, "most open websocket/SSE connections of one client (by JWT subject or address; API keys unlimited)")
	fs.IntVar(&f.cfg.MaxInFlightPerConn, "live-max-inflight", livehttp.DefaultMaxInFlightPerConn, "most queries and mutations executing at once on one websocket connection")
	fs.IntVar(&f.cfg.MaxInFlightPerClient, "live-max-inflight-client", livehttp.DefaultMaxInFlightPerClient, "most queries and mutations executing at once over all the websocket connections of one client")
	fs.DurationVar(&f.cfg.KeepAlive, "live-keepalive", livehttp.DefaultKeepAlive, "websocket ping and SSE keep-alive comment interval")
	fs.DurationVar(&f.cfg.WriteTimeout, "live-write-timeout", livehttp.DefaultLiveWriteTimeout, "close a live connection whose client accepts no data for this long")
	fs.DurationVar(&f.cfg.WriteInterval, "live-write-interval", livehttp.DefaultLiveWriteInterval, "one send of subscription events per this interval on one connection, on average (up to four at once after a quiet spell); events that come sooner leave together when the next send is due (0: every event at once)")
	fs.IntVar(&f.buffer, "live-buffer", live.DefaultBuffer, "events held per subscriber; a subscriber that falls further behind is ended with SLOW_CONSUMER")
	fs.IntVar(&f.shards, "live-shards", DefaultLiveShards, "DynamoDB: change log partitions, by product (every instance on a table must use the same number)")
	fs.DurationVar(&f.poll, "live-poll", live.DefaultPollInterval, "DynamoDB: how often an instance with subscribers reads the change log")
	fs.DurationVar(&f.overlap, "live-overlap", live.DefaultOverlap, "DynamoDB: how far back each change log read goes before the newest change seen (stream readers' clock skew plus the longest log write)")
	fs.DurationVar(&f.streamPoll, "live-stream-poll", live.DefaultStreamPoll, "DynamoDB: how often the elected stream reader reads each table stream shard")
	fs.DurationVar(&f.lease, "live-lease", live.DefaultLeaseDuration, "DynamoDB: the stream reader's lease; another instance takes over this long after the reader stops renewing it (renewed every third of it)")
}

// DefaultLiveShards is the default number of change log partitions: each
// takes at most 1,000 log writes and 3,000 read units per second (one
// DynamoDB partition), and each costs every instance with subscribers one
// query per -live-poll.
const DefaultLiveShards = 4

// liveRun is the running subscription machinery of one server.
type liveRun struct {
	hub    *live.Hub
	conns  *livehttp.Live
	stop   context.CancelFunc
	stores []store.Option
	s      *store.Store // set by start
	once   sync.Once
	done   sync.WaitGroup // the follower and the stream reader
}

// newLive prepares subscriptions for a store of kind "bolt" or "dynamodb":
// the store options that make its writes reach the hub. Call start once
// the store exists.
func (f *liveFlags) newLive(kind string, log *slog.Logger) *liveRun {
	if f.disabled {
		return &liveRun{}
	}
	lr := &liveRun{}
	lr.hub = live.NewHub(live.Config{Buffer: f.buffer, Logger: log,
		Stats: func(ctx context.Context, ids []store.StatsID) ([]*store.Stats, error) { return lr.s.GetStats(ctx, ids) }})
	f.cfg.Hub = lr.hub
	lr.conns = livehttp.New(f.cfg)
	if kind == "dynamodb" {
		lr.stores = []store.Option{store.WithChangeLog(f.shards)}
	} else {
		lr.stores = []store.Option{store.WithPublisher(lr.hub)}
	}
	return lr
}

// start begins, for a store s on DynamoDB table raw, following the change
// log and taking part in the election of the table's stream reader. A table
// without a stream is an error that names the command enabling it.
func (lr *liveRun) start(ctx context.Context, s *store.Store, raw table.Table, f *liveFlags, m *metrics.Collectors, log *slog.Logger) error {
	lr.s = s
	tbl, ok := raw.(*dynamo.Table)
	if lr.hub == nil || s.ChangeShards() == 0 || !ok {
		return nil
	}
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	arn, err := tbl.StreamARN(sctx)
	cancel()
	if err != nil {
		return err
	}
	client := tbl.Client()
	if client == nil {
		return fmt.Errorf("live: the DynamoDB table has no SDK client to read its stream with")
	}
	ctx, lr.stop = context.WithCancel(ctx)
	fl := &live.Follower{Log: s, Hub: lr.hub, Interval: f.poll, Overlap: f.overlap, Logger: log}
	lease := &live.Lease{Table: raw, Owner: instanceID(), Duration: f.lease}
	m.StreamLease(lease.Held)
	rd := &live.Reader{
		Stream: dynamo.NewStream(dynamo.StreamClientFor(client, f.streamsEndpoint), arn),
		Lease:  lease,
		Sink:   s.AppendChanges, Poll: f.streamPoll, Renew: f.lease / 3, Logger: log,
	}
	lr.done.Go(func() { fl.Run(ctx) })
	lr.done.Go(func() { rd.Run(ctx) })
	return nil
}

// instanceID names this process in the stream reader's lease: host, pid
// and a random part (a restarted process is a new candidate).
func instanceID() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s/%d/%s", host, os.Getpid(), ulid.Make())
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
			lr.done.Wait() // the reader releases its lease
		}
		lr.hub.Close()
	})
}
