//go:build unix

package e2e

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/acme/comments-gateway/auth"
)

// TestVotesThroughTheBinary: two API keys vote on a comment through the
// built gateway (bbolt store); each key is one voter, its vote changeable,
// and each sees its own vote; an anonymous vote is UNAUTHENTICATED.
func TestVotesThroughTheBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the binary")
	}
	const k1, k2 = "votes-key-1", "votes-key-2"
	s := startServer(t, MustBinary(t), []string{"serve", "-addr", "127.0.0.1:0", "-demo=false",
		"-store", "bolt:" + filepath.Join(t.TempDir(), "votes.db"),
		"-api-keys", auth.HashKey(k1) + "," + auth.HashKey(k2)}, nil, func(s *Server) { s.Stop(t) })
	post := func(query string, hdr ...string) (map[string]json.RawMessage, string) {
		t.Helper()
		body, _ := json.Marshal(map[string]any{"query": query})
		r := s.MustRequest(t, "POST", "/graphql", string(body), append([]string{"Content-Type", "application/json"}, hdr...)...)
		var data map[string]json.RawMessage
		_ = json.Unmarshal(r.Data, &data)
		return data, r.Code()
	}
	created, code := post(`mutation { createComment(input: {productId: "v", language: "en", rating: 5, author: "a", title: "t", body: "b"}) { comment { id } } }`, "X-API-Key", k1)
	var c struct{ Comment struct{ ID string } }
	if code != "" || json.Unmarshal(created["createComment"], &c) != nil {
		t.Fatalf("createComment: %s %s", created, code)
	}
	vote := func(helpful, key string) string {
		q := fmt.Sprintf(`mutation { voteComment(input: {commentId: %q, helpful: %s}) { comment { helpfulCount unhelpfulCount viewerVote } } }`, c.Comment.ID, helpful)
		var hdr []string
		if key != "" {
			hdr = []string{"X-API-Key", key}
		}
		data, code := post(q, hdr...)
		if code != "" {
			return code
		}
		return string(data["voteComment"])
	}
	for _, st := range []struct{ helpful, key, want string }{
		{"true", k1, `{"comment":{"helpfulCount":1,"unhelpfulCount":0,"viewerVote":true}}`},
		{"false", k2, `{"comment":{"helpfulCount":1,"unhelpfulCount":1,"viewerVote":false}}`},
		{"true", k2, `{"comment":{"helpfulCount":2,"unhelpfulCount":0,"viewerVote":true}}`},
		{"null", k1, `{"comment":{"helpfulCount":1,"unhelpfulCount":0,"viewerVote":null}}`},
		{"true", "", "UNAUTHENTICATED"},
	} {
		if got := vote(st.helpful, st.key); got != st.want {
			t.Errorf("vote %s as %q: %s, want %s", st.helpful, st.key, got, st.want)
		}
	}
	read := fmt.Sprintf(`{ comment(id: %q) { helpfulCount viewerVote } }`, c.Comment.ID)
	for key, want := range map[string]string{k1: `{"helpfulCount":1,"viewerVote":null}`, k2: `{"helpfulCount":1,"viewerVote":true}`} {
		if data, code := post(read, "X-API-Key", key); string(data["comment"]) != want {
			t.Errorf("%s reads %s %s, want %s", key, data["comment"], code, want)
		}
	}
	if data, _ := post(read); string(data["comment"]) != `{"helpfulCount":1,"viewerVote":null}` {
		t.Errorf("anonymous reads %s", data["comment"])
	}
}
