package store

import (
	"context"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/acme/comments-gateway/store/table"
)

// Helpful votes (docs/design.md §13). A comment's votes live in a partition
// of their own, VOTES#<comment id>:
//
//   - one vote item per (comment, voter), SK "V#<voter>", attribute vote
//     (1: helpful, 0: not helpful), written on condition that it still holds
//     the vote it was read with (a voter's concurrent requests take turns);
//   - VoteShards counter shards, SK "#<n>", holding ADDed helpful and
//     unhelpful counts and a version; a voter always counts in the shard of
//     its hash (voteShard), so a burst of voters on one comment spreads over
//     the shards instead of queueing on one item.
//
// The vote item and its shard change in one atomic Write, so the shards
// always sum to a recount of the vote items. The comment item itself is not
// in that write (a condition on it would make every voter of a hot comment
// conflict): its attributes helpful, unhelpful and HSK are settled after
// the write (settleVotes) from one Query of the shards, as the leaderboard
// entries are (leaders.go).
//
// Settling is exact. A settle reads the comment, then the shards, and writes
// their sums and versions (vv_0 … vv_15) onto the comment on condition that
// its version is still the one read (the write ADDs 1 to it, so every put
// of the comment that read it before the settle retries on the new counts
// rather than writing back old ones). A settle that replaces counts
// therefore read its shards after the settle it replaces wrote, and each
// shard only grows in version: the comment's counts only move forward,
// shard by shard. A vote's settle stops, without writing, once the
// comment's version of the vote's shard is at least the one the settle
// first read (a settle that read the shard after the vote counted it);
// so every vote is counted by the comment's state and all its successors,
// and when the burst ends the comment counts every vote. A settle cut
// short (a crash, or maxSettle lost races) leaves the counts behind until
// the next vote on the comment or rebuild-stats settles them; the votes
// themselves are never lost. A put of the whole comment (an edit) keeps
// its counts but drops the versions, which costs the next settle a write.
//
// Deleting a comment deletes its vote partition after the comment
// (purgeVotes, best effort as purgeReports): a vote that raced the delete
// may leave an orphan, which nothing reads (a vote and viewerVote need the
// comment; a settle finds it missing and writes nothing) and rebuild-stats
// deletes.

// VoteShards is the number of vote counter shards of a comment. A settle
// reads them all by one Query (16 items of ~60 bytes: one read unit).
const VoteShards = 16

// VoteCommentReads is the most items one attempt of VoteComment reads: the
// comment, the voter's vote item and, for the settle, the comment again and
// the vote shards (a settle that lost a race reads them again).
const VoteCommentReads = 3 + VoteShards

const (
	votesPrefix   = "VOTES#"
	voteShardSK   = "#" // + shard number; sorts before every vote item
	voteItemSK    = "V#"
	attrVote      = "vote" // a vote item's vote: 1 helpful, 0 not helpful
	maxVoterLen   = 256    // bytes of a voter's identity
	voteSettleMax = maxSettle
)

// VoteID addresses one voter's vote on one comment.
type VoteID struct {
	CommentID string
	Voter     string
}

// VotesPK is the partition of comment id's votes and vote shards.
func VotesPK(id string) string { return votesPrefix + id }

// VoteKey is the key of voter's vote item on comment id.
func VoteKey(id, voter string) table.Key {
	return table.Key{PK: VotesPK(id), SK: voteItemSK + voter}
}

// VoteShardKey is the key of vote counter shard n of comment id.
func VoteShardKey(id string, n int) table.Key {
	return table.Key{PK: VotesPK(id), SK: voteShardSK + strconv.Itoa(n)}
}

// voteShard returns the shard voter's votes count in.
func voteShard(voter string) int { return fnvMod(voter, VoteShards) }

// voteShardsQuery is the Query of comment id's vote shards: the first
// VoteShards items of its partition with SK beginning with "#".
func voteShardsQuery(id string) table.Query {
	return table.Query{HashValue: VotesPK(id), SortOp: table.SortBeginsWith, SortValue: voteShardSK, Forward: true, Limit: VoteShards}
}

// voteOf decodes a vote item (nil: no vote).
func voteOf(it table.Item) *bool {
	if it == nil {
		return nil
	}
	v := it.N(attrVote) == 1
	return &v
}

// sameVote reports whether two votes (nil: none) are equal.
func sameVote(a, b *bool) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// voteCounts are the helpful and unhelpful counts one vote contributes
// (nil: none).
func voteCounts(v *bool) (helpful, unhelpful int64) {
	switch {
	case v == nil:
		return 0, 0
	case *v:
		return 1, 0
	}
	return 0, 1
}

// checkVoter refuses an empty or oversized voter identity.
func checkVoter(voter string) error {
	if voter == "" || len(voter) > maxVoterLen {
		return Errorf(EINVALID, "a vote needs its voter's identity (1 to %d bytes)", maxVoterLen)
	}
	return nil
}

// VoteComment records voter's vote on published comment id: helpful true
// or false, or nil to withdraw it. One atomic Write changes the vote item
// (on condition it still holds the vote read) and adds the difference to
// the voter's vote shard; voting again as before changes nothing. The
// comment's counts are then settled (settleVotes): the comment returned
// has the counts of its shards as read after the vote. A comment that is
// not published is ENOTFOUND (the public does not see it).
func (s *Store) VoteComment(ctx context.Context, id, voter string, helpful *bool) (*Comment, error) {
	if err := ValidateID("commentId", id); err != nil {
		return nil, err
	}
	if err := checkVoter(voter); err != nil {
		return nil, err
	}
	c, err := s.getComment(ctx, id)
	if err != nil {
		return nil, err
	}
	if c.Status != StatusPublished {
		return nil, Errorf(ENOTFOUND, "comment %q not found", id)
	}
	vk := VoteKey(id, voter)
	changed := false
	err = s.retry(ctx, func() error {
		prev, err := s.table.Get(ctx, vk)
		if err != nil {
			return tableError(err)
		}
		old := voteOf(prev)
		if sameVote(old, helpful) {
			return nil
		}
		changed = true
		return tableError(s.table.Write(ctx, voteOps(id, voter, old, helpful)), ECONFLICT)
	})
	if err != nil {
		return nil, err
	}
	if !changed {
		return c, nil
	}
	// The vote has committed: a settle that fails leaves it for the next
	// vote or rebuild-stats, and is no error of this one.
	return s.settleVotes(ctx, c, voter), nil
}

// voteOps is the atomic write that changes voter's vote on comment id from
// old to v (nil: none): the vote item, on condition it still holds old,
// and the difference added to the voter's shard with its version.
func voteOps(id, voter string, old, v *bool) []table.Op {
	k := VoteKey(id, voter)
	var vote table.Op
	switch {
	case v == nil:
		vote = table.Op{Kind: table.OpDelete, Key: k}
	default:
		n := int64(0)
		if *v {
			n = 1
		}
		vote = table.Op{Kind: table.OpPut, Key: k, Item: table.Item{table.AttrPK: table.S(k.PK), table.AttrSK: table.S(k.SK), attrVote: table.N(n)}}
	}
	if old == nil {
		vote.Conds = []table.Cond{{Kind: table.CondNotExists}}
	} else {
		h, _ := voteCounts(old)
		vote.Conds = []table.Cond{{Kind: table.CondEquals, Attr: attrVote, Value: table.N(h)}}
	}
	oh, ou := voteCounts(old)
	nh, nu := voteCounts(v)
	shard := table.Op{Kind: table.OpUpdate, Key: VoteShardKey(id, voteShard(voter)), Add: map[string]int64{table.AttrVersion: 1}}
	if d := nh - oh; d != 0 {
		shard.Add[table.AttrHelpful] = d
	}
	if d := nu - ou; d != 0 {
		shard.Add[table.AttrUnhelpful] = d
	}
	return []table.Op{vote, shard}
}

// settleVotes brings the counts of comment c (as read before voter's
// vote) up to its vote shards (see the rule above) and returns the comment
// with the counts it found settled or settled itself; c when the settle
// failed (the vote then waits for the next vote or rebuild-stats).
func (s *Store) settleVotes(ctx context.Context, c *Comment, voter string) *Comment {
	if out, err := s.settleComment(ctx, c.ID, voteShard(voter)); err == nil && out != nil {
		return out
	}
	return c
}

// voteVector is the version of each vote shard: as read, or as a
// comment's counts were settled from (attributes vv_0 … vv_15; absent 0).
type voteVector [VoteShards]int64

// attrVoteVector names the attribute of a comment that holds the version
// of vote shard n its counts were settled from.
func attrVoteVector(n int) string { return "vv_" + strconv.Itoa(n) }

// covers reports whether v counts every vote of w in shard n, or in every
// shard when n < 0: it is at least as new there.
func (v *voteVector) covers(w *voteVector, n int) bool {
	if n >= 0 {
		return v[n] >= w[n]
	}
	for i := range v {
		if v[i] < w[i] {
			return false
		}
	}
	return true
}

// settleRead reads comment id for a settle: the comment and the shard
// versions its counts were settled from; nil when it does not exist.
func (s *Store) settleRead(ctx context.Context, id string) (*Comment, *voteVector, error) {
	it, err := s.table.Get(ctx, CommentKey(id))
	if err != nil || it == nil {
		return nil, nil, tableError(err)
	}
	c, err := CommentFromItem(it)
	var v voteVector
	for n := range v {
		v[n] = it.N(attrVoteVector(n))
	}
	return c, &v, err
}

// settleComment is the settle of comment id after a vote in shard (every
// shard when shard < 0, as rebuild-stats settles), with its error:
// EUNAVAILABLE after voteSettleMax lost races, or the table's; a comment
// found missing is no error (nil).
//
// It reads the comment, then the shards. When the comment already counts
// the shard as this first read found it (another voter's settle read it
// after this vote), it is done; otherwise it writes the shards' sums and
// versions on condition of the comment's version. A lost race reads the
// comment again and stops on the same test, or goes round. Most settles of
// a burst find their vote counted by another, which keeps them from
// racing on the comment.
func (s *Store) settleComment(ctx context.Context, id string, shard int) (*Comment, error) {
	c, settled, err := s.settleRead(ctx, id)
	if c == nil || err != nil {
		return nil, err
	}
	var need *voteVector
	backoff := time.Millisecond
	for attempt := 1; ; attempt++ {
		res, err := s.table.Query(ctx, voteShardsQuery(id))
		if err != nil {
			return nil, tableError(err)
		}
		next := *c
		next.HelpfulCount, next.UnhelpfulCount = 0, 0
		var read voteVector
		for _, sh := range res.Items {
			next.HelpfulCount += sh.N(table.AttrHelpful)
			next.UnhelpfulCount += sh.N(table.AttrUnhelpful)
			if n, err := strconv.Atoi(strings.TrimPrefix(sh.S(table.AttrSK), voteShardSK)); err == nil && n >= 0 && n < VoteShards {
				read[n] = sh.N(table.AttrVersion)
			}
		}
		if need == nil {
			need = &read
		}
		if settled.covers(need, shard) {
			return c, nil // the comment counts this vote
		}
		next.Version = c.Version + 1
		err = s.commit(ctx, []table.Op{settleOp(c, &next, &read)}, publicChange(c, &next))
		if err == nil {
			return &next, nil
		}
		if ErrorCode(err) != ECONFLICT {
			return nil, err
		}
		if attempt == voteSettleMax {
			return nil, Errorf(EUNAVAILABLE, "the votes of comment %q keep changing; try again", id)
		}
		if err := sleep(ctx, backoff/2+rand.N(backoff)); err != nil {
			return nil, err
		}
		backoff = min(backoff*2, 50*time.Millisecond)
		if c, settled, err = s.settleRead(ctx, id); c == nil || err != nil {
			return nil, err // deleted: nothing to settle
		}
		if settled.covers(need, shard) {
			return c, nil
		}
	}
}

// settleOp writes the counts of next, summed from shards of versions read,
// onto comment old's item with those versions, and its HSK when published,
// on condition that the item is still at old's version (ADDing 1 to it).
func settleOp(old, next *Comment, read *voteVector) table.Op {
	op := table.Op{Kind: table.OpUpdate, Key: CommentKey(old.ID), Set: table.Item{}, Add: map[string]int64{table.AttrVersion: 1},
		Conds: []table.Cond{{Kind: table.CondEquals, Attr: table.AttrVersion, Value: table.N(old.Version)}}}
	for attr, n := range map[string]int64{table.AttrHelpful: next.HelpfulCount, table.AttrUnhelpful: next.UnhelpfulCount} {
		if n != 0 {
			op.Set[attr] = table.N(n)
		} else {
			op.Remove = append(op.Remove, attr)
		}
	}
	for n, v := range read {
		if v != 0 {
			op.Set[attrVoteVector(n)] = table.N(v)
		}
	}
	if old.Status == StatusPublished {
		op.Set[table.AttrHSK] = table.S(next.HelpfulSortKey())
	}
	return op
}

// GetVotes returns the votes of ids (nil where the voter has not voted),
// aligned with them, in one BatchGet.
func (s *Store) GetVotes(ctx context.Context, ids []VoteID) ([]*bool, error) {
	keys := make([]table.Key, len(ids))
	for i, id := range ids {
		if err := checkVoter(id.Voter); err != nil {
			return nil, err
		}
		keys[i] = VoteKey(id.CommentID, id.Voter)
	}
	items, err := s.table.BatchGet(ctx, keys)
	if err != nil {
		return nil, tableError(err)
	}
	out := make([]*bool, len(ids))
	for i, it := range items {
		out[i] = voteOf(it)
	}
	return out, nil
}

// purgeVotes deletes the vote partition of deleted comment id, a page of
// MaxWriteOps at a time (after the comment's delete: a vote of a comment
// that is gone is read by nothing, so a failure leaves only garbage, which
// rebuild-stats deletes).
func (s *Store) purgeVotes(ctx context.Context, id string) error {
	return s.purgePartition(ctx, VotesPK(id))
}

// purgePartition deletes every item of base-table partition pk, a page of
// MaxWriteOps at a time.
func (s *Store) purgePartition(ctx context.Context, pk string) error {
	for {
		res, err := s.table.Query(ctx, table.Query{HashValue: pk, Forward: true, Limit: table.MaxWriteOps})
		if err != nil || len(res.Items) == 0 {
			return tableError(err)
		}
		ops := make([]table.Op, len(res.Items))
		for i, it := range res.Items {
			ops[i] = table.Op{Kind: table.OpDelete, Key: it.Key()}
		}
		if err := s.table.Write(ctx, ops); err != nil {
			return tableError(err)
		}
	}
}

// CommentIDFromVotesPK returns the comment id of a vote partition's PK,
// and whether pk is one.
func CommentIDFromVotesPK(pk string) (string, bool) {
	return strings.CutPrefix(pk, votesPrefix)
}

// settleVotesOf settles the votes of comment id (rebuild-stats' step for
// a comment whose vote partition it saw): the counts of a settle cut
// short are brought up to the shards, and the votes of a comment that no
// longer exists are deleted.
func (s *Store) settleVotesOf(ctx context.Context, id string) error {
	c, err := s.settleComment(ctx, id, -1)
	if c == nil && err == nil {
		return s.purgeVotes(ctx, id)
	}
	return err
}
