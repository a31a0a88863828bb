package dynamo

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/table"
)

// hotWriters is how many writers BenchmarkHotProduct runs at once.
const hotWriters = 16

// conflictCounter is a Table that counts the writes that failed with
// ECONFLICT (a failed condition or a conflicting transaction; the store
// retries them).
type conflictCounter struct {
	table.Table
	conflicts    atomic.Int64
	transactions atomic.Int64 // of which conflicts between transactions (the rest: failed conditions)
}

func (c *conflictCounter) Write(ctx context.Context, ops []table.Op) error {
	err := c.Table.Write(ctx, ops)
	if table.ErrorCode(err) == table.ECONFLICT {
		c.conflicts.Add(1)
		if strings.Contains(err.Error(), "concurrent transaction") {
			c.transactions.Add(1)
		}
	}
	return err
}

// BenchmarkHotProduct creates comments from 16 concurrent writers on
// DynamoDB Local, all on one product ("hot") or one product each ("spread"),
// with ratings 1–5 uniformly ("mixed": a fifth change the 5-star count and
// contend on the leaderboard entry) or all 5-star ("five-star", the worst
// case). The writers share one Store, except in "hot-4stores": one product,
// the writers spread over 4 Stores on the table (4 gateway instances, whose
// leaderboard settles race each other). It reports writes/s, the table
// calls, settle attempts and conflicts retried per write, and the
// client-visible errors (which fail the benchmark), and checks the stats
// against the number of comments written.
//
//	go test -run '^$' -bench HotProduct -benchtime 400x ./store/dynamo/
func BenchmarkHotProduct(b *testing.B) {
	for _, ratings := range []string{"mixed", "five-star"} {
		for _, layout := range []struct {
			name   string
			stores int // 0: one product each
		}{{"spread", 0}, {"hot", 1}, {"hot-4stores", 4}} {
			b.Run(ratings+"/"+layout.name, func(b *testing.B) { benchHot(b, layout.stores, ratings == "five-star") })
		}
	}
}

// settleCounter counts the table calls of a store as callCounter does,
// and of them the BatchGets (in a create, only its leaderboard settle
// reads by BatchGet: one a settle attempt).
type settleCounter struct {
	callCounter
	batchGets atomic.Int64
}

func (c *settleCounter) BatchGet(ctx context.Context, keys []table.Key) ([]table.Item, error) {
	c.calls.Add(1)
	c.batchGets.Add(1)
	return c.Table.BatchGet(ctx, keys)
}

// benchHot runs BenchmarkHotProduct's writers: on one product over stores
// Stores, or one product each on one Store (stores 0).
func benchHot(b *testing.B, stores int, fiveOnly bool) {
	c := MustClient(b)
	tbl := &conflictCounter{Table: MustTable(b, c, c)}
	calls := &settleCounter{callCounter: callCounter{Table: tbl}}
	hot := stores > 0
	ss := make([]*store.Store, max(stores, 1))
	for i := range ss {
		ss[i] = store.New(calls)
	}
	s := ss[0]
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var next, errs atomic.Int64
	done := make(chan struct{})
	b.ResetTimer()
	start := time.Now()
	for w := range hotWriters {
		go func() {
			defer func() { done <- struct{}{} }()
			rng := rand.New(rand.NewPCG(uint64(w), 3))
			pid := "hot"
			if !hot {
				pid = fmt.Sprintf("p%d", w)
			}
			for next.Add(1) <= int64(b.N) {
				r := 5
				if !fiveOnly {
					r = 1 + rng.IntN(5)
				}
				_, err := ss[w%len(ss)].CreateComment(ctx, store.NewComment{ProductID: pid, Language: "en", Rating: r, Author: "a", Title: "t", Body: "b"})
				if err != nil {
					errs.Add(1)
					b.Logf("create: %v", err)
				}
			}
		}()
	}
	for range hotWriters {
		<-done
	}
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "writes/s")
	b.ReportMetric(float64(calls.calls.Load())/float64(b.N), "calls/op")
	b.ReportMetric(float64(calls.batchGets.Load())/float64(b.N), "settles/op")
	b.ReportMetric(float64(tbl.conflicts.Load())/float64(b.N), "conflicts/op")
	b.ReportMetric(float64(tbl.transactions.Load())/float64(b.N), "txconflicts/op")
	b.ReportMetric(float64(errs.Load()), "errors")
	if errs.Load() > 0 {
		b.Errorf("%d of %d writes failed", errs.Load(), b.N)
	}
	var total int64
	for w := range hotWriters {
		pid := fmt.Sprintf("p%d", w)
		if hot {
			if w > 0 {
				break
			}
			pid = "hot"
		}
		st, err := s.GetStats(ctx, []store.StatsID{{ProductID: pid}})
		if err != nil {
			b.Fatal(err)
		}
		total += st[0].Total
	}
	if total != int64(b.N)-errs.Load() {
		b.Errorf("stats count %d comments, %d were written", total, int64(b.N)-errs.Load())
	}
}
