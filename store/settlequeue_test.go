package store_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/bolt/bolttest"
	"github.com/acme/comments-gateway/store/table"
)

// gatedTable holds each of its first BatchGets (settle reads) at a gate
// of its own, until the test opens it or the caller's ctx is done, after
// telling entered; every committed write of a 5-star comment of product
// "p" is told on committed.
type gatedTable struct {
	table.Table
	mu        sync.Mutex
	gates     []chan struct{} // of the BatchGets to come, in order
	entered   chan struct{}
	committed chan struct{}
}

func newGatedTable(t *testing.T, gates ...chan struct{}) *gatedTable {
	return &gatedTable{Table: bolttest.Open(t), gates: gates, entered: make(chan struct{}, len(gates)), committed: make(chan struct{}, 16)}
}

func (g *gatedTable) BatchGet(ctx context.Context, keys []table.Key) ([]table.Item, error) {
	g.mu.Lock()
	var gate chan struct{}
	if len(g.gates) > 0 {
		gate, g.gates = g.gates[0], g.gates[1:]
	}
	g.mu.Unlock()
	if gate != nil {
		g.entered <- struct{}{}
		select {
		case <-gate:
		case <-ctx.Done():
			return nil, table.Errorf(table.EUNAVAILABLE, "cancelled: %v", ctx.Err())
		}
	}
	return g.Table.BatchGet(ctx, keys)
}

func (g *gatedTable) Write(ctx context.Context, ops []table.Op) error {
	err := g.Table.Write(ctx, ops)
	for _, op := range ops {
		if err == nil && op.Kind == table.OpPut && op.Key.PK == store.PendingPK(store.LeaderShard("p")) {
			g.committed <- struct{}{} // a 5-star write of "p", its marker put
		}
	}
	return err
}

// startHeld makes a gatedTable with gates and a Store on it, and starts a
// first 5-star create of "p", returning once its write committed and its
// settle is held at the first gate.
func startHeld(t *testing.T, gates ...chan struct{}) (*gatedTable, *store.Store, <-chan error) {
	tbl := newGatedTable(t, gates...)
	s := store.New(tbl)
	first := fiveStar(context.Background(), s)
	<-tbl.entered
	<-tbl.committed
	return tbl, s, first
}

// fiveStar creates a 5-star comment of product "p" on s with ctx, in the
// background; its error goes to the returned channel.
func fiveStar(ctx context.Context, s *store.Store) <-chan error {
	done := make(chan error, 1)
	go func() {
		_, err := s.CreateComment(ctx, store.NewComment{ProductID: "p", Language: "en", Rating: 5, Author: "a", Title: "t", Body: "b"})
		done <- err
	}()
	return done
}

// markers returns the leaderboard markers in tbl.
func markers(t *testing.T, tbl table.Table) int {
	t.Helper()
	n := 0
	for k := range store.LeaderShards {
		res, err := tbl.Query(context.Background(), table.Query{HashValue: store.PendingPK(k), Forward: true, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		n += len(res.Items)
	}
	return n
}

// checkOneLeft checks that one marker is left in tbl (a cancelled
// writer's), and that TopProducts settles it: product "p" leads with
// fives 5-star comments in all languages and in "en", no marker left.
func checkOneLeft(t *testing.T, tbl table.Table, s *store.Store, fives int64) {
	t.Helper()
	if n := markers(t, tbl); n != 1 {
		t.Errorf("%d markers left, want the cancelled writer's only", n)
	}
	for _, lang := range []string{"en", ""} {
		top, err := s.TopProducts(context.Background(), lang, 1)
		if err != nil || len(top) != 1 || top[0].FiveStarCount != fives {
			t.Errorf("TopProducts(%q) = %+v, %v; want p with %d", lang, top, err, fives)
		}
	}
	if n := markers(t, tbl); n != 0 {
		t.Errorf("%d markers left after topProducts", n)
	}
}

// TestSettleQueueSettlerCancelled: writers B and C queue behind a
// product's settle round in flight (A's); B runs the next round, for both,
// and is cancelled mid-read. All three creates succeed; C's marker is
// settled all the same (after the failed round it settles alone), B's is
// left (its comment is written), and the next topProducts settles it.
func TestSettleQueueSettlerCancelled(t *testing.T) {
	gateA, gateB := make(chan struct{}), make(chan struct{})
	tbl, s, a := startHeld(t, gateA, gateB)
	ctx, cancel := context.WithCancel(context.Background())
	b := fiveStar(ctx, s)
	<-tbl.committed
	time.Sleep(20 * time.Millisecond) // B queues first
	c := fiveStar(context.Background(), s)
	<-tbl.committed
	time.Sleep(20 * time.Millisecond) // then C
	close(gateA)
	<-tbl.entered // B's round, for B and C
	cancel()
	for name, done := range map[string]<-chan error{"A": a, "B": b, "C": c} {
		if err := <-done; err != nil {
			t.Fatalf("create %s: %v (its write had committed)", name, err)
		}
	}
	checkOneLeft(t, tbl, s, 3)
}

// TestSettleQueueWaiterCancelled: a writer cancelled while queued behind a
// settle round in flight returns (its comment written) and leaves the
// queue and its marker; the round settles the others, and the next
// topProducts the rest.
func TestSettleQueueWaiterCancelled(t *testing.T) {
	gate := make(chan struct{})
	tbl, s, first := startHeld(t, gate)
	ctx, cancel := context.WithCancel(context.Background())
	waiter := fiveStar(ctx, s)
	<-tbl.committed
	cancel()
	select {
	case err := <-waiter:
		if err != nil {
			t.Fatalf("the cancelled waiter's create: %v (its write had committed)", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the cancelled waiter still waits for the round in flight")
	}
	close(gate)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	checkOneLeft(t, tbl, s, 2)
}
