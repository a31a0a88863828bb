//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/acme/comments-gateway/auth"
	"github.com/acme/comments-gateway/store/dynamo/dynamotest"
)

// TestModerationAcrossInstances runs two gateways with -moderation pre on
// one DynamoDB Local table (subscriptions crossing instances through its
// stream): a subscriber on B, over graphql-ws and over SSE, sees nothing of a comment created on A until
// a moderator approves it there (ADDED), and sees it leave when it is
// hidden (DELETED).
func TestModerationAcrossInstances(t *testing.T) {
	client := dynamotest.MustClient(t)
	table := fmt.Sprintf("moderation-%d-%d", os.Getpid(), time.Now().UnixNano())
	spec := "dynamodb:" + table
	MustRun(t, "create-table", "-store", spec)
	t.Cleanup(func() { deleteTable(t, client, table) })
	const key = "moderator-key"
	argv := []string{"serve", "-addr", "127.0.0.1:0", "-demo=false", "-store", spec, "-moderation", "pre",
		"-moderator-api-keys", auth.HashKey(key), "-live-poll", "100ms", "-live-stream-poll", "100ms"}
	bin := MustBinary(t)
	a := startServer(t, bin, argv, nil, func(s *Server) { s.Stop(t) })
	b := startServer(t, bin, argv, nil, func(s *Server) { s.Stop(t) })

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sub, err := subscribe(ctx, b.URL, `subscription { commentChanged(productId: "mod") { kind comment { id status } } }`, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	sse := openSSE(ctx, t, b, `subscription { commentChanged(productId: "mod") { kind comment { id status } } }`)
	defer sse.close()
	time.Sleep(time.Second) // the subscriptions registered

	post := func(query string) map[string]json.RawMessage {
		body, _ := json.Marshal(map[string]any{"query": query})
		r := a.MustRequest(t, "POST", "/graphql", string(body), "Content-Type", "application/json", "X-API-Key", key)
		if len(r.Errors) > 0 {
			t.Fatalf("%s: %+v", query, r.Errors)
		}
		var data map[string]json.RawMessage
		if err := json.Unmarshal(r.Data, &data); err != nil {
			t.Fatal(err)
		}
		return data
	}
	created := post(`mutation { createComment(input: {productId: "mod", language: "en", rating: 5, author: "a", title: "t", body: "b"}) { comment { id status } } }`)
	var c struct{ Comment struct{ ID, Status string } }
	if err := json.Unmarshal(created["createComment"], &c); err != nil || c.Comment.Status != "PENDING" {
		t.Fatalf("created %s (%v), want PENDING", created["createComment"], err)
	}
	id := c.Comment.ID
	select {
	case ev := <-sub.Events:
		t.Fatalf("a pending comment was delivered: %s", ev)
	case <-time.After(3 * time.Second): // several stream polls
	}
	next := func(want string) {
		t.Helper()
		// SSE: the first event after the approval is its ADDED (the
		// pending create sent none), then the hide's DELETED.
		if ev := sse.next(t); !strings.Contains(ev, want) || !strings.Contains(ev, id) {
			t.Fatalf("SSE event %s, want %s of %s", ev, want, id)
		}
		select {
		case ev, ok := <-sub.Events:
			if !ok {
				t.Fatalf("subscription ended: %v", sub.err)
			}
			if !strings.Contains(string(ev), want) || !strings.Contains(string(ev), id) {
				t.Fatalf("event %s, want %s of %s", ev, want, id)
			}
		case <-ctx.Done():
			t.Fatalf("no %s event", want)
		}
	}
	post(`mutation { approveComment(input: {id: "` + id + `"}) { comment { status } } }`)
	next(`"kind":"ADDED"`)
	post(`mutation { hideComment(input: {id: "` + id + `", reason: "abuse"}) { comment { status } } }`)
	next(`"kind":"DELETED"`)
}
