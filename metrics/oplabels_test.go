package metrics

import (
	"fmt"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// operationSeries returns the operation label's values of
// comments_graphql_requests_total in reg, with their counts.
func operationSeries(tb testing.TB, reg *prometheus.Registry) map[string]float64 {
	tb.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		if mf.GetName() != "comments_graphql_requests_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			out[labelValue(m, "operation")] = m.GetCounter().GetValue()
		}
	}
	return out
}

func labelValue(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// TestOperationLabelsByFrequency: once maxOperations names hold the
// labels, a name used often takes the place of the rarest one, whose
// series go; a flood of distinct names seen once each changes nothing
// (they are "other"); the labels never exceed maxOperations plus the
// fixed ones.
func TestOperationLabelsByFrequency(t *testing.T) {
	reg := prometheus.NewRegistry()
	c := New(reg)
	for i := range maxOperations {
		c.ObserveRequest(fmt.Sprintf("query Early%d", i), 0)
	}
	for i := range maxOperations { // the early names stay in use, but rarely
		if i != 7 {
			c.ObserveRequest(fmt.Sprintf("query Early%d", i), 0)
		}
	}
	for range 30 {
		c.ObserveRequest("query Popular", 0)
	}
	s := operationSeries(t, reg)
	if s["query Popular"] == 0 {
		t.Fatalf("query Popular, used 30 times, is not a label: %v", s)
	}
	if _, ok := s["query Early7"]; ok {
		t.Error("query Early7, the rarest label, kept its series")
	}
	const flood = 50_000 // five halvings: the sketch's noise at its steady state
	for i := range flood {
		c.ObserveRequest(fmt.Sprintf("query Flood%d", i), 0)
	}
	c.ObserveRequest("invalid", 0)
	c.ObserveRequest("", 0)
	c.ObserveRequest("query "+strings.Repeat("x", maxOpNameBytes), 0)
	before := s
	s = operationSeries(t, reg)
	if len(s) != maxOperations+3 || s["other"] != before["other"]+flood+1 || s["invalid"] != 1 || s["unknown"] != 1 {
		t.Fatalf("after the flood: %d series, other %v invalid %v unknown %v; want %d, %v, 1, 1",
			len(s), s["other"], s["invalid"], s["unknown"], maxOperations+3, before["other"]+flood+1)
	}
}

// TestOperationLabelsFollowRecentTraffic: counts halve every halveEvery
// requests, so a name once frequent and then unused gives its label to
// one in use.
func TestOperationLabelsFollowRecentTraffic(t *testing.T) {
	reg := prometheus.NewRegistry()
	c := New(reg)
	for i := range maxOperations {
		for range 1000 {
			c.ObserveRequest(fmt.Sprintf("query Old%d", i), 0)
		}
	}
	// 260,000 requests: the old counts have been halved 26 times.
	for range 6 * halveEvery {
		c.ObserveRequest("query New", 0)
	}
	if operationSeries(t, reg)["query New"] == 0 {
		t.Error("query New, the only name in use, never got a label")
	}
}
