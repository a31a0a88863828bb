package main

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// tableCounters sums, from a /metrics page, the table's counters over their
// labels: items read and requests, and the requests of one op.
func tableCounters(t *testing.T, page, op string) (items, requests, opRequests float64) {
	t.Helper()
	for _, line := range strings.Split(page, "\n") {
		name, rest, ok := strings.Cut(line, "{")
		if !ok {
			continue
		}
		labels, value, ok := strings.Cut(rest, "} ")
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			t.Fatalf("metrics line %q: %v", line, err)
		}
		switch name {
		case "comments_table_items_read_total":
			items += v
		case "comments_table_requests_total":
			requests += v
			if strings.Contains(labels, `op="`+op+`"`) {
				opRequests += v
			}
		}
	}
	return items, requests, opRequests
}

// TestMetricsCountWhatCostReports: the server counts a store call once, by
// its backend, and both /metrics and extensions.cost read that count: the
// table counters grow by exactly the cost a GraphQL response reports, and a
// /readyz probe (a request outside GraphQL) is one get in the metrics.
func TestMetricsCountWhatCostReports(t *testing.T) {
	s := MustServeInProcess(t, nil) // dev mode: /metrics on the API listener
	for range 3 {
		if r := s.Do(t, "POST", "/graphql", accQuery(accMutation)); r.status != 200 || strings.Contains(r.body, `"errors"`) {
			t.Fatalf("createComment: %d %s", r.status, r.body)
		}
	}
	metrics := func() string {
		t.Helper()
		r := s.Do(t, "GET", "/metrics", "")
		if r.status != 200 {
			t.Fatalf("GET /metrics: %d", r.status)
		}
		return r.body
	}
	items0, requests0, _ := tableCounters(t, metrics(), "get")
	r := s.Do(t, "POST", "/graphql", accQuery(`{ product(id: "p1") { comments(first: 2) { totalCount edges { node { id } } } } }`))
	var resp struct {
		Extensions struct {
			Cost struct{ ItemsRead, Requests float64 }
		}
	}
	if err := json.Unmarshal([]byte(r.body), &resp); err != nil || r.status != 200 {
		t.Fatalf("query: %d %s", r.status, r.body)
	}
	cost := resp.Extensions.Cost
	if cost.ItemsRead < 3 || cost.Requests < 2 { // the stats item and 2 comments, 1 past the page; a stats read and a query
		t.Fatalf("extensions.cost %+v: the query read too little", cost)
	}
	items1, requests1, gets1 := tableCounters(t, metrics(), "get")
	if items1-items0 != cost.ItemsRead || requests1-requests0 != cost.Requests {
		t.Errorf("the table counters grew by %v items and %v requests; extensions.cost says %+v", items1-items0, requests1-requests0, cost)
	}
	if r := s.Do(t, "GET", "/readyz", ""); r.status != 200 {
		t.Fatalf("GET /readyz: %d", r.status)
	}
	_, requests2, gets2 := tableCounters(t, metrics(), "get")
	if requests2-requests1 != 1 || gets2-gets1 != 1 {
		t.Errorf("/readyz: %v requests, %v gets counted; want its one get", requests2-requests1, gets2-gets1)
	}
}
