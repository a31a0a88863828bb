package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/table"
)

// The votes suite (docs/design.md §13): one vote per voter and comment,
// changed and withdrawn; concurrent voters on one comment counted exactly
// against a recount of their votes; settles cut short and repaired; a
// viewer's votes read by product, and by key past a Query's limit; votes
// of a deleted comment inert, then deleted by rebuild-stats.

// VoteWriters is how many voters testVotes runs on one comment at once.
const VoteWriters = 16

// testVotes runs the votes suite on tbl.
func testVotes(t *testing.T, tbl table.Table) {
	t.Run("one-voter", func(t *testing.T) { testOneVoter(t, tbl) })
	t.Run("refusals", func(t *testing.T) { testVoteRefusals(t, tbl) })
	t.Run("concurrent", func(t *testing.T) { testConcurrentVotes(t, tbl) })
	t.Run("settle-cut-short", func(t *testing.T) { testSettleCutShort(t, tbl) })
	t.Run("viewer-votes", func(t *testing.T) { testViewerVotes(t, tbl) })
	t.Run("delete", func(t *testing.T) { testVotesOfDeleted(t, tbl) })
	t.Run("most-helpful-after-burst", func(t *testing.T) { testMostHelpfulAfterBurst(t, tbl) })
}

// mustVoted creates a published comment of product pid to vote on.
func mustVoted(t *testing.T, s *store.Store, pid string) *store.Comment {
	t.Helper()
	c, err := s.CreateComment(t.Context(), store.NewComment{ProductID: pid, Language: "en", Rating: 4, Author: "a", Title: "t", Body: "b"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// vote is a *bool for a vote (nil: withdrawn).
func vote(v bool) *bool { return &v }

// voteName spells a vote as the API does.
func voteName(v *bool) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprint(*v)
}

// checkCounts compares the stored comment id's settled counts, its HSK and
// the counts of got (a VoteComment answer, nil to skip) with want.
func checkCounts(t *testing.T, s *store.Store, tbl table.Table, id string, got *store.Comment, helpful, unhelpful int64) {
	t.Helper()
	if got != nil && (got.HelpfulCount != helpful || got.UnhelpfulCount != unhelpful) {
		t.Errorf("vote answered %d/%d, want %d/%d", got.HelpfulCount, got.UnhelpfulCount, helpful, unhelpful)
	}
	cs, err := s.GetComments(t.Context(), []string{id})
	if err != nil || cs[0] == nil {
		t.Fatalf("comment %s: %v %v", id, cs, err)
	}
	c := cs[0]
	if c.HelpfulCount != helpful || c.UnhelpfulCount != unhelpful {
		t.Errorf("comment %s settled at %d/%d, want %d/%d", id, c.HelpfulCount, c.UnhelpfulCount, helpful, unhelpful)
	}
	it := MustGet(t, tbl, store.CommentKey(id))
	if c.Status == store.StatusPublished && (helpful != 0 || it.S(table.AttrHSK) != "") && it.S(table.AttrHSK) != c.HelpfulSortKey() {
		t.Errorf("comment %s HSK %q, want %q", id, it.S(table.AttrHSK), c.HelpfulSortKey())
	}
}

// checkViewerVotes compares the votes on comment c GetVotes reads with want.
func checkViewerVotes(t *testing.T, s *store.Store, c *store.Comment, want map[string]*bool) {
	t.Helper()
	ids := make([]store.VoteID, 0, len(want))
	for voter := range want {
		ids = append(ids, store.VoteID{ProductID: c.ProductID, CommentID: c.ID, Voter: voter})
	}
	got, err := s.GetVotes(t.Context(), ids)
	if err != nil {
		t.Fatal(err)
	}
	for i, vid := range ids {
		if voteName(got[i]) != voteName(want[vid.Voter]) {
			t.Errorf("vote of %s = %s, want %s", vid.Voter, voteName(got[i]), voteName(want[vid.Voter]))
		}
	}
}

// changeLog records the changes a store publishes.
type changeLog struct {
	mu      sync.Mutex
	changes []store.Change
}

func (l *changeLog) Publish(ch store.Change) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.changes = append(l.changes, ch)
}

// testOneVoter walks one voter through every transition, and a second
// voter alongside; each vote that moves the counts publishes the comment
// UPDATED; an edit of the comment keeps its counts.
func testOneVoter(t *testing.T, tbl table.Table) {
	log := &changeLog{}
	s := store.New(tbl, store.WithPublisher(log))
	c := mustVoted(t, s, "votes-one")
	steps := []struct {
		voter        string
		v            *bool
		help, unhelp int64
	}{
		{"u1", vote(true), 1, 0},
		{"u1", vote(true), 1, 0}, // the same vote again changes nothing
		{"u2", vote(true), 2, 0},
		{"u1", vote(false), 1, 1},
		{"u1", nil, 1, 0},
		{"u1", nil, 1, 0}, // withdrawing nothing changes nothing
		{"u2", vote(false), 0, 1},
		{"u1", vote(false), 0, 2},
	}
	want := map[string]*bool{}
	for i, st := range steps {
		got, err := s.VoteComment(t.Context(), c.ID, st.voter, st.v)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		want[st.voter] = st.v
		checkCounts(t, s, tbl, c.ID, got, st.help, st.unhelp)
		checkViewerVotes(t, s, c, want)
		log.mu.Lock()
		last := log.changes[len(log.changes)-1]
		log.mu.Unlock()
		if last.Kind != store.ChangeUpdated || last.Comment.HelpfulCount != st.help || last.Comment.UnhelpfulCount != st.unhelp {
			t.Errorf("step %d: last change %s %d/%d, want UPDATED %d/%d", i, last.Kind, last.Comment.HelpfulCount, last.Comment.UnhelpfulCount, st.help, st.unhelp)
		}
	}
	if n := len(log.changes); n != 1+6 {
		t.Errorf("%d changes published, want the create and 6 votes that moved the counts", n)
	}
	title := "edited"
	if _, err := s.UpdateComment(t.Context(), store.CommentUpdate{ID: c.ID, Title: &title}); err != nil {
		t.Fatal(err)
	}
	checkCounts(t, s, tbl, c.ID, nil, 0, 2)
	if st := mustStats(t, s, "votes-one", ""); st.Total != 1 {
		t.Errorf("votes changed the product's stats: %+v", st)
	}
}

// testVoteRefusals: invalid input, missing and unpublished comments.
func testVoteRefusals(t *testing.T, tbl table.Table) {
	s := store.New(tbl)
	c := mustVoted(t, s, "votes-refused")
	ctx := t.Context()
	_, err := s.VoteComment(ctx, "no such id!", "u", vote(true))
	MustErrorCode(t, err, store.EINVALID)
	_, err = s.VoteComment(ctx, c.ID, "", vote(true))
	MustErrorCode(t, err, store.EINVALID)
	_, err = s.VoteComment(ctx, c.ID, strings.Repeat("x", 257), vote(true))
	MustErrorCode(t, err, store.EINVALID)
	_, err = s.VoteComment(ctx, "missing", "u", vote(true))
	MustErrorCode(t, err, store.ENOTFOUND)
	pre := store.New(tbl, store.WithModeration(store.Moderation{Mode: store.ModerationPre}))
	p, err := pre.CreateComment(ctx, store.NewComment{ProductID: "votes-refused", Language: "en", Rating: 2, Author: "a", Title: "t", Body: "b"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = pre.VoteComment(ctx, p.ID, "u", vote(true))
	MustErrorCode(t, err, store.ENOTFOUND)
	for _, pk := range []string{store.VotesPK(p.ID), store.VoterPK("u")} {
		if res := MustQuery(t, tbl, table.Query{HashValue: pk, Forward: true, Limit: 10}); len(res.Items) != 0 {
			t.Errorf("a refused vote wrote %d items in %s", len(res.Items), pk)
		}
	}
}

// testConcurrentVotes runs VoteWriters writers voting, changing and
// withdrawing on one comment at once: each writer has voters of its own
// (their last vote is the writer's last call) and all share a few voters
// (whose last vote is whatever their vote items hold). No call may fail;
// the settled counts equal a recount of the last votes; the product's
// stats do not move.
// tallyVotes counts the helpful and not-helpful votes of votes (a nil vote
// is none).
func tallyVotes(votes map[string]*bool) (help, unhelp int64) {
	for _, v := range votes {
		switch {
		case v == nil:
		case *v:
			help++
		default:
			unhelp++
		}
	}
	return help, unhelp
}

func testConcurrentVotes(t *testing.T, tbl table.Table) {
	s := store.New(tbl)
	const pid, perWriter, own, shared = "votes-hot", 12, 3, 4
	c := mustVoted(t, s, pid)
	before := mustStats(t, s, pid, "")
	last := make([]map[string]*bool, VoteWriters)
	var g errgroup.Group
	for w := range VoteWriters {
		g.Go(func() error {
			rng := rand.New(rand.NewPCG(uint64(w), 29))
			last[w] = map[string]*bool{}
			for range perWriter {
				voter := fmt.Sprintf("w%d-%d", w, rng.IntN(own))
				if rng.IntN(3) == 0 {
					voter = fmt.Sprintf("shared-%d", rng.IntN(shared))
				}
				v := []*bool{vote(true), vote(false), nil}[rng.IntN(3)]
				if _, err := s.VoteComment(context.Background(), c.ID, voter, v); err != nil {
					return fmt.Errorf("writer %d: %w", w, err)
				}
				last[w][voter] = v
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	want := map[string]*bool{}
	for _, m := range last {
		for voter, v := range m {
			if !strings.HasPrefix(voter, "shared-") {
				want[voter] = v
			}
		}
	}
	var ids []store.VoteID
	for i := range shared {
		ids = append(ids, store.VoteID{ProductID: pid, CommentID: c.ID, Voter: fmt.Sprintf("shared-%d", i)})
	}
	votes, err := s.GetVotes(t.Context(), ids)
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		want[id.Voter] = votes[i]
	}
	help, unhelp := tallyVotes(want)
	checkViewerVotes(t, s, c, want)
	checkCounts(t, s, tbl, c.ID, nil, help, unhelp)
	if after := mustStats(t, s, pid, ""); after.Counts != before.Counts || after.Version != before.Version {
		t.Errorf("votes moved the stats: %+v → %+v", before, after)
	}
	shards := MustQuery(t, tbl, table.Query{HashValue: store.VotesPK(c.ID), SortOp: table.SortBeginsWith, SortValue: "#", Forward: true, Limit: 100})
	if len(shards.Items) < 4 || len(shards.Items) > store.VoteShards {
		t.Errorf("the votes went to %d shards, want several, at most %d", len(shards.Items), store.VoteShards)
	}
}

// settleFaults is a Table whose writes of comment items fail while on is
// set: a vote's settle cut short, as by a crash after the vote committed.
type settleFaults struct {
	table.Table
	on atomic.Bool
}

func (f *settleFaults) Write(ctx context.Context, ops []table.Op) error {
	if f.on.Load() && len(ops) == 1 && ops[0].Kind == table.OpUpdate && strings.HasPrefix(ops[0].Key.PK, "COMMENT#") {
		return table.Errorf(table.EUNAVAILABLE, "injected: settle cut short")
	}
	return f.Table.Write(ctx, ops)
}

// testSettleCutShort: a vote whose settle fails still counts (it is no
// error); the next vote settles both, and rebuild-stats settles what no
// vote followed.
func testSettleCutShort(t *testing.T, tbl table.Table) {
	f := &settleFaults{Table: tbl}
	s := store.New(f)
	c := mustVoted(t, s, "votes-cut")
	f.on.Store(true)
	if _, err := s.VoteComment(t.Context(), c.ID, "u1", vote(true)); err != nil {
		t.Fatalf("a vote whose settle failed: %v", err)
	}
	checkCounts(t, s, f, c.ID, nil, 0, 0) // not settled
	checkViewerVotes(t, s, c, map[string]*bool{"u1": vote(true)})
	f.on.Store(false)
	got, err := s.VoteComment(t.Context(), c.ID, "u2", vote(false))
	if err != nil {
		t.Fatal(err)
	}
	checkCounts(t, s, f, c.ID, got, 1, 1)

	f.on.Store(true)
	if _, err := s.VoteComment(t.Context(), c.ID, "u3", vote(true)); err != nil {
		t.Fatal(err)
	}
	f.on.Store(false)
	checkCounts(t, s, f, c.ID, nil, 1, 1)
	if _, err := s.RebuildStats(t.Context(), 2); err != nil {
		t.Fatal(err)
	}
	checkCounts(t, s, f, c.ID, nil, 2, 1)
}

// testViewerVotes reads a viewer's votes as viewerVote does: a page of
// one product by one Query; a page whose range of ids holds more of the
// voter's votes than the page has comments, whose Query stops at its
// limit before reaching the page's oldest comments, by that Query and a
// BatchGet of the comments it did not reach; several products and voters
// at once; at most two items read an id.
func testViewerVotes(t *testing.T, tbl table.Table) {
	s := store.New(tbl)
	const pid, other = "votes-viewer", "votes-viewer-2"
	cs := make([]*store.Comment, 8)
	for i := range cs {
		cs[i] = mustVoted(t, s, pid)
	}
	slices.SortFunc(cs, func(a, b *store.Comment) int { return strings.Compare(a.ID, b.ID) }) // the order of the voter's partition
	o := mustVoted(t, s, other)
	want := map[store.VoteID]*bool{}
	cast := func(voter string, c *store.Comment, v *bool) {
		t.Helper()
		if _, err := s.VoteComment(t.Context(), c.ID, voter, v); err != nil {
			t.Fatal(err)
		}
		want[store.VoteID{ProductID: c.ProductID, CommentID: c.ID, Voter: voter}] = v
	}
	cast("shopper", cs[1], vote(true)) // few votes: the Query holds them all
	cast("shopper", cs[6], vote(false))
	for i, c := range cs { // "fan" voted on every comment of the product
		cast("fan", c, vote(i%3 != 0))
	}
	cast("fan", o, vote(false))
	ask := func(name string, voters []string, comments []*store.Comment, calls int64) {
		t.Helper()
		var ids []store.VoteID
		for _, voter := range voters {
			for _, c := range comments {
				ids = append(ids, store.VoteID{ProductID: c.ProductID, CommentID: c.ID, Voter: voter})
			}
		}
		ctx, u := store.WithUsage(t.Context())
		got, err := s.GetVotes(ctx, ids)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i, id := range ids {
			if voteName(got[i]) != voteName(want[id]) {
				t.Errorf("%s: vote of %s on %s = %s, want %s", name, id.Voter, id.CommentID, voteName(got[i]), voteName(want[id]))
			}
		}
		if u.Requests() != calls || u.ItemsRead() > 2*int64(len(ids)) {
			t.Errorf("%s: %d calls, %d items read for %d votes; want %d calls, at most 2 items a vote", name, u.Requests(), u.ItemsRead(), len(ids), calls)
		}
	}
	page := []*store.Comment{cs[1], cs[4], cs[6]}
	ask("shopper's page", []string{"shopper"}, page, 1)
	ask("fan's page: the Query stops at cs[4], cs[1] by key", []string{"fan"}, page, 2)
	ask("fan's newest comments (a NEWEST page): within the Query", []string{"fan"}, cs[5:], 1)
	ask("fan's oldest comments: within the Query", []string{"fan"}, cs[:3], 1)
	ask("one comment: by key", []string{"fan"}, cs[5:6], 1)
	ask("two voters, two products", []string{"shopper", "fan", "nobody"}, []*store.Comment{cs[6], cs[7], o}, 1+3)
}

// testVotesOfDeleted: deleting a comment deletes its vote shards; its
// vote items, in their voters' partitions, stay inert (a vote on it is
// NOT_FOUND and nothing settles it back) until rebuild-stats deletes them,
// with the shards of a comment deleted under a racing vote (written here
// directly).
func testVotesOfDeleted(t *testing.T, tbl table.Table) {
	s := store.New(tbl)
	c := mustVoted(t, s, "votes-deleted")
	kept := mustVoted(t, s, "votes-deleted")
	voter := func(i int) string { return fmt.Sprint("deleted-u", i) }
	for i := range 3 {
		for _, on := range []*store.Comment{c, kept} {
			if _, err := s.VoteComment(t.Context(), on.ID, voter(i), vote(i%2 == 0)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := s.DeleteComment(t.Context(), c.ID, store.AnyOwner); err != nil {
		t.Fatal(err)
	}
	shards := table.Query{HashValue: store.VotesPK(c.ID), Forward: true, Limit: 100}
	if res := MustQuery(t, tbl, shards); len(res.Items) != 0 {
		t.Errorf("%d vote shards outlive their comment", len(res.Items))
	}
	_, err := s.VoteComment(t.Context(), c.ID, voter(0), vote(true))
	MustErrorCode(t, err, store.ENOTFOUND)
	// An orphan of a vote that raced the delete: a vote and its shard.
	late := store.VoteID{ProductID: c.ProductID, CommentID: c.ID, Voter: "deleted-late"}
	k := store.VoteKey(late)
	MustWrite(t, tbl, table.Op{Kind: table.OpPut, Key: k, Item: table.Item{table.AttrPK: table.S(k.PK), table.AttrSK: table.S(k.SK), "vote": table.N(1)}},
		table.Op{Kind: table.OpUpdate, Key: store.VoteShardKey(c.ID, 3), Add: map[string]int64{table.AttrHelpful: 1, table.AttrVersion: 1}})
	if _, err := s.RebuildStats(t.Context(), 2); err != nil {
		t.Fatal(err)
	}
	if res := MustQuery(t, tbl, shards); len(res.Items) != 0 {
		t.Errorf("rebuild-stats left %d orphan vote shards", len(res.Items))
	}
	for i := range 3 {
		if it := MustGet(t, tbl, store.VoteKey(store.VoteID{ProductID: c.ProductID, CommentID: c.ID, Voter: voter(i)})); it != nil {
			t.Errorf("rebuild-stats left the orphan vote of %s", voter(i))
		}
	}
	if it := MustGet(t, tbl, k); it != nil {
		t.Errorf("rebuild-stats left the orphan vote of the racing voter")
	}
	if it := MustGet(t, tbl, store.CommentKey(c.ID)); it != nil {
		t.Errorf("a settle recreated the deleted comment: %v", it)
	}
	checkViewerVotes(t, s, kept, map[string]*bool{voter(0): vote(true), voter(1): vote(false), voter(2): vote(true)})
	checkCounts(t, s, tbl, kept.ID, nil, 2, 1)
}

// testMostHelpfulAfterBurst: VoteWriters writers vote, each as voters of
// its own, on every comment of a product, changing their minds once;
// after the last vote is acknowledged, a MOST_HELPFUL page is polled until
// it shows the recount's order and counts, and the wait is logged (the
// "settles" time of docs/design.md §13). It runs on tables with the
// helpful indexes (every comment here is voted on, so each has an HSK).
func testMostHelpfulAfterBurst(t *testing.T, tbl table.Table) {
	if _, ok := table.IndexByName(table.IndexHelpfulAll); !ok {
		t.Skip("no helpful indexes")
	}
	s := store.New(tbl)
	const pid, comments, votersPer = "votes-order", 8, 3
	cs := make([]*store.Comment, comments)
	for j := range cs {
		cs[j] = mustVoted(t, s, pid)
	}
	final := voteBurst(t, s, cs, votersPer)
	acked := time.Now()
	want := burstRecount(cs, final, votersPer)
	slices.SortFunc(want, func(a, b *store.Comment) int { return OrderCompare(store.OrderMostHelpful, a, b) })
	// The page's order (its counts are the indexes' projection's, branch
	// replies); the counts are the comments'.
	spell := func(list []*store.Comment) string {
		var b strings.Builder
		for _, c := range list {
			fmt.Fprintf(&b, "%s ", c.ID[len(c.ID)-4:])
		}
		return b.String()
	}

	first := 20
	for polls := 1; ; polls++ {
		conn, err := List(t.Context(), s, pid, store.Filter{}, store.PageArgs{Order: store.OrderMostHelpful, First: &first}, false)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]*store.Comment, len(conn.Edges))
		for i, e := range conn.Edges {
			got[i] = e.Comment
		}
		if spell(got) == spell(want) {
			t.Logf("MOST_HELPFUL showed the burst's final order %v after the last acknowledged vote (%d polls)", time.Since(acked), polls)
			break
		}
		if time.Since(acked) > 10*time.Second {
			t.Fatalf("MOST_HELPFUL page 10 s after the burst:\n got  %s\n want %s", spell(got), spell(want))
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, c := range want {
		checkCounts(t, s, tbl, c.ID, nil, c.HelpfulCount, c.UnhelpfulCount)
	}
}

// voteBurst has VoteWriters writers vote on every comment of cs as
// votersPer voters of their own, each changing its mind once, and returns
// each writer's final votes ([writer][voter*len(cs)+j]).
func voteBurst(t *testing.T, s *store.Store, cs []*store.Comment, votersPer int) [][]*bool {
	comments := len(cs)
	final := make([][]*bool, VoteWriters) // [writer][voter*comments+j]
	var g errgroup.Group
	for w := range VoteWriters {
		g.Go(func() error {
			rng := rand.New(rand.NewPCG(uint64(w), 41))
			final[w] = make([]*bool, votersPer*comments)
			for v := range votersPer {
				voter := fmt.Sprintf("o%d-%d", w, v)
				for j, c := range cs {
					first := vote(rng.IntN(2) == 0)
					// Comment j ends with about j/comments of the voters for it.
					last := []*bool{vote(rng.IntN(comments) < j), nil}[rng.IntN(4)/3]
					for _, b := range []*bool{first, last} {
						if _, err := s.VoteComment(context.Background(), c.ID, voter, b); err != nil {
							return fmt.Errorf("writer %d: %w", w, err)
						}
					}
					final[w][v*comments+j] = last
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	return final
}

// burstRecount is each comment of cs with the counts of the final votes.
func burstRecount(cs []*store.Comment, final [][]*bool, votersPer int) []*store.Comment {
	comments := len(cs)
	want := make([]*store.Comment, comments)
	for j, c := range cs {
		w := *c
		for _, votes := range final {
			for v := range votersPer {
				if b := votes[v*comments+j]; b != nil && *b {
					w.HelpfulCount++
				} else if b != nil {
					w.UnhelpfulCount++
				}
			}
		}
		want[j] = &w
	}
	return want
}
