package live_test

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/acme/comments-gateway/live"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/dynamo"
	"github.com/acme/comments-gateway/store/dynamo/dynamotest"
	"github.com/acme/comments-gateway/store/table"
)

// instance is one gateway process on a shared DynamoDB table: its own
// client, store, hub, follower, and candidate stream reader.
type instance struct {
	store *store.Store
	hub   *live.Hub
	lease *live.Lease
}

// mustDynamoTable creates a fresh table (with its stream) on DynamoDB
// Local (skipping without DYNAMODB_ENDPOINT) and returns its name.
func mustDynamoTable(tb testing.TB) string {
	tb.Helper()
	c := dynamotest.MustClient(tb, config.WithRetryer(dynamo.NewRetryer))
	name := fmt.Sprintf("live-%d-%d", os.Getpid(), time.Now().UnixNano()%1e9)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := dynamo.New(c, name).CreateTable(ctx, true); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		_, _ = c.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(name)})
	})
	return name
}

// readerSetup lets a test wrap what a Reader uses (to inject a crash).
type readerSetup struct {
	table      func(table.Table) table.Table
	stream     func(live.StreamSource) live.StreamSource
	sink       func(live.ChangeSink) live.ChangeSink
	poll       time.Duration                       // the follower's poll (50 ms when 0)
	streamPoll time.Duration                       // the reader's poll (50 ms when 0)
	accountant table.Accountant                    // of the follower's and the reader's calls, if set
	log        func(live.ChangeLog) live.ChangeLog // wraps the follower's change log, if set
}

// mustInstance starts an instance on table name with shards change log
// shards; it stops when the test ends.
func mustInstance(tb testing.TB, name string, shards int) *instance {
	return mustInstanceWith(tb, name, shards, readerSetup{})
}

func mustInstanceWith(tb testing.TB, name string, shards int, rs readerSetup) *instance {
	tb.Helper()
	c := dynamotest.MustClient(tb, config.WithRetryer(dynamo.NewRetryer))
	in := &instance{}
	in.hub = live.NewHub(live.Config{Stats: func(ctx context.Context, ids []store.StatsID) ([]*store.Stats, error) {
		return in.store.GetStats(ctx, ids)
	}})
	tbl := dynamo.New(c, name)
	in.store = store.New(tbl, store.WithChangeLog(shards))
	arn, err := tbl.StreamARN(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	st := dynamo.NewStream(dynamo.StreamClientFor(c, ""), arn)
	var src live.StreamSource = st
	var lt table.Table = tbl
	sink := live.ChangeSink(in.store.AppendChanges)
	if rs.table != nil {
		lt, src, sink = rs.table(lt), rs.stream(src), rs.sink(sink)
	}
	in.lease = &live.Lease{Table: lt, Owner: fmt.Sprintf("test-%p", in), Duration: 2 * time.Second}
	rd := &live.Reader{Stream: src, Lease: in.lease, Sink: sink, Poll: cmp.Or(rs.streamPoll, 50*time.Millisecond), Renew: 500 * time.Millisecond}
	ctx := context.Background()
	if rs.accountant != nil {
		ctx = table.WithAccountant(ctx, rs.accountant)
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var log live.ChangeLog = in.store
	if rs.log != nil {
		log = rs.log(log)
	}
	wg.Go(func() {
		(&live.Follower{Log: log, Hub: in.hub, Interval: cmp.Or(rs.poll, 50*time.Millisecond)}).Run(ctx)
	})
	wg.Go(func() { rd.Run(ctx) })
	tb.Cleanup(func() { cancel(); wg.Wait(); in.hub.Close() })
	return in
}

// next waits for the next event of sub (bounded, so a lost event fails the
// test instead of hanging it).
func next(tb testing.TB, sub *live.Subscription) live.Event {
	tb.Helper()
	select {
	case ev, ok := <-sub.Events():
		if !ok {
			tb.Fatalf("subscription ended: %v", sub.Err())
		}
		return ev
	case <-time.After(30 * time.Second):
		tb.Fatal("no event within 30s")
	}
	return live.Event{}
}

// TestTwoInstancesOnDynamoDB: writes through instance A reach subscribers
// on instance B (and on A itself) through the change log, in commit order,
// each exactly once. A change made just before the first subscription may
// be replayed (the first read goes Overlap back), never lost.
func TestTwoInstancesOnDynamoDB(t *testing.T) {
	name := mustDynamoTable(t)
	a, b := mustInstance(t, name, 2), mustInstance(t, name, 2)
	ctx := context.Background()
	old, err := a.store.CreateComment(ctx, store.NewComment{ProductID: "p1", Language: "en", Rating: 5, Author: "a", Title: "before", Body: "b"})
	if err != nil {
		t.Fatal(err)
	}
	onB := mustSubscribe(t, b.hub, "p1", live.TopicChanged, store.Filter{})
	onA := mustSubscribe(t, a.hub, "p1", live.TopicChanged, store.Filter{})
	stats := mustSubscribe(t, b.hub, "p1", live.TopicStats, store.Filter{})
	otherProduct := mustSubscribe(t, b.hub, "p2", live.TopicChanged, store.Filter{}) // on another shard or not: sees nothing
	c, err := a.store.CreateComment(ctx, store.NewComment{ProductID: "p1", Language: "fr", Rating: 3, Author: "a", Title: "t", Body: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.store.UpdateComment(ctx, store.CommentUpdate{ID: c.ID, Title: ptr("edited on B")}); err != nil {
		t.Fatal(err)
	}
	if err := a.store.DeleteComment(ctx, old.ID, store.AnyOwner); err != nil {
		t.Fatal(err)
	}
	want := []string{"ADDED " + c.ID, "UPDATED " + c.ID, "DELETED " + old.ID}
	for _, sub := range []*live.Subscription{onB, onA} {
		var got []string
		for len(got) < len(want) {
			if ev := describe([]live.Event{next(t, sub)}); ev[0] != "ADDED "+old.ID || len(got) > 0 {
				got = append(got, ev...)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("events %q, want %q", got, want)
		}
	}
	// The stats subscriber ends with the current statistics: one 3-star.
	for st := next(t, stats).Stats; st.Total != 1 || st.Counts[3] != 1; st = next(t, stats).Stats {
	}
	// Nothing more, nothing twice: a marker change is the next event.
	marker, err := a.store.CreateComment(ctx, store.NewComment{ProductID: "p1", Language: "en", Rating: 1, Author: "a", Title: "marker", Body: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if got := describe([]live.Event{next(t, onB)}); !slices.Equal(got, []string{"ADDED " + marker.ID}) {
		t.Errorf("after the three changes B got %q, want only the marker", got)
	}
	if got := drain(otherProduct); len(got) != 0 {
		t.Errorf("p2's subscriber got %q", describe(got))
	}
}
