package metrics

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/acme/comments-gateway/store/table"
)

// BenchmarkAccount is a page request's Table calls counted (a merged
// query and a batch get):
//
//	go test -run '^$' -bench BenchmarkAccount ./metrics/
func BenchmarkAccount(b *testing.B) {
	c := New(prometheus.NewRegistry())
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			c.Account(table.Call{Op: table.CallQuery, Index: table.IndexByLang, Items: 21})
			c.Account(table.Call{Op: table.CallBatchGet, Items: 1})
		}
	})
}
