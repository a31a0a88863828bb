package metrics

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/acme/comments-gateway/store/table"
)

// TestAccountLabelsByOpAndIndex: a call counts one request and its items
// under its operation and index ("table" for the base table); a nil
// Collectors counts nothing.
func TestAccountLabelsByOpAndIndex(t *testing.T) {
	(*Collectors)(nil).Account(table.Call{Op: table.CallGet, Items: 1})
	c := New(prometheus.NewRegistry())
	c.Account(table.Call{Op: table.CallQuery, Index: table.IndexByLang, Items: 7, ReadCapacity: 1})
	c.Account(table.Call{Op: table.CallQuery, Index: table.IndexByLang, Items: 2})
	c.Account(table.Call{Op: table.CallGet, Items: 0})
	c.Account(table.Call{Op: table.CallWrite})
	for _, tc := range []struct {
		counter   *prometheus.CounterVec
		op, index string
		want      float64
	}{
		{c.requests, "query", table.IndexByLang, 2},
		{c.itemsRead, "query", table.IndexByLang, 9},
		{c.requests, "get", "table", 1},
		{c.itemsRead, "get", "table", 0},
		{c.requests, "write", "table", 1},
	} {
		if got := counterValue(t, tc.counter, tc.op, tc.index); got != tc.want {
			t.Errorf("{op=%q,index=%q} = %v, want %v", tc.op, tc.index, got, tc.want)
		}
	}
}
