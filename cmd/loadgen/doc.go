// Command loadgen drives a running gateway with the page queries that matter
// and prints, per scenario, requests/s, p50 and p99 latency and the items
// each request read (from extensions.cost), plus the ratios that the
// planner's targets are stated in (deep page ÷ first page, merged ÷ single).
//
//	go run ./cmd/loadgen -url http://127.0.0.1:8080/graphql -duration 10s
//
// It only talks to loopback addresses and stops after -duration per
// scenario (or -requests requests, whichever comes first).
package main
