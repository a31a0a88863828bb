package store

import (
	"strings"
	"testing"
	"time"

	"github.com/acme/comments-gateway/store/table"
)

// TestReplyAttribute: a reply is one attribute that decodes to the same
// reply (any body, times to the nanosecond); a truncated or malformed one
// is EINTERNAL, naming the comment.
func TestReplyAttribute(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 123456789, time.UTC)
	for _, body := range []string{"x", "Thanks!\nTabs\tand 2026-03-01T12:00:00.000000000Z inside", strings.Repeat("é", MaxReplyLen)} {
		c := &Comment{ID: "c1", ProductID: "p", Language: "en", Rating: 4, CreatedAt: at,
			Reply: &Reply{Body: body, CreatedAt: at.Add(time.Hour), UpdatedAt: at.Add(48 * time.Hour)}}
		got, err := CommentFromItem(c.Item())
		if err != nil || got.Reply == nil || *got.Reply != *c.Reply {
			t.Errorf("reply of %d bytes decoded to %+v, %v", len(body), got.Reply, err)
		}
	}
	for _, bad := range []string{"", "2026-03-01T12:00:00.000000000Z", "2026-03-01T12:00:00.000000000Z2026-03-01T12:00:00.000000000Z",
		"2026-03-01T12:00:00Z2026-03-01T12:00:00.000000000Zbody", "2026-03-01T12:00:00.000000000Z2026-13-01T12:00:00.000000000Zbody"} {
		it := (&Comment{ID: "c1", CreatedAt: at}).Item()
		it[table.AttrReply] = table.S(bad)
		if _, err := CommentFromItem(it); ErrorCode(err) != EINTERNAL || !strings.Contains(err.Error(), "COMMENT#c1") {
			t.Errorf("reply attribute %q: %v, want EINTERNAL naming the comment", bad, err)
		}
	}
}

// TestCommentIDFromPK: an index entry, which does not project id, decodes
// with the id of its PK.
func TestCommentIDFromPK(t *testing.T) {
	it := (&Comment{ID: "01JWQ4ZD5N8K3T7HXB2RM9CEFA", ProductID: "p", Language: "en", Rating: 5, CreatedAt: time.Now()}).Item()
	delete(it, table.AttrID)
	if c, err := CommentFromItem(it); err != nil || c.ID != "01JWQ4ZD5N8K3T7HXB2RM9CEFA" {
		t.Errorf("CommentFromItem without id = %+v, %v", c, err)
	}
}
