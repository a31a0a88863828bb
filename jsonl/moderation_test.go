package jsonl

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/acme/comments-gateway/store"
)

// TestModerationRoundTrip: export writes the moderation fields only for a
// comment that has them (a published, never moderated comment's line is
// unchanged), and import reads them back; a bad status is a line error.
func TestModerationRoundTrip(t *testing.T) {
	at := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
	cs := []*store.Comment{
		{ID: "01HXAMPLE0000000000000001", ProductID: "p", Language: "en", Rating: 5, Author: "a", Title: "t", Body: "b", CreatedAt: at},
		{ID: "01HXAMPLE0000000000000002", ProductID: "p", Language: "en", Rating: 1, Author: "a", Title: "t", Body: "b", CreatedAt: at,
			Status: store.StatusHidden, ModeratedAt: at.Add(time.Hour), ModerationReason: "abuse"},
		{ID: "01HXAMPLE0000000000000003", ProductID: "p", Language: "de", Rating: 3, Author: "a", Title: "t", Body: "b", CreatedAt: at,
			Status: store.StatusPending, AuthorID: "u"},
	}
	var buf bytes.Buffer
	w := NewWriter(&buf)
	for _, c := range cs {
		if err := w.Write(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if strings.Contains(lines[0], "status") || strings.Contains(lines[0], "moderat") {
		t.Errorf("a published comment's line has moderation fields: %s", lines[0])
	}
	if !strings.Contains(lines[1], `"status":"HIDDEN","moderatedAt":"2025-03-04T06:06:07Z","moderationReason":"abuse"`) {
		t.Errorf("a hidden comment's line: %s", lines[1])
	}
	batches, _, err := collect(t, &buf, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := flatten(batches)
	if len(got) != len(cs) {
		t.Fatalf("read %d comments, want %d", len(got), len(cs))
	}
	for i := range cs {
		if *got[i] != *cs[i] {
			t.Errorf("comment %d: read %+v, want %+v", i, got[i], cs[i])
		}
	}
	for _, bad := range []map[string]any{{"status": "GONE"}, {"moderatedAt": "yesterday"}} {
		if _, _, err := collect(t, strings.NewReader(line(t, bad)+"\n"), Options{}); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
	if b, _, err := collect(t, strings.NewReader(line(t, map[string]any{"status": "PUBLISHED"})+"\n"), Options{}); err != nil || flatten(b)[0].Status != store.StatusPublished {
		t.Errorf(`status "PUBLISHED": %v`, err)
	}
}
