package resolvers_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/acme/comments-gateway/live/livehttp"
	"github.com/acme/comments-gateway/resolvers"
)

// BenchmarkLiveFanout: 500 graphql-transport-ws subscribers of one
// commentAdded operation on one in-process handler (bbolt); each iteration
// creates one comment and waits until every subscriber read it. Reports
// the process's CPU (server and clients: getrusage) and wall time per
// delivery:
//
//	go test -run '^$' -bench LiveFanout -benchtime 200x ./resolvers/
func BenchmarkLiveFanout(b *testing.B) {
	const n = 500
	e := mustLiveEnvWith(b, resolvers.Config{}, livehttp.Config{MaxConnsPerClient: n + 1}, 0)
	var got atomic.Int64
	var wg sync.WaitGroup
	ctx, cancel := context.WithCancel(context.Background())
	defer func() { cancel(); wg.Wait() }()
	for range n {
		w := e.mustWS(b, nil)
		w.subscribe(b, "1", `subscription { commentAdded(productId: "p1") { id title createdAt } }`)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				_, msg, err := w.c.Read(ctx)
				if err != nil {
					return
				}
				if len(msg) > 20 && string(msg[:20]) == `{"payload":{"data":{` {
					got.Add(1)
				}
			}
		}()
	}
	// Every subscriber is in once every one has read a probe.
	for i := 0; got.Load() < n; i++ {
		got.Store(0)
		e.mustCreate(b, "p1", fmt.Sprint("probe", i))
		deadline := time.Now().Add(time.Second)
		for got.Load() < n && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
	}
	got.Store(0)
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := range b.N {
		e.mustCreate(b, "p1", fmt.Sprint("c", i))
		for got.Load() < int64(n*(i+1)) {
			time.Sleep(50 * time.Microsecond)
		}
	}
	b.StopTimer()
	deliveries := float64(b.N * n)
	b.ReportMetric(float64(cpuTime()-cpu0)/deliveries/1e3, "cpu-µs/delivery")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/deliveries/1e3, "wall-µs/delivery")
	b.ReportMetric(0, "ns/op")
}

// cpuTime is the process's user + system CPU time in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}
