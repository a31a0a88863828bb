//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acme/comments-gateway/store/dynamo/dynamotest"
)

// fleet is the test's load balancer: the gateways in service, picked in
// turn. A client retries a failed request on the next one, as a client
// behind a balancer (or the balancer itself) does when a connection is
// refused or reset.
type fleet struct {
	mu       sync.Mutex
	backends []*Server
	next     int
}

func (f *fleet) pick() *Server {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.backends[f.next%len(f.backends)]
	f.next++
	return s
}

func (f *fleet) set(backends ...*Server) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.backends = backends
}

// query posts query to the fleet until one gateway answers it without
// error, for at most a minute.
func (f *fleet) query(ctx context.Context, query string, vars map[string]any, out any) (retries int, err error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for {
		if err = f.pick().Query(ctx, query, vars, out); err == nil {
			return retries, nil
		}
		retries++
		select {
		case <-ctx.Done():
			return retries, fmt.Errorf("after %d retries: %w", retries, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// rollingSubscriber is a client of commentAdded(productId) that, as
// graphql-ws clients do, resubscribes (on the fleet) when its socket
// closes — with 1012 when its gateway shuts down — and then fetches what
// it may have missed, every page of the product's comments.
type rollingSubscriber struct {
	f       *fleet
	product string
	mu      sync.Mutex
	seen    map[string]bool // ids received by event or by the catch-up read
	events  atomic.Int64
	resubs  atomic.Int64
}

const rollingPage = `query($p: ID!, $after: String) { product(id: $p) { comments(first: 100, after: $after) {
	pageInfo { hasNextPage endCursor } edges { node { id } } } } }`

// run keeps the subscriber subscribed until ctx ends.
func (rs *rollingSubscriber) run(ctx context.Context, subscribed chan<- struct{}) error {
	first := true
	for ctx.Err() == nil {
		s := rs.f.pick()
		sub, err := subscribe(ctx, s.URL, `subscription($p: ID!) { commentAdded(productId: $p) { id } }`, map[string]any{"p": rs.product})
		if err != nil {
			time.Sleep(50 * time.Millisecond) // a gateway going away: try the next
			continue
		}
		if first {
			close(subscribed)
			first = false
		} else {
			rs.resubs.Add(1)
			// The subscription is registered once its subscribe message is
			// read; catch up after that.
			time.Sleep(500 * time.Millisecond)
			if err := rs.catchUp(ctx); err != nil && ctx.Err() == nil {
				sub.Close()
				return err
			}
		}
		stop := context.AfterFunc(ctx, sub.Close) // ends the range below
		for ev := range sub.Events {
			var d struct{ CommentAdded struct{ ID string } }
			if err := json.Unmarshal(ev, &d); err == nil {
				rs.events.Add(1)
				rs.mark(d.CommentAdded.ID)
			}
		}
		stop()
		sub.Close()
	}
	return nil
}

func (rs *rollingSubscriber) mark(id string) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.seen[id] = true
}

func (rs *rollingSubscriber) has(id string) bool {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.seen[id]
}

// catchUp reads every page of the product's comments.
func (rs *rollingSubscriber) catchUp(ctx context.Context) error {
	var after any
	for {
		var page struct {
			Product struct {
				Comments struct {
					PageInfo struct {
						HasNextPage bool
						EndCursor   string
					}
					Edges []struct{ Node struct{ ID string } }
				}
			}
		}
		if _, err := rs.f.query(ctx, rollingPage, map[string]any{"p": rs.product, "after": after}, &page); err != nil {
			return err
		}
		for _, e := range page.Product.Comments.Edges {
			rs.mark(e.Node.ID)
		}
		if !page.Product.Comments.PageInfo.HasNextPage {
			return nil
		}
		after = page.Product.Comments.PageInfo.EndCursor
	}
}

// TestRollingRestartDropsNothing runs two gateways on one DynamoDB Local
// table (with its stream, subscriptions crossing instances through it),
// writers creating comments and readers querying through the fleet, and
// subscribers on both gateways. It then replaces one gateway as a rollout
// does: SIGTERM (its in-flight requests finish, its websockets close with
// 1012, it exits 0), and a new one starts. Every request must succeed
// (retried on the other gateway when a connection is refused), and every
// acknowledged comment must reach every subscriber, by an event or by the
// catch-up read a client does after it resubscribes.
func TestRollingRestartDropsNothing(t *testing.T) {
	client := dynamotest.MustClient(t)
	table := fmt.Sprintf("rolling-%d-%d", os.Getpid(), time.Now().UnixNano())
	spec := "dynamodb:" + table
	MustRun(t, "create-table", "-store", spec)
	t.Cleanup(func() { deleteTable(t, client, table) })
	args := []string{"-store", spec, "-live-poll", "100ms", "-live-stream-poll", "100ms", "-live-lease", "2s", "-shutdown-timeout", "10s"}
	a, b := MustStartServer(t, args...), MustStartServer(t, args...)
	f := &fleet{}
	f.set(a, b)

	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	const product = "rolling"
	subs := make([]*rollingSubscriber, 4) // two on each gateway (the fleet alternates)
	subCtx, stopSubs := context.WithCancel(ctx)
	var wg sync.WaitGroup
	subErrs := make(chan error, len(subs))
	for i := range subs {
		subs[i] = &rollingSubscriber{f: f, product: product, seen: map[string]bool{}}
		subscribed := make(chan struct{})
		wg.Add(1)
		go func() {
			defer wg.Done()
			subErrs <- subs[i].run(subCtx, subscribed)
		}()
		select {
		case <-subscribed:
		case <-ctx.Done():
			t.Fatal("a subscriber could not subscribe")
		}
	}
	time.Sleep(time.Second) // every subscription registered

	var (
		mu       sync.Mutex
		acked    []string
		failures []error
		retries  atomic.Int64
	)
	loadCtx, stopLoad := context.WithCancel(ctx)
	var load sync.WaitGroup
	for w := range 3 {
		load.Add(1)
		go func() {
			defer load.Done()
			for n := 0; loadCtx.Err() == nil; n++ {
				var out struct {
					CreateComment struct{ Comment struct{ ID string } }
				}
				r, err := f.query(ctx, `mutation($p: ID!, $t: String!) { createComment(input: {productId: $p, language: "en", rating: 4, author: "roll", title: $t, body: "b"}) { comment { id } } }`,
					map[string]any{"p": product, "t": fmt.Sprintf("w%d-%d", w, n)}, &out)
				retries.Add(int64(r))
				mu.Lock()
				if err != nil {
					failures = append(failures, fmt.Errorf("createComment: %w", err))
				} else {
					acked = append(acked, out.CreateComment.Comment.ID)
				}
				mu.Unlock()
				if r, err := f.query(ctx, `query($p: ID!) { product(id: $p) { stats { total } } }`, map[string]any{"p": product}, nil); err != nil {
					mu.Lock()
					failures = append(failures, fmt.Errorf("query: %w", err))
					mu.Unlock()
				} else {
					retries.Add(int64(r))
				}
				time.Sleep(30 * time.Millisecond)
			}
		}()
	}

	time.Sleep(3 * time.Second)
	a.Stop(t) // SIGTERM while the load runs; fails the test on an unclean exit
	a2 := MustStartServer(t, args...)
	f.set(b, a2)
	time.Sleep(4 * time.Second)
	stopLoad()
	load.Wait()

	mu.Lock()
	defer mu.Unlock()
	for _, err := range failures {
		t.Errorf("a request failed on every retry: %v", err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for i, rs := range subs {
		for _, id := range acked {
			for !rs.has(id) && time.Now().Before(deadline) {
				time.Sleep(100 * time.Millisecond)
			}
			if !rs.has(id) {
				t.Errorf("subscriber %d never received comment %s (by event or catch-up)", i, id)
			}
		}
	}
	stopSubs()
	wg.Wait()
	close(subErrs)
	for err := range subErrs {
		if err != nil {
			t.Errorf("subscriber: %v", err)
		}
	}
	var events, resubs int64
	for _, rs := range subs {
		events += rs.events.Load()
		resubs += rs.resubs.Load()
	}
	t.Logf("%d comments acknowledged, %d retried requests, %d events delivered to %d subscribers, %d resubscriptions",
		len(acked), retries.Load(), events, len(subs), resubs)
	if resubs == 0 {
		t.Errorf("no subscriber had to resubscribe: the restarted gateway held none")
	}
}
