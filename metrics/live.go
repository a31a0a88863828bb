package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// newLiveDelivery is the histogram of ObserveLiveDelivery.
func newLiveDelivery() prometheus.Histogram {
	return prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "comments_live_delivery_seconds",
		Help: "Time from a change's publication to the gateway's live hub (right after the write's commit on this instance; " +
			"when the change log follower read it otherwise) to its event handed to a subscriber's connection, one observation per delivery.",
		Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2, 5, 10},
	})
}

// ObserveLiveDelivery records one subscription delivery that took d from
// the change's publication.
func (c *Collectors) ObserveLiveDelivery(d time.Duration) {
	if c == nil {
		return
	}
	c.live.Observe(d.Seconds())
}

// newStreamLease is the gauge of StreamLease: 0 until a lease is set.
func newStreamLease(held func() bool) prometheus.GaugeFunc {
	return prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "comments_live_stream_lease_held",
		Help: "1 while this instance holds the lease of the live stream reader (the one instance reading the DynamoDB stream), 0 otherwise.",
	}, func() float64 {
		if held() {
			return 1
		}
		return 0
	})
}

// StreamLease makes the stream lease gauge report held (the live stream
// reader's Lease.Held). Until it is called, and on the embedded store,
// which has no stream, the gauge is 0.
func (c *Collectors) StreamLease(held func() bool) {
	if c == nil {
		return
	}
	c.leaseHeld.Store(&held)
}

// streamLeaseHeld is the gauge's reading of the function StreamLease set.
func (c *Collectors) streamLeaseHeld() bool {
	if f := c.leaseHeld.Load(); f != nil {
		return (*f)()
	}
	return false
}
