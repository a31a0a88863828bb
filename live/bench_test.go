package live_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/config"

	"github.com/acme/comments-gateway/live"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/dynamo"
	"github.com/acme/comments-gateway/store/dynamo/dynamotest"
)

// capacityMeter sums the read capacity DynamoDB reports for change log
// queries: the store.Accountant of the followers' contexts.
type capacityMeter struct {
	mu    sync.Mutex
	units float64
	calls int
}

func (m *capacityMeter) Account(c store.Call) {
	if c.Op == store.CallQuery {
		m.mu.Lock()
		m.units += c.ReadCapacity
		m.calls++
		m.mu.Unlock()
	}
}

// BenchmarkTwoInstances measures, on DynamoDB Local, the delivery latency
// from a write's commit on instance A to the event on instance B's hub, and
// the read capacity the followers consume, per instance and second, for
// the given poll interval and change log shards:
//
//	DYNAMODB_ENDPOINT=http://127.0.0.1:8765 go test -run '^$' -bench TwoInstances -benchtime 40x ./live/
func BenchmarkTwoInstances(b *testing.B) {
	for _, tc := range []struct {
		poll   time.Duration
		shards int
	}{{500 * time.Millisecond, 1}, {500 * time.Millisecond, 4}, {200 * time.Millisecond, 1}} {
		b.Run(fmt.Sprintf("poll=%s/shards=%d", tc.poll, tc.shards), func(b *testing.B) {
			benchTwoInstances(b, tc.poll, tc.shards)
		})
	}
}

func benchTwoInstances(b *testing.B, poll time.Duration, shards int) {
	name := mustDynamoTable(b)
	meter := &capacityMeter{}
	open := func() (*store.Store, *live.Hub, func()) {
		tbl := dynamo.New(dynamotest.MustClient(b, config.WithRetryer(dynamo.NewRetryer)), name)
		var s *store.Store
		hub := live.NewHub(live.Config{Stats: func(ctx context.Context, ids []store.StatsID) ([]*store.Stats, error) { return s.GetStats(ctx, ids) }})
		s = store.New(tbl, store.WithChangeLog(shards))
		ctx, cancel := context.WithCancel(store.WithAccountant(context.Background(), meter))
		done := make(chan struct{})
		go func() {
			defer close(done)
			(&live.Follower{Log: s, Hub: hub, Interval: poll}).Run(ctx)
		}()
		return s, hub, func() { cancel(); <-done; hub.Close() }
	}
	a, hubA, stopA := open()
	defer stopA()
	_, hubB, stopB := open()
	defer stopB()
	ctx := context.Background()
	subB := mustSubscribe(b, hubB, "bench", live.TopicAdded, store.Filter{})
	_ = mustSubscribe(b, hubA, "bench", live.TopicAdded, store.Filter{}) // A polls too: both instances pay
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	start := time.Now()
	meter.mu.Lock()
	units0, calls0 := meter.units, meter.calls
	meter.mu.Unlock()
	for i := range b.N {
		// Writes arrive at random moments of the poll cycle.
		time.Sleep(rand.N(poll))
		c, err := a.CreateComment(ctx, store.NewComment{ProductID: "bench", Language: "en", Rating: 5, Author: "a", Title: fmt.Sprint(i), Body: "b"})
		if err != nil {
			b.Fatal(err)
		}
		committed := time.Now()
		for ev := next(b, subB); ev.Comment.ID != c.ID; ev = next(b, subB) {
		}
		lat = append(lat, time.Since(committed))
	}
	elapsed := time.Since(start)
	b.StopTimer()
	meter.mu.Lock()
	units, calls := meter.units-units0, meter.calls-calls0
	meter.mu.Unlock()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Milliseconds()), "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Milliseconds()), "p99-ms")
	b.ReportMetric(units/elapsed.Seconds()/2, "RCU/s/instance")
	b.ReportMetric(float64(calls)/elapsed.Seconds()/2, "queries/s/instance")
	b.ReportMetric(0, "ns/op")
}
