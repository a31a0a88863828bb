package live_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/acme/comments-gateway/live"
	"github.com/acme/comments-gateway/store"
)

// shardReads is a ChangeLog that counts the reads of each shard.
type shardReads struct {
	live.ChangeLog
	mu    sync.Mutex
	reads map[int]int
}

func (r *shardReads) ReadChanges(ctx context.Context, shard int, after string) ([]store.Change, error) {
	r.mu.Lock()
	r.reads[shard]++
	r.mu.Unlock()
	return r.ChangeLog.ReadChanges(ctx, shard, after)
}

// take returns the shards read since the last take, sorted.
func (r *shardReads) take() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []int
	for n := range r.reads {
		out = append(out, n)
	}
	clear(r.reads)
	slices.Sort(out)
	return out
}

// productsOnShards returns two products whose change log shards differ.
func productsOnShards(shards int) (p, q string) {
	p = "p0"
	for i := 1; ; i++ {
		if q = fmt.Sprint("p", i); store.ChangeShard(q, shards) != store.ChangeShard(p, shards) {
			return p, q
		}
	}
}

// TestFollowerReadsOnlyTheShardsOfItsSubscribers: with subscribers for
// product P only, the follower reads P's change log shard and no other; a
// subscriber for Q arriving later gets Q's changes from its subscription
// on (the change made right after it subscribed included: nothing is
// lost), and the follower then reads both shards.
func TestFollowerReadsOnlyTheShardsOfItsSubscribers(t *testing.T) {
	const shards = 4
	name := mustDynamoTable(t)
	reads := &shardReads{reads: map[int]int{}}
	in := mustInstanceWith(t, name, shards, readerSetup{log: func(l live.ChangeLog) live.ChangeLog { reads.ChangeLog = l; return reads }})
	p, q := productsOnShards(shards)
	ctx := context.Background()
	create := func(pid, title string) *store.Comment {
		t.Helper()
		c, err := in.store.CreateComment(ctx, store.NewComment{ProductID: pid, Language: "en", Rating: 4, Author: "a", Title: title, Body: "b"})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	onP := mustSubscribe(t, in.hub, p, live.TopicAdded, store.Filter{})
	c1 := create(p, "first")
	if got := next(t, onP); got.Comment.ID != c1.ID {
		t.Fatalf("P's subscriber got %s, want %s", got.Comment.ID, c1.ID)
	}
	if got, want := reads.take(), []int{store.ChangeShard(p, shards)}; !slices.Equal(got, want) {
		t.Errorf("with a subscriber for %s only, shards read %v, want %v", p, got, want)
	}

	onQ := mustSubscribe(t, in.hub, q, live.TopicAdded, store.Filter{})
	c2 := create(q, "right after Q subscribed")
	if got := next(t, onQ); got.Comment.ID != c2.ID {
		t.Fatalf("Q's subscriber got %s, want %s", got.Comment.ID, c2.ID)
	}
	c3, c4 := create(p, "p again"), create(q, "q again")
	if got := next(t, onP); got.Comment.ID != c3.ID {
		t.Errorf("P's subscriber got %s, want %s", got.Comment.ID, c3.ID)
	}
	if got := next(t, onQ); got.Comment.ID != c4.ID {
		t.Errorf("Q's subscriber got %s, want %s", got.Comment.ID, c4.ID)
	}
	want := []int{store.ChangeShard(p, shards), store.ChangeShard(q, shards)}
	slices.Sort(want)
	if got := reads.take(); !slices.Equal(got, want) {
		t.Errorf("with subscribers for %s and %s, shards read %v, want %v", p, q, got, want)
	}
	if got := append(drain(onP), drain(onQ)...); len(got) != 0 {
		t.Errorf("events beyond the changes made: %q", describe(got))
	}
}
