package metrics

import (
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/acme/comments-gateway/store/table"
)

// TestAccountSeriesAsCounted: concurrent calls are all counted, and a
// series exists only once counted (a call without items makes no items
// series).
func TestAccountSeriesAsCounted(t *testing.T) {
	c := New(prometheus.NewRegistry())
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 100 {
				c.Account(table.Call{Op: table.CallQuery, Index: []string{"", table.IndexByLang}[(g+i)%2], Items: 1})
				c.Account(table.Call{Op: table.CallGet})
			}
		})
	}
	wg.Wait()
	series := make(chan prometheus.Metric, 10)
	c.itemsRead.Collect(series)
	if n := len(series); n != 2 {
		t.Errorf("%d items series, want 2 (get read none)", n)
	}
	for _, tc := range []struct {
		counter   *prometheus.CounterVec
		op, index string
		want      float64
	}{
		{c.requests, "query", "table", 400},
		{c.requests, "query", table.IndexByLang, 400},
		{c.itemsRead, "query", table.IndexByLang, 400},
		{c.requests, "get", "table", 800},
	} {
		if got := counterValue(t, tc.counter, tc.op, tc.index); got != tc.want {
			t.Errorf("{op=%q,index=%q} = %v, want %v", tc.op, tc.index, got, tc.want)
		}
	}
}
