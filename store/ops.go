package store

import (
	"context"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/acme/comments-gateway/store/table"
)

// StatsID addresses the stats of a product for one language ("" for all).
type StatsID struct {
	ProductID string
	Language  string
}

// GetStats returns the stats of ids, aligned with them; a product or
// language without comments has zero stats (see ReadStats).
func (s *Store) GetStats(ctx context.Context, ids []StatsID) ([]*Stats, error) {
	out, _, err := s.ReadStats(ctx, ids)
	return out, err
}

// StatsRead is what reading the stats of one id took: the Table calls made
// for it and the items they returned, as the backend accounted them. A
// call made for several ids at once (a BatchGet) counts on the first of
// them, its items on the ids they belong to, so the reads of a batch sum
// to its calls and items.
type StatsRead struct {
	Calls, Items int
}

// ReadStats returns the stats of ids and what reading each took, aligned
// with ids. It reads every counter shard of each id: on a local table in
// one BatchGet (one read transaction); on a remote one by Query
// (statsShardsQuery), which DynamoDB bills by the size read (8 shards of
// ~90 bytes: 1 read unit) where a BatchGet bills every key. On a table
// that counts its writes (the embedded store: table.WriteCounter), stats read
// while no write has returned since are answered as read, without a read
// (no call, no item).
func (s *Store) ReadStats(ctx context.Context, ids []StatsID) ([]*Stats, []StatsRead, error) {
	var writes uint64
	if s.writes != nil {
		writes = s.writes.Writes() // before the read: see table.WriteCounter
		if out, ok := s.hints.current(ids, writes); ok {
			return out, make([]StatsRead, len(ids)), nil
		}
	}
	read := s.statsByQuery
	if s.local {
		read = s.statsByKey
	}
	reads := make([]StatsRead, len(ids))
	shards, err := read(ctx, ids, reads)
	if err != nil {
		return nil, nil, err
	}
	out := make([]*Stats, len(ids))
	for i, id := range ids {
		out[i] = SumStats(id.ProductID, id.Language, shards[i])
		s.hints.put(out[i], writes, s.writes != nil)
	}
	return out, reads, nil
}

// statsByKey reads the counter shards of ids in one BatchGet of all their
// keys (nil items where a shard does not exist), and adds it to reads.
func (s *Store) statsByKey(ctx context.Context, ids []StatsID, reads []StatsRead) ([][]table.Item, error) {
	keys := make([]table.Key, 0, len(ids)*StatsShards)
	for _, id := range ids {
		keys = append(keys, StatsShardKeys(id.ProductID, id.Language)...)
	}
	items, err := s.table.BatchGet(ctx, keys)
	if err != nil {
		return nil, tableError(err)
	}
	shards := make([][]table.Item, len(ids))
	for i := range ids {
		shards[i] = items[i*StatsShards : (i+1)*StatsShards]
		reads[i].Items = table.Found(shards[i]...)
	}
	if len(ids) > 0 {
		reads[0].Calls = 1
	}
	return shards, nil
}

// statsByQuery reads the counter shards of ids with one Query each and,
// for the ids of all languages, their shards 0 in one BatchGet (see
// statsShardsQuery), all at once, and adds them to reads.
func (s *Store) statsByQuery(ctx context.Context, ids []StatsID, reads []StatsRead) ([][]table.Item, error) {
	var zeros []table.Key
	for _, id := range ids {
		if id.Language == "" {
			zeros = append(zeros, StatsKey(id.ProductID, ""))
		}
	}
	shards := make([][]table.Item, len(ids))
	var zeroItems []table.Item
	err := s.each(ctx, len(ids)+min(len(zeros), 1), func(ctx context.Context, n int) error {
		if n == len(ids) {
			items, err := s.table.BatchGet(ctx, zeros)
			zeroItems = items
			return tableError(err)
		}
		res, err := s.table.Query(ctx, statsShardsQuery(ids[n]))
		if err != nil {
			return tableError(err)
		}
		reads[n] = StatsRead{Calls: 1, Items: len(res.Items)}
		shards[n] = ofStats(ids[n].Language, res.Items)
		return nil
	})
	if err != nil {
		return nil, err
	}
	batchCall := 1
	for i, id := range ids {
		if id.Language == "" {
			shards[i] = append(shards[i], zeroItems[0])
			reads[i].Calls += batchCall
			reads[i].Items += table.Found(zeroItems[0])
			zeroItems, batchCall = zeroItems[1:], 0
		}
	}
	return shards, nil
}

// GetComments returns the comments of ids, aligned with them (nil where
// missing), in one BatchGet.
func (s *Store) GetComments(ctx context.Context, ids []string) ([]*Comment, error) {
	keys := make([]table.Key, len(ids))
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

// Rank is one entry of the leaderboard.
type Rank struct {
	Rank          int
	ProductID     string
	FiveStarCount int64
}

// MaxTopProducts bounds topProducts(first).
const MaxTopProducts = 100

// TopProducts returns the first n products by 5-star count in language lang
// ("" for all), ties by product id descending: the first n entries of each
// of the LeaderShards leaderboard partitions of byLangAndRating, read in
// parallel, merged (see topOfShards).
func (s *Store) TopProducts(ctx context.Context, lang string, n int) ([]Rank, error) {
	if n < 0 || n > MaxTopProducts {
		return nil, OutOfRange("first", 0, MaxTopProducts, n)
	}
	if n == 0 {
		return []Rank{}, nil
	}
	return s.topOfShards(ctx, lang, n)
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
	// VerifiedPurchase marks the comment as a buyer's; the edge lets only
	// the merchant role set it. No update changes it.
	VerifiedPurchase bool
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
// conflicting concurrent write reads them again): the comment it changes
// (update and delete), and the settle of the leaderboard entries after the
// write (settle): an entry and its StatsShards counter shards for each
// language whose 5-star count changes (all languages and the comment's;
// an update's old and new language).
const (
	CreateCommentReads = 2 * settleReadsPerLanguage
	UpdateCommentReads = 1 + 3*settleReadsPerLanguage
	DeleteCommentReads = 1 + 2*settleReadsPerLanguage
)

// settleReadsPerLanguage is the items one settle attempt reads per
// language: the leaderboard entry and its counter shards.
const settleReadsPerLanguage = 1 + StatsShards

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
// in one atomic write; in pre moderation it is PENDING, and not counted.
func (s *Store) CreateComment(ctx context.Context, in NewComment) (*Comment, error) {
	now := s.now().UTC()
	c := &Comment{
		ID: s.newID(now), ProductID: in.ProductID, Language: in.Language, Rating: in.Rating,
		Author: in.Author, Title: in.Title, Body: in.Body, CreatedAt: now,
		AuthorID: in.AuthorID, VerifiedPurchase: in.VerifiedPurchase,
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if s.mod.Mode == ModerationPre {
		c.Status = StatusPending
	}
	err := s.retry(ctx, func() error {
		ops := s.rewriteOps(nil, c, []table.Cond{{Kind: table.CondNotExists}})
		return s.commitSettled(ctx, ops, publicChange(nil, c))
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// UpdateComment changes a comment's language, rating, title or body and moves
// its count in the stats, in one atomic write conditional on the comment's
// version and on in.Owner. In pre moderation the edited comment goes back
// to review: PENDING, unpublished until approved (docs/design.md §12.2). A missing comment is ENOTFOUND, another author's
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
		if s.mod.Mode == ModerationPre {
			c.Status, c.Reports = StatusPending, 0
		}
		ops := s.rewriteOps(old, &c, in.Owner.conds(old.Version))
		if err := s.commitSettled(ctx, ops, publicChange(old, &c)); err != nil {
			return refused(c.ID, err)
		}
		out = &c
		return nil
	})
	return out, err
}

// DeleteComment deletes a comment and uncounts it, in one atomic write
// conditional on the comment's version and on owner, then deletes its
// reports and votes. A missing comment is
// ENOTFOUND, another author's EFORBIDDEN (see Owner).
func (s *Store) DeleteComment(ctx context.Context, id string, owner Owner) error {
	if err := ValidateID("comment id", id); err != nil {
		return err
	}
	err := s.retry(ctx, func() error {
		old, err := s.getComment(ctx, id)
		if err != nil {
			return err
		}
		if err := owner.check(old); err != nil {
			return err
		}
		ops := s.rewriteOps(old, nil, owner.conds(old.Version))
		return refused(id, s.commitSettled(ctx, ops, publicChange(old, nil)))
	})
	if err == nil && s.mod.on() {
		_ = s.purgeReports(ctx, id) // best effort, as a settle: leftovers are inert
	}
	if err == nil {
		_ = s.purgeVotes(ctx, id) // likewise (votes.go)
	}
	return err
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
		if err := sleep(ctx, backoff/2+rand.N(backoff)); err != nil {
			return err
		}
		backoff = min(backoff*2, 200*time.Millisecond)
	}
}

// statsDelta holds the counter changes of one comment's write, per stats
// item language ("" = all), and the counter shard they go to (the comment's:
// an update moves counts within one shard).
type statsDelta struct {
	shard int
	langs map[string]*[MaxRating + 1]int64
}

func (d *statsDelta) add(c *Comment, n int64) {
	if d.langs == nil {
		d.langs = map[string]*[MaxRating + 1]int64{}
	}
	d.shard = statsShard(c.ID)
	for _, lang := range []string{"", c.Language} {
		v := d.langs[lang]
		if v == nil {
			v = new([MaxRating + 1]int64)
			d.langs[lang] = v
		}
		v[c.Rating] += n
	}
}

// deltaOps returns the updates of the stats that d changes: unconditional
// ADDs to the counters of the comment's shard (so concurrent writers of one
// product do not contend unless their comments share a shard) and, where
// the 5-star count changes, a leaderboard marker (see pendingOp): the
// leaderboard entries are brought up to date after the write commits
// (Store.commit), never under a condition that writers would contend on.
func deltaOps(pid string, d statsDelta) []table.Op {
	langs := make([]string, 0, len(d.langs))
	for lang, v := range d.langs {
		if *v != ([MaxRating + 1]int64{}) {
			langs = append(langs, lang)
		}
	}
	slices.Sort(langs)
	var fives []string
	ops := make([]table.Op, 0, len(langs)+2)
	for _, lang := range langs {
		v := d.langs[lang]
		if v[5] != 0 {
			fives = append(fives, lang)
		}
		op := table.Op{Kind: table.OpUpdate, Key: StatsShardKey(pid, lang, d.shard), Add: map[string]int64{table.AttrVersion: 1}}
		var total int64
		for r := MinRating; r <= MaxRating; r++ {
			if v[r] != 0 {
				op.Add[table.AttrCount(r)] = v[r]
				total += v[r]
			}
		}
		if total != 0 {
			op.Add[table.AttrCountTotal] = total
		}
		if v[5] != 0 {
			op.Add[attrVersion5] = 1
		}
		ops = append(ops, op)
	}
	if len(fives) > 0 {
		ops = append(ops, pendingOp(pid, fives))
	}
	return ops
}
