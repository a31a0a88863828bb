package store_test

import (
	"encoding/base64"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/table"
)

// TestDesignDocExamples checks the worked examples of docs/design.md against
// the code that makes them: the comment item, the counter shard and the
// leaderboard entry of §3 line by line, and the cursors of §6 with their filter hash.
func TestDesignDocExamples(t *testing.T) {
	b, err := os.ReadFile("../docs/design.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)

	c := &store.Comment{
		ID: "01JWQ4ZD5N8K3T7HXB2RM9CEFA", ProductID: "espresso-machine", Language: "de", Rating: 5,
		Author: "Jonas", Title: "Top", Body: "Macht hervorragenden Espresso.",
		CreatedAt: time.Date(2025, 6, 1, 9, 30, 0, 0, time.UTC), AuthorID: "auth0|jonas",
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	st := &store.Stats{ProductID: "espresso-machine", Language: "de",
		Counts: [6]int64{0, 12, 5, 20, 61, 230}, Total: 328, Version: 41}
	leader := store.LeaderItem("espresso-machine", "de", 230)
	for what, it := range map[string]table.Item{"comment item": c.Item(), "stats item": st.Item(), "leaderboard entry": leader} {
		for name, v := range it {
			line := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` +` + regexp.QuoteMeta(fmt.Sprint(v)) + `$`)
			if !line.MatchString(doc) {
				t.Errorf("docs/design.md: the %s example lacks the line %q", what, name+" "+fmt.Sprint(v))
			}
		}
	}

	f := store.Filter{Language: "de", Ratings: []int{1, 2, 3}}
	pos := &store.Position{Filter: store.FilterHash("espresso-machine", f), Version: 41, Remaining: []int64{12, 5, 19}}
	v2 := store.EncodePositionCursor(c.SortKey(), pos)
	raw, err := base64.RawURLEncoding.DecodeString(v2)
	if err != nil {
		t.Fatal(err)
	}
	h := raw[len(raw)-9 : len(raw)-5] // the filter hash: before version, count and three counts, one byte each
	for what, want := range map[string]string{
		"v1 cursor":   "`" + store.EncodeCursor(c.SortKey()) + "`",
		"v2 cursor":   "`" + v2 + "`",
		"v2 length":   fmt.Sprintf("%d bytes; the cursor is", len(raw)),
		"filter hash": fmt.Sprintf("%02x %02x %02x %02x ", h[0], h[1], h[2], h[3]),
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("docs/design.md: the %s example should read %s", what, want)
		}
	}
}
