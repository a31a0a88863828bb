package store

import (
	"context"
	"encoding/base64"
	"slices"
	"strings"

	"github.com/acme/comments-gateway/store/table"
)

// The moderators' queues and an author's own comments: pages of the
// moderation indexes (docs/design.md §12.1), outside the planner, as each
// is one list with no filter.

// Page sizes of ModerationQueue and AuthorComments.
const (
	DefaultListPage = 20
	MaxListPage     = 100
)

// CommentPage is one page of a queue or of an author's comments: the
// comments, each edge's cursor, and whether more follow.
type CommentPage struct {
	Comments []*Comment
	Cursors  []string
	HasNext  bool
}

// listCursorPrefix marks a cursor of a moderation list.
const listCursorPrefix = "q1:"

// encodeListCursor is the cursor after the comment with sort key sk.
func encodeListCursor(sk string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(listCursorPrefix + sk))
}

// decodeListCursor returns the sort key of cursor after ("" for none).
func decodeListCursor(after string) (string, error) {
	if after == "" {
		return "", nil
	}
	bad := Invalid("after", "after is not a cursor of this list")
	b, err := base64.RawURLEncoding.DecodeString(after)
	if err != nil {
		return "", bad
	}
	sk, ok := strings.CutPrefix(string(b), listCursorPrefix)
	if !ok {
		return "", bad
	}
	if _, _, err := parseSortKey(sk); err != nil {
		return "", bad
	}
	return sk, nil
}

// ParseQueue reads a queue name.
func ParseQueue(name string) (Queue, error) {
	switch q := Queue(name); q {
	case QueuePending, QueueReported, QueueHidden:
		return q, nil
	}
	return "", Invalid("status", "status must be PENDING, REPORTED or HIDDEN, got %q", name)
}

// ModerationQueue returns the first comments of queue q after cursor
// after, oldest first: the first first+1 entries after the cursor of each
// of the queue's ModerationShards partitions, read at once and merged
// (each is sorted, so the first of the union are the first overall).
func (s *Store) ModerationQueue(ctx context.Context, q Queue, first int, after string) (*CommentPage, error) {
	if _, err := ParseQueue(string(q)); err != nil {
		return nil, err
	}
	if first < 0 || first > MaxListPage {
		return nil, OutOfRange("first", 0, MaxListPage, first)
	}
	sk, err := decodeListCursor(after)
	if err != nil {
		return nil, err
	}
	heads := make([][]table.Item, ModerationShards)
	err = s.each(ctx, ModerationShards, func(ctx context.Context, i int) (err error) {
		qu := table.Query{Index: table.IndexModeration, HashValue: ModerationPK(q, i), Forward: true, Limit: first + 1}
		if sk != "" {
			qu.SortOp, qu.SortValue = table.SortGreater, sk
		}
		heads[i], err = s.queryAll(ctx, qu, first+1)
		return err
	})
	if err != nil {
		return nil, err
	}
	all := slices.Concat(heads...)
	slices.SortFunc(all, func(a, b table.Item) int { return strings.Compare(a.S(table.AttrGSISK), b.S(table.AttrGSISK)) })
	return commentPage(all, first)
}

// AuthorComments returns the first comments of author authorID after
// cursor after, newest first, in every status: one Query of byAuthor.
// Only comments written with moderation on are there (docs/design.md §12).
func (s *Store) AuthorComments(ctx context.Context, authorID string, first int, after string) (*CommentPage, error) {
	if authorID == "" {
		return nil, Errorf(EINVALID, "an author's comments need the author's identity")
	}
	if first < 0 || first > MaxListPage {
		return nil, OutOfRange("first", 0, MaxListPage, first)
	}
	sk, err := decodeListCursor(after)
	if err != nil {
		return nil, err
	}
	qu := table.Query{Index: table.IndexByAuthor, HashValue: AuthorPK(authorID), Limit: first + 1}
	if sk != "" {
		qu.SortOp, qu.SortValue = table.SortLess, sk
	}
	items, err := s.queryAll(ctx, qu, first+1)
	if err != nil {
		return nil, err
	}
	return commentPage(items, first)
}

// commentPage decodes the first n of items, in order, as a page.
func commentPage(items []table.Item, n int) (*CommentPage, error) {
	p := &CommentPage{HasNext: len(items) > n, Comments: []*Comment{}, Cursors: []string{}}
	for _, it := range items[:min(n, len(items))] {
		c, err := CommentFromItem(it)
		if err != nil {
			return nil, err
		}
		p.Comments = append(p.Comments, c)
		p.Cursors = append(p.Cursors, encodeListCursor(it.S(table.AttrGSISK)))
	}
	return p, nil
}

// CheckModeration checks that the table has the moderation indexes (one
// Query of each): a DynamoDB table created before moderation lacks them
// until create-table adds them (docs/design.md §12.3).
func (s *Store) CheckModeration(ctx context.Context) error {
	for _, d := range table.ModerationIndexes {
		if _, err := s.table.Query(ctx, table.Query{Index: d.Name, HashValue: ModerationPK(QueuePending, 0), Limit: 1}); err != nil {
			return Wrap(EINVALID, err, "the table cannot serve moderation (index %s): run create-table, which adds the moderation indexes", d.Name)
		}
	}
	return nil
}
