package live_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/acme/comments-gateway/live"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/table"
)

// capacityMeter counts the requests of the live machinery: change log
// queries (with the read capacity DynamoDB reports) and stream reads.
type capacityMeter struct {
	mu      sync.Mutex
	units   float64
	queries int
	stream  int // GetRecords calls
}

// Account is the table.Accountant of the followers' and readers' calls.
func (m *capacityMeter) Account(c table.Call) {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch c.Op {
	case table.CallQuery:
		m.units += c.ReadCapacity
		m.queries++
	case table.CallStreamRecords:
		m.stream++
	}
}

func (m *capacityMeter) read() (float64, int, int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.units, m.queries, m.stream
}

// BenchmarkTwoInstances measures, on DynamoDB Local, the delivery latency
// from a write's commit through instance A to the event on instance B's
// hub (stream → elected reader → change log → B's follower), and the reads
// that costs per second: the reader's GetRecords calls, and the change log
// queries and read capacity of the followers, per instance, for the given
// follower poll interval and change log shards (stream poll 250 ms):
//
//	DYNAMODB_ENDPOINT=http://127.0.0.1:8765 go test -run '^$' -bench TwoInstances -benchtime 60x ./live/
func BenchmarkTwoInstances(b *testing.B) {
	for _, tc := range []struct {
		poll   time.Duration
		shards int
	}{{500 * time.Millisecond, 4}, {500 * time.Millisecond, 1}, {200 * time.Millisecond, 4}} {
		b.Run(fmt.Sprintf("poll=%s/shards=%d", tc.poll, tc.shards), func(b *testing.B) {
			benchTwoInstances(b, tc.poll, tc.shards)
		})
	}
}

func benchTwoInstances(b *testing.B, poll time.Duration, shards int) {
	name := mustDynamoTable(b)
	meter := &capacityMeter{}
	rs := readerSetup{poll: poll, accountant: meter, streamPoll: live.DefaultStreamPoll}
	a := mustInstanceWith(b, name, shards, rs)
	bi := mustInstanceWith(b, name, shards, rs)
	ctx := context.Background()
	subB := mustSubscribe(b, bi.hub, "bench", live.TopicAdded, store.Filter{})
	_ = mustSubscribe(b, a.hub, "bench", live.TopicAdded, store.Filter{}) // A polls too: both instances pay
	// lat: from the write's return (after its commit), a lower bound;
	// upper: from the write's call (before its commit), an upper bound.
	lat, upper := make([]time.Duration, 0, b.N), make([]time.Duration, 0, b.N)
	b.ResetTimer()
	start := time.Now()
	units0, queries0, stream0 := meter.read()
	for i := range b.N {
		// Writes arrive at random moments of the poll cycles.
		time.Sleep(rand.N(poll))
		// The commit lies between the call and its return (rating 4: no
		// leaderboard settle after the commit delays the return).
		called := time.Now()
		c, err := a.store.CreateComment(ctx, store.NewComment{ProductID: "bench", Language: "en", Rating: 4, Author: "a", Title: fmt.Sprint(i), Body: "b"})
		if err != nil {
			b.Fatal(err)
		}
		returned := time.Now()
		for ev := next(b, subB); ev.Comment.ID != c.ID; ev = next(b, subB) {
		}
		lat = append(lat, time.Since(returned))
		upper = append(upper, time.Since(called))
	}
	elapsed := time.Since(start).Seconds()
	b.StopTimer()
	units, queries, stream := meter.read()
	slices.Sort(lat)
	slices.Sort(upper)
	b.ReportMetric(float64(lat[len(lat)/2].Milliseconds()), "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Milliseconds()), "p99-ms")
	b.ReportMetric(float64(upper[len(upper)/2].Milliseconds()), "p50-upper-ms")
	b.ReportMetric(float64(upper[len(upper)*99/100].Milliseconds()), "p99-upper-ms")
	b.ReportMetric((units-units0)/elapsed/2, "RCU/s/instance")
	b.ReportMetric(float64(queries-queries0)/elapsed/2, "queries/s/instance")
	b.ReportMetric(float64(stream-stream0)/elapsed, "GetRecords/s")
	b.ReportMetric(0, "ns/op")
}
