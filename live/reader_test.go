package live_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"

	"github.com/acme/comments-gateway/live"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/dynamo"
	"github.com/acme/comments-gateway/store/dynamo/dynamotest"
	"github.com/acme/comments-gateway/store/table"
)

// collector is a ChangeSink that keeps what it receives.
type collector struct {
	mu      sync.Mutex
	changes []store.Change
}

func (c *collector) sink(_ context.Context, chs []store.Change) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.changes = append(c.changes, chs...)
	return nil
}

func (c *collector) snapshot() []store.Change {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.changes)
}

// mustStreamReader starts a Reader on table name's stream with sink; it
// stops when the test ends.
func mustStreamReader(t *testing.T, name, owner string, sink live.ChangeSink) *dynamo.Table {
	t.Helper()
	c := dynamotest.MustClient(t, config.WithRetryer(dynamo.NewRetryer))
	tbl := dynamo.New(c, name)
	arn, err := tbl.StreamARN(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rd := &live.Reader{Stream: dynamo.NewStream(dynamo.StreamClientFor(c, ""), arn), Sink: sink,
		Lease: &live.Lease{Table: tbl, Owner: owner}, Poll: 50 * time.Millisecond}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { rd.Run(ctx) })
	t.Cleanup(func() { cancel(); wg.Wait() })
	return tbl
}

// waitFor polls cond (a hang guard, not a timed assertion).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 30s", what)
		}
	}
}

// TestStreamReaderChanges: the reader turns the stream records of comment
// creates, updates and deletes into ADDED, UPDATED (with the old image)
// and DELETED changes, in write order, and ignores the statistics, change
// log and lease items that share the table. The sink gets each record at
// least once (a slow checkpoint on this loaded machine can make the reader
// pass a batch again), always with the same id: distinct ids are exactly
// the four writes.
func TestStreamReaderChanges(t *testing.T) {
	name := mustDynamoTable(t)
	col := &collector{}
	tbl := mustStreamReader(t, name, "reader", col.sink)
	s := store.New(tbl, store.WithChangeLog(2))
	ctx := context.Background()
	a, err := s.CreateComment(ctx, store.NewComment{ProductID: "p1", Language: "en", Rating: 5, Author: "a", Title: "one", Body: "b"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.CreateComment(ctx, store.NewComment{ProductID: "p2", Language: "de", Rating: 2, Author: "b", Title: "two", Body: "b"})
	if err != nil {
		t.Fatal(err)
	}
	a2, err := s.UpdateComment(ctx, store.CommentUpdate{ID: a.ID, Rating: ptr(3), Title: ptr("one, edited")})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteComment(ctx, b.ID, store.AnyOwner); err != nil {
		t.Fatal(err)
	}
	// The sink's own log writes (another store on the table) are in the
	// stream too, and must not come back as changes.
	if err := s.AppendChanges(ctx, []store.Change{{ID: "01JLOGGED0000000000000000", Kind: store.ChangeAdded, Comment: a}}); err != nil {
		t.Fatal(err)
	}
	want := []string{
		fmt.Sprintf("ADDED %s p1 en 5 one <nil>", a.ID),
		fmt.Sprintf("ADDED %s p2 de 2 two <nil>", b.ID),
		fmt.Sprintf("UPDATED %s p1 en 3 one, edited old=5 one", a.ID),
		fmt.Sprintf("DELETED %s p2 de 2 two <nil>", b.ID),
	}
	distinct := func() []store.Change {
		var out []store.Change
		byID := map[string]store.Change{}
		for _, ch := range col.snapshot() {
			if prev, ok := byID[ch.ID]; ok {
				if prev.Kind != ch.Kind || *prev.Comment != *ch.Comment {
					t.Errorf("change %s passed twice with different content: %+v, %+v", ch.ID, prev, ch)
				}
				continue
			}
			byID[ch.ID] = ch
			out = append(out, ch)
		}
		return out
	}
	waitFor(t, "four changes", func() bool { return len(distinct()) >= len(want) })
	time.Sleep(300 * time.Millisecond) // a few more rounds: nothing else arrives
	got := distinct()
	var desc []string
	for _, ch := range got {
		old := "<nil>"
		if ch.Old != nil {
			old = fmt.Sprintf("old=%d %s", ch.Old.Rating, ch.Old.Title)
		}
		c := ch.Comment
		desc = append(desc, fmt.Sprintf("%s %s %s %s %d %s %s", ch.Kind, c.ID, c.ProductID, c.Language, c.Rating, c.Title, old))
	}
	if !slices.Equal(desc, want) {
		t.Fatalf("changes\n%q\nwant\n%q", desc, want)
	}
	if u := got[2].Comment; u.Version != a2.Version || !u.CreatedAt.Equal(a.CreatedAt) || u.Body != "b" {
		t.Errorf("updated comment %+v, want version %d, createdAt and body kept", u, a2.Version)
	}
}

// TestLeaseElection: one candidate holds the lease; another takes it only
// once the holder has stopped renewing for the lease duration (or at once
// after a release), and the old holder's next renewal then fails.
func TestLeaseElection(t *testing.T) {
	name := mustDynamoTable(t)
	tbl := dynamo.New(dynamotest.MustClient(t, config.WithRetryer(dynamo.NewRetryer)), name)
	ctx := context.Background()
	// The default duration (3 s): far longer than one request takes even
	// on this loaded machine, so a's renewals always keep the lease.
	a := &live.Lease{Table: tbl, Owner: "a"}
	b := &live.Lease{Table: tbl, Owner: "b"}
	if _, ok, err := a.TryAcquire(ctx); err != nil || !ok {
		t.Fatalf("a takes a new lease: %v %v", ok, err)
	}
	cps := map[string]string{"shard-1": "000123"}
	// While a renews, b never takes the lease.
	for range 8 {
		if err := a.Renew(ctx, cps); err != nil {
			t.Fatal(err)
		}
		if _, ok, err := b.TryAcquire(ctx); err != nil || ok {
			t.Fatalf("b took a renewed lease: %v %v", ok, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
	// a stops renewing: b takes it after the duration, with a's checkpoints.
	var st live.LeaseState
	waitFor(t, "b takes the stale lease", func() bool {
		var ok bool
		var err error
		st, ok, err = b.TryAcquire(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	})
	if st.Checkpoints["shard-1"] != "000123" {
		t.Errorf("b's checkpoints %v, want a's", st.Checkpoints)
	}
	if a.Held() {
		t.Error("a still believes it holds the lease")
	}
	if err := a.Renew(ctx, cps); store.ErrorCode(err) != store.ECONFLICT {
		t.Errorf("a's renewal after the takeover: %v, want ECONFLICT", err)
	}
	// A release hands the lease over at once.
	if err := b.Release(ctx, map[string]string{"shard-1": "000456"}); err != nil {
		t.Fatal(err)
	}
	st, ok, err := a.TryAcquire(ctx)
	if err != nil || !ok {
		t.Fatalf("a takes a released lease: %v %v", ok, err)
	}
	if st.Checkpoints["shard-1"] != "000456" {
		t.Errorf("a's checkpoints %v, want b's last", st.Checkpoints)
	}
}

// killSwitch makes an instance's reader die (every lease write, stream
// read and log write fails) once the sink has logged killAfter batches: it
// is killed between logging a batch and checkpointing it, the worst
// moment.
type killSwitch struct {
	killAfter int32
	batches   atomic.Int32
	dead      atomic.Bool
}

var errKilled = store.Errorf(store.EUNAVAILABLE, "killed")

type killTable struct {
	table.Table
	k *killSwitch
}

func (t killTable) Get(ctx context.Context, key table.Key) (table.Item, error) {
	if t.k.dead.Load() {
		return nil, errKilled
	}
	return t.Table.Get(ctx, key)
}

func (t killTable) Write(ctx context.Context, ops []table.Op) error {
	if t.k.dead.Load() {
		return errKilled
	}
	return t.Table.Write(ctx, ops)
}

type killStream struct {
	live.StreamSource
	k *killSwitch
}

func (s killStream) Records(ctx context.Context, it string) ([]store.StreamRecord, string, error) {
	if s.k.dead.Load() {
		return nil, "", errKilled
	}
	return s.StreamSource.Records(ctx, it)
}

func (k *killSwitch) setup() readerSetup {
	return readerSetup{
		table:  func(t table.Table) table.Table { return killTable{t, k} },
		stream: func(s live.StreamSource) live.StreamSource { return killStream{s, k} },
		sink: func(next live.ChangeSink) live.ChangeSink {
			return func(ctx context.Context, chs []store.Change) error {
				if k.dead.Load() {
					return errKilled
				}
				err := next(ctx, chs)
				if k.batches.Add(1) == k.killAfter {
					k.dead.Store(true)
				}
				return err
			}
		},
	}
}

// TestReaderFailover: the leaseholder dies mid-stream, right after logging
// a batch and before checkpointing it; the other instance takes the lease
// over, re-reads that batch from the checkpoint (so the log holds it
// twice), and its subscriber still gets every comment exactly once.
func TestReaderFailover(t *testing.T) {
	name := mustDynamoTable(t)
	k := &killSwitch{killAfter: 3}
	a := mustInstanceWith(t, name, 2, k.setup())
	waitFor(t, "a holds the lease", a.lease.Held)
	b := mustInstance(t, name, 2)
	sub := mustSubscribe(t, b.hub, "p1", live.TopicAdded, store.Filter{})
	ctx := context.Background()
	writer := store.New(dynamo.New(dynamotest.MustClient(t, config.WithRetryer(dynamo.NewRetryer)), name))
	const n = 40
	var want []string
	for i := range n {
		c, err := writer.CreateComment(ctx, store.NewComment{ProductID: "p1", Language: "en", Rating: 1 + i%5, Author: "w", Title: fmt.Sprint(i), Body: "b"})
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, c.ID)
		time.Sleep(20 * time.Millisecond) // a stream, not one burst
	}
	var got []string
	for len(got) < n {
		got = append(got, next(t, sub).Comment.ID)
	}
	if !k.dead.Load() {
		t.Fatal("the leaseholder was never killed: the test did not fail over")
	}
	waitFor(t, "b holds the lease after the failover", b.lease.Held)
	// Nothing twice: a marker comment is the next event.
	marker, err := writer.CreateComment(ctx, store.NewComment{ProductID: "p1", Language: "en", Rating: 5, Author: "w", Title: "marker", Body: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if ev := next(t, sub); ev.Comment.ID != marker.ID {
		t.Errorf("after the %d comments the next event is %s, want the marker", n, ev.Comment.ID)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("b's subscriber got %d comments %q\nwant %q", len(got), got, want)
	}
	// The log holds the batch logged before the kill twice: the re-read
	// happened and the follower dropped it.
	logged := 0
	for shard := range 2 {
		chs, err := b.store.ReadChanges(ctx, shard, "")
		if err != nil {
			t.Fatal(err)
		}
		logged += len(chs)
	}
	if logged <= n+1 {
		t.Errorf("the log holds %d changes, want more than %d (the re-read batch twice)", logged, n+1)
	}
}
