package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/acme/comments-gateway/store/table"
)

// Merchant replies (docs/design.md §3.3): a comment has at most one public
// reply, the shop's, stored on the comment's own item as one attribute,
// reply (Reply.encode: one attribute, not three, as DynamoDB limits the
// attributes the indexes project), and projected into the public indexes,
// so a page shows it with no further read and no index of its own. Who may reply is decided at the edge (the merchant or moderator
// role).

// MaxReplyLen is the most characters of a reply's body.
const MaxReplyLen = 5_000

// ValidateReplyBody checks a reply's body: 1 to MaxReplyLen characters of
// visible text, newlines and tabs allowed (the rules of a comment's body).
func ValidateReplyBody(body string) error {
	return validateMultilineText("body", body, MaxReplyLen)
}

// ReplyTarget names the comment a reply is written to or deleted from,
// and what the caller may see of it.
type ReplyTarget struct {
	CommentID string
	// Unpublished is whether the caller may see an unpublished comment
	// (a moderator, an API key): without it, a comment that is not
	// published is ENOTFOUND, as it is to the public.
	Unpublished bool
}

// ReplyToComment writes the reply body to the comment t names, replacing
// its reply if it has one: createdAt is kept, updatedAt is now. It is one
// update of the reply attributes, conditional on the comment's version
// (which it bumps, so that a concurrent read-modify-write of the comment
// retries rather than drop the reply). The same body again writes nothing.
// A missing comment is ENOTFOUND; an invalid body EINVALID (field body).
func (s *Store) ReplyToComment(ctx context.Context, t ReplyTarget, body string) (*Comment, error) {
	if err := ValidateID("commentId", t.CommentID); err != nil {
		return nil, err
	}
	if err := ValidateReplyBody(body); err != nil {
		return nil, err
	}
	return s.changeReply(ctx, t, func(old *Comment) *Reply {
		now := s.now().UTC()
		r := &Reply{Body: body, CreatedAt: now, UpdatedAt: now}
		if old.Reply != nil {
			if old.Reply.Body == body {
				return old.Reply
			}
			r.CreatedAt = old.Reply.CreatedAt
		}
		return r
	})
}

// DeleteReply removes the reply of the comment t names, as ReplyToComment
// writes it. A comment without a reply is returned as it is, with no
// write (deleting twice is no error); a missing comment is ENOTFOUND.
func (s *Store) DeleteReply(ctx context.Context, t ReplyTarget) (*Comment, error) {
	if err := ValidateID("commentId", t.CommentID); err != nil {
		return nil, err
	}
	return s.changeReply(ctx, t, func(*Comment) *Reply { return nil })
}

// changeReply reads the comment t names and, when next gives it another
// reply, writes that reply in one update conditional on the version read,
// retrying when a concurrent write changed the comment first.
func (s *Store) changeReply(ctx context.Context, t ReplyTarget, next func(old *Comment) *Reply) (*Comment, error) {
	var out *Comment
	err := s.retry(ctx, func() error {
		old, err := s.getComment(ctx, t.CommentID)
		if err != nil {
			return err
		}
		if old.Status != StatusPublished && !t.Unpublished {
			return Errorf(ENOTFOUND, "comment %q not found", t.CommentID)
		}
		r := next(old)
		if r == old.Reply {
			out = old
			return nil
		}
		c := *old
		c.Reply, c.Version = r, old.Version+1
		if err := s.commit(ctx, []table.Op{replyOp(old, r)}, publicChange(old, &c)); err != nil {
			return err
		}
		out = &c
		return nil
	})
	return out, err
}

// replyOp is the update that gives comment old the reply r (nil: none).
func replyOp(old *Comment, r *Reply) table.Op {
	op := table.Op{
		Kind: table.OpUpdate, Key: CommentKey(old.ID),
		Add:   map[string]int64{table.AttrVersion: 1},
		Conds: []table.Cond{{Kind: table.CondEquals, Attr: table.AttrVersion, Value: table.N(old.Version)}},
	}
	if r == nil {
		op.Remove = []string{table.AttrReply}
	} else {
		op.Set = table.Item{table.AttrReply: table.S(r.encode())}
	}
	return op
}

// encode returns r as its comment's attribute reply: its createdAt and
// updatedAt in timeLayout, which is fixed-width, then its body.
func (r *Reply) encode() string {
	return r.CreatedAt.UTC().Format(timeLayout) + r.UpdatedAt.UTC().Format(timeLayout) + r.Body
}

// decodeReply returns the reply s encodes (Reply.encode).
func decodeReply(s string) (*Reply, error) {
	n := len(timeLayout)
	if len(s) <= 2*n {
		return nil, fmt.Errorf("reply attribute of %d bytes, want more than %d", len(s), 2*n)
	}
	created, err1 := parseFixed(s[:n])
	updated, err2 := parseFixed(s[n : 2*n])
	if err := errors.Join(err1, err2); err != nil {
		return nil, err
	}
	return &Reply{Body: s[2*n:], CreatedAt: created, UpdatedAt: updated}, nil
}

// parseFixed parses a time in exactly the form timeLayout writes.
func parseFixed(s string) (time.Time, error) {
	secs, nanos, ok := table.ParseFixedTime(s)
	if !ok {
		return time.Time{}, fmt.Errorf("time %q is not in the form %s", s, timeLayout)
	}
	return time.Unix(secs, nanos).UTC(), nil
}
