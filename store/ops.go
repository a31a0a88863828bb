package store

import (
	"context"
	"math/rand/v2"
	"slices"
	"time"
)

// StatsID addresses the stats of a product for one language ("" for all).
type StatsID struct {
	ProductID string
	Language  string
}

// GetStats returns the stats of ids, aligned with them, in one BatchGet; a
// product or language without comments has zero stats.
func (s *Store) GetStats(ctx context.Context, ids []StatsID) ([]*Stats, error) {
	keys := make([]Key, len(ids))
	for i, id := range ids {
		keys[i] = StatsKey(id.ProductID, id.Language)
	}
	items, err := s.table.BatchGet(ctx, keys)
	if err != nil {
		return nil, tableError(err)
	}
	out := make([]*Stats, len(ids))
	for i, id := range ids {
		out[i] = StatsFromItem(id.ProductID, id.Language, items[i])
	}
	return out, nil
}

// GetComments returns the comments of ids, aligned with them (nil where
// missing), in one BatchGet.
func (s *Store) GetComments(ctx context.Context, ids []string) ([]*Comment, error) {
	keys := make([]Key, len(ids))
	for i, id := range ids {
		keys[i] = CommentKey(id)
	}
	items, err := s.table.BatchGet(ctx, keys)
	if err != nil {
		return nil, tableError(err)
	}
	out := make([]*Comment, len(ids))
	for i, it := range items {
		if it == nil {
			continue
		}
		if out[i], err = CommentFromItem(it); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Page sizes of Languages.
const (
	DefaultLanguages = 20
	MaxLanguages     = 100
)

// Languages returns the stats of the first n languages (0 to MaxLanguages)
// product pid has comments in, in language-tag order, reading at most n
// stats items: one query of the product's partition. A language whose
// comments were all deleted keeps its stats item with a zero total; it is
// read but left out, so fewer than n may be returned.
func (s *Store) Languages(ctx context.Context, pid string, n int) ([]*Stats, error) {
	if err := ValidateID("product id", pid); err != nil {
		return nil, err
	}
	if n < 0 || n > MaxLanguages {
		e := Invalid("first", "first must be between 0 and %d, got %d", MaxLanguages, n)
		e.Range = &Range{Min: 0, Max: MaxLanguages, Got: n}
		return nil, e
	}
	if n == 0 {
		return []*Stats{}, nil
	}
	res, err := s.table.Query(ctx, Query{HashValue: ProductPK(pid), SortOp: SortBeginsWith, SortValue: StatsLangPrefix, Forward: true, Limit: n})
	if err != nil {
		return nil, tableError(err)
	}
	out := make([]*Stats, 0, len(res.Items))
	for _, it := range res.Items {
		lang, _ := LangFromStatsSK(it.S(AttrSK))
		if st := StatsFromItem(pid, lang, it); st.Total > 0 {
			out = append(out, st)
		}
	}
	return out, nil
}

// Rank is one entry of the leaderboard.
type Rank struct {
	Rank          int
	ProductID     string
	FiveStarCount int64
}

// MaxTopProducts bounds topProducts(first).
const MaxTopProducts = 100

// TopProducts returns the first n products by 5-star count in language lang
// ("" for all), ties by product id descending: one query on the sparse
// LEADERS partition of byLangAndRating.
func (s *Store) TopProducts(ctx context.Context, lang string, n int) ([]Rank, error) {
	if n < 0 || n > MaxTopProducts {
		return nil, OutOfRange("first", 0, MaxTopProducts, n)
	}
	if n == 0 {
		return []Rank{}, nil
	}
	out := make([]Rank, 0, n)
	q := Query{Index: IndexByLangAndRating, HashValue: LeadersPK(lang), Limit: n}
	for len(out) < n {
		res, err := s.table.Query(ctx, q)
		if err != nil {
			return nil, tableError(err)
		}
		for _, it := range res.Items {
			pid, _ := ProductIDFromPK(it.S(AttrPK))
			out = append(out, Rank{Rank: len(out) + 1, ProductID: pid, FiveStarCount: it.N(AttrCount(5))})
		}
		if res.LastKey == nil {
			break
		}
		q.StartKey, q.Limit = res.LastKey, n-len(out)
	}
	return out, nil
}

// NewComment is the input of CreateComment.
type NewComment struct {
	ProductID string
	Language  string
	Rating    int
	Author    string
	Title     string
	Body      string
	AuthorID  string // optional: the authenticated creator (see Comment.AuthorID)
}

// CommentUpdate is the input of UpdateComment; nil fields are unchanged.
type CommentUpdate struct {
	ID       string
	Language *string
	Rating   *int
	Title    *string
	Body     *string
	Owner    Owner // whose comment the change may touch (AnyOwner: any)
}

// The most items a mutation reads in one attempt (a retry after a
// conflicting concurrent write reads them again): the comment it changes,
// and the stats items whose 5-star count changes (all languages, the old
// and the new language).
const (
	CreateCommentReads = 2
	UpdateCommentReads = 4
	DeleteCommentReads = 3
)

// validate checks every field of an update, reporting every invalid one
// (one error, or Errors for several), and returns the canonical language.
func (in CommentUpdate) validate() (lang string, err error) {
	var errs invalidList
	check := errs.add
	check(ValidateID("id", in.ID))
	if in.Language != nil {
		lang, err = CanonicalLanguage(*in.Language)
		check(err)
	}
	if in.Rating != nil {
		check(validateRating(*in.Rating))
	}
	if in.Title != nil {
		check(ValidateText("title", *in.Title, maxTitleLen))
	}
	if in.Body != nil {
		check(validateMultilineText("body", *in.Body, MaxBodyLen))
	}
	return lang, errs.join()
}

// maxAttempts bounds the retries of a mutation whose conditions failed
// because a concurrent writer changed the same comment or stats.
const maxAttempts = 12

// CreateComment stores a new comment and counts it in its product's stats,
// in one atomic write.
func (s *Store) CreateComment(ctx context.Context, in NewComment) (*Comment, error) {
	now := s.now().UTC()
	c := &Comment{
		ID: s.newID(now), ProductID: in.ProductID, Language: in.Language, Rating: in.Rating,
		Author: in.Author, Title: in.Title, Body: in.Body, CreatedAt: now,
		AuthorID: in.AuthorID,
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	err := s.retry(ctx, func() error {
		d := statsDelta{}
		d.add(c, +1)
		ops, err := s.statsOps(ctx, c.ProductID, d)
		if err != nil {
			return err
		}
		ops = append(ops, Op{Kind: OpPut, Key: CommentKey(c.ID), Item: c.Item(), Conds: []Cond{{Kind: CondNotExists}}})
		return s.commit(ctx, ops, Change{Kind: ChangeAdded, Comment: c})
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// UpdateComment changes a comment's language, rating, title or body and moves
// its count in the stats, in one atomic write conditional on the comment's
// version and on in.Owner. A missing comment is ENOTFOUND, another author's
// EFORBIDDEN (see Owner).
func (s *Store) UpdateComment(ctx context.Context, in CommentUpdate) (*Comment, error) {
	lang, err := in.validate()
	if err != nil {
		return nil, err
	}
	var out *Comment
	err = s.retry(ctx, func() error {
		old, err := s.getComment(ctx, in.ID)
		if err != nil {
			return err
		}
		if err := in.Owner.check(old); err != nil {
			return err
		}
		c := *old
		if in.Language != nil {
			c.Language = lang
		}
		if in.Rating != nil {
			c.Rating = *in.Rating
		}
		if in.Title != nil {
			c.Title = *in.Title
		}
		if in.Body != nil {
			c.Body = *in.Body
		}
		if c == *old {
			out = old
			return nil
		}
		c.Version = old.Version + 1
		d := statsDelta{}
		d.add(old, -1)
		d.add(&c, +1)
		ops, err := s.statsOps(ctx, c.ProductID, d)
		if err != nil {
			return err
		}
		ops = append(ops, Op{Kind: OpPut, Key: CommentKey(c.ID), Item: c.Item(), Conds: in.Owner.conds(old.Version)})
		if err := s.commit(ctx, ops, Change{Kind: ChangeUpdated, Comment: &c, Old: old}); err != nil {
			return refused(c.ID, err)
		}
		out = &c
		return nil
	})
	return out, err
}

// DeleteComment deletes a comment and uncounts it, in one atomic write
// conditional on the comment's version and on owner. A missing comment is
// ENOTFOUND, another author's EFORBIDDEN (see Owner).
func (s *Store) DeleteComment(ctx context.Context, id string, owner Owner) error {
	if err := ValidateID("comment id", id); err != nil {
		return err
	}
	return s.retry(ctx, func() error {
		old, err := s.getComment(ctx, id)
		if err != nil {
			return err
		}
		if err := owner.check(old); err != nil {
			return err
		}
		d := statsDelta{}
		d.add(old, -1)
		ops, err := s.statsOps(ctx, old.ProductID, d)
		if err != nil {
			return err
		}
		ops = append(ops, Op{Kind: OpDelete, Key: CommentKey(id), Conds: owner.conds(old.Version)})
		return refused(id, s.commit(ctx, ops, Change{Kind: ChangeDeleted, Comment: old}))
	})
}

func (s *Store) getComment(ctx context.Context, id string) (*Comment, error) {
	it, err := s.table.Get(ctx, CommentKey(id))
	if err != nil {
		return nil, tableError(err)
	}
	if it == nil {
		return nil, Errorf(ENOTFOUND, "comment %q not found", id)
	}
	return CommentFromItem(it)
}

// retry runs fn until it succeeds, fails with anything but ECONFLICT, or
// maxAttempts conflicts have passed, backing off with jitter in between.
func (s *Store) retry(ctx context.Context, fn func() error) error {
	backoff := 2 * time.Millisecond
	for attempt := 1; ; attempt++ {
		err := fn()
		if ErrorCode(err) != ECONFLICT {
			return err
		}
		if attempt == maxAttempts {
			return Wrap(EUNAVAILABLE, err, "too much contention on this product; try again")
		}
		t := time.NewTimer(backoff/2 + rand.N(backoff))
		select {
		case <-ctx.Done():
			t.Stop()
			return Wrap(EUNAVAILABLE, ctx.Err(), "request cancelled")
		case <-t.C:
		}
		backoff = min(backoff*2, 200*time.Millisecond)
	}
}

// statsDelta holds counter changes per stats item language ("" = all).
type statsDelta map[string]*[MaxRating + 1]int64

func (d statsDelta) add(c *Comment, n int64) {
	for _, lang := range []string{"", c.Language} {
		v := d[lang]
		if v == nil {
			v = new([MaxRating + 1]int64)
			d[lang] = v
		}
		v[c.Rating] += n
	}
}

// statsOps returns the updates of the stats items that d changes: ADDs to
// the counters and, where count_5 changes, the leaderboard keys rewritten
// under a condition on the old count_5 (read here), so a concurrent change
// of count_5 makes the write fail and retry.
func (s *Store) statsOps(ctx context.Context, pid string, d statsDelta) ([]Op, error) {
	langs := make([]string, 0, len(d))
	for lang, v := range d {
		if *v != ([MaxRating + 1]int64{}) {
			langs = append(langs, lang)
		}
	}
	slices.Sort(langs)
	var read []Key
	for _, lang := range langs {
		if d[lang][5] != 0 {
			read = append(read, StatsKey(pid, lang))
		}
	}
	var old []Item
	if len(read) > 0 {
		var err error
		if old, err = s.table.BatchGet(ctx, read); err != nil {
			return nil, tableError(err)
		}
	}
	ops := make([]Op, 0, len(langs)+1)
	for _, lang := range langs {
		v := d[lang]
		op := Op{Kind: OpUpdate, Key: StatsKey(pid, lang), Add: map[string]int64{AttrVersion: 1}}
		var total int64
		for r := MinRating; r <= MaxRating; r++ {
			if v[r] != 0 {
				op.Add[AttrCount(r)] = v[r]
				total += v[r]
			}
		}
		if total != 0 {
			op.Add[AttrCountTotal] = total
		}
		if v[5] != 0 {
			var it Item
			for i, k := range read {
				if k == op.Key {
					it = old[i]
				}
			}
			old5, present := it[AttrCount(5)].(int64)
			if present {
				op.Conds = []Cond{{Kind: CondEquals, Attr: AttrCount(5), Value: old5}}
			} else {
				op.Conds = []Cond{{Kind: CondAbsent, Attr: AttrCount(5)}}
			}
			if n5 := old5 + v[5]; n5 > 0 {
				op.Set = Item{AttrGSIPK: LeadersPK(lang), AttrGSISK: LeadersSK(n5, pid)}
			} else {
				op.Remove = []string{AttrGSIPK, AttrGSISK}
			}
		}
		ops = append(ops, op)
	}
	return ops, nil
}
