package resolvers_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/acme/comments-gateway/internal/gqltest"
	"github.com/acme/comments-gateway/resolvers"
	"github.com/acme/comments-gateway/trusted"
)

// TestOnlyTrustedDocumentsOverWebsocket: with -only-trusted-documents the
// websocket still opens (its upgrade carries no operation); a subscription
// sent by its manifest hash alone runs and gets the comment a trusted
// mutation creates, while a free-form subscription is refused with
// TRUSTED_DOCUMENT_REQUIRED, on the same connection.
func TestOnlyTrustedDocumentsOverWebsocket(t *testing.T) {
	const sub = `subscription { commentAdded(productId: "p1") { id } }`
	m, err := trusted.Parse([]byte(fmt.Sprintf(`{"sub": %q, "create": %q}`, sub, createMut)))
	if err != nil {
		t.Fatal(err)
	}
	m.Only = true
	e := mustLiveEnv(t, resolvers.Config{Trusted: m}, resolvers.LiveConfig{})
	w := e.mustWS(t, nil)
	if msg, _ := w.read(t); msg["type"] != "connection_ack" {
		t.Fatalf("got %v, want connection_ack", msg)
	}
	w.subscribe(t, "free", `subscription { commentAdded(productId: "p2") { id } }`)
	msg, _ := w.read(t)
	payload, _ := msg["payload"].(map[string]any)
	if b, _ := json.Marshal(msg); msg["type"] != "next" || msg["id"] != "free" || !containsCode(payload["errors"], trusted.CodeRequired) {
		t.Errorf("free-form subscription: got %s, want a result with the error %s", b, trusted.CodeRequired)
	}
	if msg, _ := w.read(t); msg["type"] != "complete" || msg["id"] != "free" {
		t.Errorf("free-form subscription: then %v, want complete", msg)
	}
	w.send(t, map[string]any{"type": "subscribe", "id": "byHash", "payload": map[string]any{
		"query": "", "extensions": map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": "sub"}},
	}})
	for e.hub.Subscribers() == 0 {
		time.Sleep(time.Millisecond)
	}
	id, _ := createdID(t, e.c.MustDo(t, "", nil, gqltest.Param("documentId", "create")))
	msg, _ = w.read(t)
	payload, _ = msg["payload"].(map[string]any)
	if b, _ := json.Marshal(msg); msg["type"] != "next" || msg["id"] != "byHash" ||
		fmt.Sprint(payload["data"]) != fmt.Sprint(map[string]any{"commentAdded": map[string]any{"id": id}}) {
		t.Errorf("subscription by hash: got %s, want comment %s", b, id)
	}
}

// containsCode reports whether a list of GraphQL errors has one with this code.
func containsCode(errors any, code string) bool {
	errs, _ := errors.([]any)
	for _, e := range errs {
		ext, _ := e.(map[string]any)["extensions"].(map[string]any)
		if ext["code"] == code {
			return true
		}
	}
	return false
}
