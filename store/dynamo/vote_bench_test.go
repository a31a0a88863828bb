package dynamo

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/table"
)

// BenchmarkHotComment votes from 16 concurrent clients on DynamoDB Local,
// all on one comment ("hot") or one comment each ("spread"); every vote is
// a new voter's, helpful or not at random. It reports votes/s, the
// table calls per vote, the conflicts retried per vote (vote writes whose
// shard another voter held, and settles that lost a race) and the
// client-visible errors (which fail
// the benchmark); it checks every comment's settled counts against the
// votes acknowledged, and reports how long after the last acknowledged
// vote the comments showed them ("settled-ms": 0 when the last vote's own
// settle had done it).
//
//	go test -run '^$' -bench HotComment -benchtime 400x -count 3 ./store/dynamo/
func BenchmarkHotComment(b *testing.B) {
	for _, layout := range []string{"spread", "hot"} {
		b.Run(layout, func(b *testing.B) { benchVotes(b, layout == "hot") })
	}
}

// callCounter counts the table calls of a store (a load-independent
// measure of the work a vote takes: DynamoDB Local on a busy machine is
// CPU-bound, and votes/s then follow calls/op).
type callCounter struct {
	table.Table
	calls atomic.Int64
}

func (c *callCounter) Get(ctx context.Context, k table.Key) (table.Item, error) {
	c.calls.Add(1)
	return c.Table.Get(ctx, k)
}

func (c *callCounter) Query(ctx context.Context, q table.Query) (table.QueryResult, error) {
	c.calls.Add(1)
	return c.Table.Query(ctx, q)
}

func (c *callCounter) Write(ctx context.Context, ops []table.Op) error {
	c.calls.Add(1)
	return c.Table.Write(ctx, ops)
}

func benchVotes(b *testing.B, hot bool) {
	c := MustClient(b)
	tbl := &conflictCounter{Table: MustTable(b, c, c)}
	calls := &callCounter{Table: tbl}
	s := store.New(calls)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	ids := make([]string, hotWriters)
	for w := range ids {
		cm, err := s.CreateComment(ctx, store.NewComment{ProductID: "p", Language: "en", Rating: 4, Author: "a", Title: "t", Body: "b"})
		if err != nil {
			b.Fatal(err)
		}
		ids[w] = cm.ID
	}
	if hot {
		ids = ids[:1]
	}
	calls.calls.Store(0)
	var next, errs atomic.Int64
	want := make([][2]int64, hotWriters) // per client: helpful, unhelpful acknowledged
	done := make(chan struct{})
	b.ResetTimer()
	start := time.Now()
	for w := range hotWriters {
		go func() {
			defer func() { done <- struct{}{} }()
			rng := rand.New(rand.NewPCG(uint64(w), 5))
			id := ids[w%len(ids)]
			for n := next.Add(1); n <= int64(b.N); n = next.Add(1) {
				helpful := rng.IntN(3) > 0
				if _, err := s.VoteComment(ctx, id, fmt.Sprintf("voter-%d", n), &helpful); err != nil {
					errs.Add(1)
					b.Logf("vote: %v", err)
					continue
				}
				if helpful {
					want[w][0]++
				} else {
					want[w][1]++
				}
			}
		}()
	}
	for range hotWriters {
		<-done
	}
	lastAck := time.Now()
	elapsed := lastAck.Sub(start)
	b.StopTimer()
	callsPerVote := float64(calls.calls.Load()) / float64(b.N)
	expect := map[string][2]int64{}
	for w, v := range want {
		e := expect[ids[w%len(ids)]]
		expect[ids[w%len(ids)]] = [2]int64{e[0] + v[0], e[1] + v[1]}
	}
	var settled time.Duration
	for {
		cs, err := s.GetComments(ctx, ids)
		if err != nil {
			b.Fatal(err)
		}
		wrong := 0
		for _, cm := range cs {
			if e := expect[cm.ID]; cm.HelpfulCount != e[0] || cm.UnhelpfulCount != e[1] {
				wrong++
			}
		}
		if wrong == 0 {
			break
		}
		if settled = time.Since(lastAck); settled > 5*time.Second {
			b.Errorf("%d comments still show other counts than the votes acknowledged", wrong)
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "votes/s")
	b.ReportMetric(callsPerVote, "calls/op")
	b.ReportMetric(float64(tbl.conflicts.Load())/float64(b.N), "conflicts/op")
	b.ReportMetric(float64(tbl.transactions.Load())/float64(b.N), "txconflicts/op")
	b.ReportMetric(float64(settled.Milliseconds()), "settled-ms")
	b.ReportMetric(float64(errs.Load()), "errors")
	if errs.Load() > 0 {
		b.Errorf("%d of %d votes failed", errs.Load(), b.N)
	}
}
