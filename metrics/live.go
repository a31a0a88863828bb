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
