package resolvers_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/acme/comments-gateway/internal/gqlhttp"
	"github.com/acme/comments-gateway/internal/policy"
	"github.com/acme/comments-gateway/live/livehttp"
	"github.com/acme/comments-gateway/resolvers"
	"github.com/acme/comments-gateway/store/table"
)

// nextRaw reads w's next message, which must be a `next` for id, and
// returns its payload's data as sent (key order kept).
func (w *wsConn) nextRaw(tb testing.TB, id string) string {
	tb.Helper()
	b, closed := w.readRaw(tb)
	var msg struct {
		Type, ID string
		Payload  struct{ Data json.RawMessage }
	}
	if err := json.Unmarshal(b, &msg); err != nil || msg.Type != "next" || msg.ID != id {
		tb.Fatalf("got %s (close %d), want next for %s", b, closed, id)
	}
	return string(msg.Payload.Data)
}

// waitSubscriptions waits until e has n active subscriptions (subscribing
// is asynchronous).
func (e *liveEnv) waitSubscriptions(tb testing.TB, n int) {
	tb.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for e.live.Subscriptions() != n {
		if time.Now().After(deadline) {
			tb.Fatalf("%d subscriptions, want %d", e.live.Subscriptions(), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestFanoutSharesAcrossNamesAndAliases: subscriptions of the same data
// under other operation names, aliases, variables and field order share
// one execution per event, and each gets the data in its own keys and
// order.
func TestFanoutSharesAcrossNamesAndAliases(t *testing.T) {
	var spy *spyTable
	e := mustLiveEnvOn(t, resolvers.Config{}, livehttp.Config{}, 0, func(t table.Table) table.Table { spy = newSpy(t); return spy })
	subs := []struct{ query, want string }{
		{`subscription A { commentAdded(productId: "p1") { title product { stats { total } } } }`,
			`{"commentAdded":{"title":"shared","product":{"stats":{"total":1}}}}`},
		{`subscription B { x: commentAdded(productId: "p1") { p: product { s: stats { n: total } } t: title } }`,
			`{"x":{"p":{"s":{"n":1}},"t":"shared"}}`},
		{`subscription { commentAdded(productId: "p1") { ...F } } fragment F on Comment { product { stats { total } } title }`,
			`{"commentAdded":{"product":{"stats":{"total":1}},"title":"shared"}}`},
	}
	var ws []*wsConn
	for _, s := range subs {
		w := e.mustAck(t)
		w.subscribe(t, "s", s.query)
		ws = append(ws, w)
	}
	e.waitSubscriptions(t, len(subs))
	spy.Reset()
	e.mustCreate(t, "p2", "alone") // a write no one subscribed to: the write's own reads
	alone := spy.Calls("BatchGet")
	spy.Reset()
	e.mustCreate(t, "p1", "shared")
	for i, w := range ws {
		if got := w.nextRaw(t, "s"); got != subs[i].want {
			t.Errorf("subscriber %d got %s, want %s", i, got, subs[i].want)
		}
	}
	if got := spy.Calls("BatchGet") - alone; got != 1 {
		t.Errorf("three subscriptions of the same data made %d store batch reads for one event, want 1 (%s)", got, spy.CallsString())
	}
}

// TestSubscriptionBudget: a client's subscriptions together cost at most
// its budget; the one over it gets the protocol's error message with
// SUBSCRIPTION_BUDGET_EXCEEDED (SSE: a last next event with it), and once
// another ends there is room again.
func TestSubscriptionBudget(t *testing.T) {
	const query = `subscription { commentAdded(productId: "p1") { product { comments(first: 10) { nodes { id title } } } } }` // complexity 41
	e := mustLiveEnv(t, resolvers.Config{}, livehttp.Config{SubscriptionBudget: 100})
	a, b := e.mustAck(t), e.mustAck(t) // one client, two connections
	a.subscribe(t, "1", query)
	e.waitSubscriptions(t, 1)
	b.subscribe(t, "2", query)
	e.waitSubscriptions(t, 2)
	b.subscribe(t, "3", query)
	msg, _ := b.read(t)
	if msg["type"] != "error" || msg["id"] != "3" || !strings.Contains(jsonString(msg), `"code":"`+livehttp.CodeSubscriptionBudget+`"`) {
		t.Fatalf("third subscription: %v, want an error message with %s", msg, livehttp.CodeSubscriptionBudget)
	}
	sse := e.mustSSE(t, query)
	if name, data := sse.event(); name != "next" || !strings.Contains(data, `"code":"`+livehttp.CodeSubscriptionBudget+`"`) {
		t.Errorf("over SSE: event %q %s, want next with %s", name, data, livehttp.CodeSubscriptionBudget)
	}
	if name, _ := sse.event(); name != "complete" {
		t.Errorf("over SSE: then %q, want complete", name)
	}
	a.send(t, map[string]any{"type": "complete", "id": "1"})
	e.waitSubscriptions(t, 1)
	b.subscribe(t, "4", query)
	e.waitSubscriptions(t, 2)
	e.mustCreate(t, "p1", "fits")
	got := map[any]bool{}
	for range 2 {
		msg, _ := b.read(t)
		if msg["type"] != "next" || !strings.Contains(jsonString(msg), `"title":"fits"`) {
			t.Fatalf("got %v, want the event", msg)
		}
		got[msg["id"]] = true
	}
	if !got["2"] || !got["4"] {
		t.Errorf("events for %v, want 2 and 4", got)
	}
}

// TestSubscriptionEventsCharged: with a rate limit, each event costs the
// subscriber its subscription's complexity; when the client's budget is
// spent the subscription is ended with THROTTLED, alone.
func TestSubscriptionEventsCharged(t *testing.T) {
	const query = `subscription { commentAdded(productId: "p1") { product { comments(first: 10) { nodes { id title } } } } }` // complexity 41
	e := mustLiveEnv(t, resolvers.Config{RateLimit: policy.RateLimit{Rate: 0.001, Burst: 3 * 41}}, livehttp.Config{})
	w := e.mustAck(t)
	w.subscribe(t, "1", query) // the first 41
	e.waitSubscriptions(t, 1)
	for _, title := range []string{"e1", "e2"} { // 41 each
		e.mustCreate(t, "p1", title)
		if got := w.nextRaw(t, "1"); !strings.Contains(got, `"title":"`+title+`"`) {
			t.Fatalf("got %s, want %s", got, title)
		}
	}
	e.mustCreate(t, "p1", "unpaid")
	msg, _ := w.read(t)
	if msg["type"] != "error" || msg["id"] != "1" || !strings.Contains(jsonString(msg), `"code":"`+policy.CodeThrottled+`"`) {
		t.Fatalf("after the budget is spent: %v, want an error message with THROTTLED", msg)
	}
	e.waitSubscriptions(t, 0)
}

// TestSubscriptionEventTimeout: an event's execution runs under the request
// timeout: a store read slower than it fails that event with UNAVAILABLE,
// and the subscription goes on.
func TestSubscriptionEventTimeout(t *testing.T) {
	var spy *spyTable
	e := mustLiveEnvOn(t, resolvers.Config{RequestTimeout: 100 * time.Millisecond}, livehttp.Config{}, 0, func(t table.Table) table.Table { spy = newSpy(t); return spy })
	w := e.mustAck(t)
	w.subscribe(t, "1", `subscription { commentAdded(productId: "p1") { product { comments(first: 5) { nodes { title } } } } }`)
	e.waitSubscriptions(t, 1)
	spy.SetHooks(func(table.Query) error { time.Sleep(300 * time.Millisecond); return nil }, nil, nil)
	e.mustCreate(t, "p1", "slow")
	if msg, _ := w.read(t); msg["type"] != "next" || !strings.Contains(jsonString(msg), `"code":"`+gqlhttp.CodeUnavailable+`"`) {
		t.Errorf("an event slower than the timeout: %v, want next with UNAVAILABLE", msg)
	}
	spy.SetHooks(nil, nil, nil)
	e.mustCreate(t, "p1", "fast")
	if got := w.nextRaw(t, "1"); !strings.Contains(got, `"title":"fast"`) {
		t.Errorf("the next event: %s", got)
	}
}
