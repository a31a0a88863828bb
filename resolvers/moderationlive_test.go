package resolvers_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/acme/comments-gateway/auth"
	"github.com/acme/comments-gateway/internal/gqltest"
	"github.com/acme/comments-gateway/live"
	"github.com/acme/comments-gateway/live/livehttp"
	"github.com/acme/comments-gateway/resolvers"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/bolt/bolttest"
)

// TestModerationSubscriptions: over SSE, a subscriber sees a pending
// comment only when it is approved (ADDED, and statsChanged), and sees it
// leave when it is hidden (DELETED, and statsChanged).
func TestModerationSubscriptions(t *testing.T) {
	ks, _ := auth.ParseKeyHashes(auth.HashKey(testAPIKey))
	e := &liveEnv{accessEnv: &accessEnv{logs: &bytes.Buffer{}}}
	e.hub = live.NewHub(live.Config{Stats: func(ctx context.Context, ids []store.StatsID) ([]*store.Stats, error) {
		return e.store.GetStats(ctx, ids)
	}})
	t.Cleanup(e.hub.Close)
	e.store = store.New(bolttest.Open(t), store.WithPublisher(e.hub), store.WithModeration(store.Moderation{Mode: store.ModerationPre}))
	e.live = livehttp.New(livehttp.Config{Hub: e.hub})
	e.srv = httptest.NewServer(resolvers.NewHandler(resolvers.Config{Store: e.store, Live: e.live,
		Logger: slog.New(slog.NewJSONHandler(io.Discard, nil)), Auth: &auth.Authenticator{Keys: ks, JWT: fakeJWT{}}}))
	t.Cleanup(e.srv.Close)
	e.c = gqltest.New(e.srv.URL)

	changes := e.mustSSE(t, `subscription { commentChanged(productId: "p1") { kind comment { id status } } }`)
	stats := e.mustSSE(t, `subscription { statsChanged(productId: "p1") { total } }`)
	for e.hub.Subscribers() < 2 {
		time.Sleep(time.Millisecond)
	}
	id, _ := createdID(t, e.MustPost(t, q(createMut), alice...))
	if r := e.MustPost(t, modMut("approveComment", id, ""), mia...); len(r.Errors) > 0 {
		t.Fatal(r.Errors)
	}
	// The first events are the approval's: the pending create sent none.
	if name, data := changes.event(); name != "next" || !strings.Contains(data, `"kind":"ADDED","comment":{"id":"`+id+`","status":"PUBLISHED"}`) {
		t.Errorf("after approval: %s %s, want ADDED of %s", name, data, id)
	}
	if name, data := stats.event(); name != "next" || !strings.Contains(data, `"total":1`) {
		t.Errorf("stats after approval: %s %s, want total 1", name, data)
	}
	if r := e.MustPost(t, modMut("hideComment", id, `, reason: "abuse"`), mia...); len(r.Errors) > 0 {
		t.Fatal(r.Errors)
	}
	if name, data := changes.event(); name != "next" || !strings.Contains(data, `"kind":"DELETED"`) || !strings.Contains(data, id) {
		t.Errorf("after hiding: %s %s, want DELETED of %s", name, data, id)
	}
	if name, data := stats.event(); name != "next" || !strings.Contains(data, `"total":0`) {
		t.Errorf("stats after hiding: %s %s, want total 0", name, data)
	}
}
