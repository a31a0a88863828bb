package store_test

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/bolt/bolttest"
	"github.com/acme/comments-gateway/store/table"
)

// remoteTable hides the bolt table's Local, so that the store reads it as
// it reads DynamoDB.
type remoteTable struct{ table.Table }

// TestGetStatsByQueryMatchesByKey: the stats of several ids at once, of
// all languages and of one, of products with every shard written and with
// none, read by Query (a remote table) equal those read by key (the local
// table), aligned with the ids, also for a language whose tag extends
// another's ("en" and "en-GB") and one without comments.
func TestGetStatsByQueryMatchesByKey(t *testing.T) {
	tbl := bolttest.Open(t)
	ctx := context.Background()
	local, remote := store.New(tbl), store.New(remoteTable{tbl})
	for i := range 60 {
		lang := []string{"en", "en-GB", "de"}[i%3]
		_, err := local.CreateComment(ctx, store.NewComment{ProductID: "p1", Language: lang, Rating: 1 + i%5, Author: "a", Title: "t", Body: fmt.Sprint(i)})
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := local.CreateComment(ctx, store.NewComment{ProductID: "p2", Language: "en", Rating: 4, Author: "a", Title: "t", Body: "b"}); err != nil {
		t.Fatal(err)
	}
	ids := []store.StatsID{{ProductID: "p1"}, {ProductID: "p2", Language: "en"}, {ProductID: "p1", Language: "en"},
		{ProductID: "p2"}, {ProductID: "p1", Language: "en-GB"}, {ProductID: "p3"}, {ProductID: "p1", Language: "fr"}}
	want, err := local.GetStats(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	got, err := remote.GetStats(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("%+v: by Query %+v, by key %+v", id, got[i], want[i])
		}
	}
	if want[0].Total != 60 || want[2].Total != 20 || want[3].Total != 1 {
		t.Errorf("totals %d, %d, %d; want 60, 20, 1", want[0].Total, want[2].Total, want[3].Total)
	}
}

// TestReadStatsReadsSumToUsage: what ReadStats says each id's read took
// adds up to the calls and items the backend accounted, by key (local)
// and by Query (remote), for ids of one language and of all.
func TestReadStatsReadsSumToUsage(t *testing.T) {
	tbl := bolttest.Open(t)
	local := store.New(tbl)
	for i := range 20 {
		_, err := local.CreateComment(context.Background(), store.NewComment{ProductID: "p1", Language: []string{"en", "de"}[i%2], Rating: 1 + i%5, Author: "a", Title: "t", Body: fmt.Sprint(i)})
		if err != nil {
			t.Fatal(err)
		}
	}
	ids := []store.StatsID{{ProductID: "p1"}, {ProductID: "p1", Language: "en"}, {ProductID: "p2"}, {ProductID: "p1", Language: "de"}}
	// By key one BatchGet; by Query one Query an id and one BatchGet of
	// the all-language ids' shards 0.
	wantCalls := map[string]int64{"by key": 1, "by Query": int64(len(ids)) + 1}
	for name, s := range map[string]*store.Store{"by key": local, "by Query": store.New(remoteTable{tbl})} {
		ctx, u := store.WithUsage(context.Background())
		_, reads, err := s.ReadStats(ctx, ids)
		if err != nil {
			t.Fatal(err)
		}
		calls, items := 0, 0
		for _, r := range reads {
			calls += r.Calls
			items += r.Items
		}
		if len(reads) != len(ids) || int64(calls) != u.Requests() || int64(items) != u.ItemsRead() || u.Requests() != wantCalls[name] || items == 0 {
			t.Errorf("%s: reads %+v total %d calls, %d items; the backend accounted %d, %d (want %d calls)", name, reads, calls, items, u.Requests(), u.ItemsRead(), wantCalls[name])
		}
	}
}

// TestReadStatsCurrentUntilAWrite: on the embedded store, stats read again
// with no write since are answered without a read (no call, no item) and
// equal a fresh read; after a write they are read again and count it. The
// counts are recounted from what the test wrote.
func TestReadStatsCurrentUntilAWrite(t *testing.T) {
	tbl := bolttest.Open(t)
	s := store.New(tbl)
	ctx := context.Background()
	var want [6]int64 // of p1 in en
	create := func(i int) {
		t.Helper()
		in := store.NewComment{ProductID: "p1", Language: "en", Rating: 1 + i%5, Author: "a", Title: "t", Body: fmt.Sprint(i)}
		if _, err := s.CreateComment(ctx, in); err != nil {
			t.Fatal(err)
		}
		want[in.Rating]++
	}
	ids := []store.StatsID{{ProductID: "p1", Language: "en"}, {ProductID: "p2"}}
	read := func(step string, wantRead bool) *store.Stats {
		t.Helper()
		got, reads, err := s.ReadStats(ctx, ids)
		if err != nil {
			t.Fatal(err)
		}
		fresh, _, err := store.New(remoteTable{tbl}).ReadStats(ctx, ids)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, fresh) {
			t.Errorf("%s: %+v, %+v; a fresh read %+v, %+v", step, got[0], got[1], fresh[0], fresh[1])
		}
		if read := reads[0].Calls+reads[1].Calls > 0; read != wantRead {
			t.Errorf("%s: reads %+v, want a read: %v", step, reads, wantRead)
		}
		if got[0].Counts != want {
			t.Errorf("%s: counts %v, want %v", step, got[0].Counts, want)
		}
		return got[0]
	}
	for i := range 10 {
		create(i)
	}
	read("first read", true)
	read("read again", false)
	create(10)
	read("after a write", true)
	read("read again after it", false)
}

// TestReadStatsSeesEveryReturnedWrite: stats read beside concurrent writers
// count every write that had returned before the read began, whether they
// were read or answered as last read.
func TestReadStatsSeesEveryReturnedWrite(t *testing.T) {
	s := store.New(bolttest.Open(t))
	ctx := context.Background()
	var returned atomic.Int64
	var writers, readers sync.WaitGroup
	for w := range 2 {
		writers.Go(func() {
			for i := range 40 {
				in := store.NewComment{ProductID: "p1", Language: "en", Rating: 1 + i%5, Author: "a", Title: "t", Body: fmt.Sprint(w, i)}
				if _, err := s.CreateComment(ctx, in); err != nil {
					t.Error(err)
					return
				}
				returned.Add(1)
			}
		})
	}
	done := make(chan struct{})
	var answered atomic.Int64
	for range 2 {
		readers.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				n := returned.Load()
				st, reads, err := s.ReadStats(ctx, []store.StatsID{{ProductID: "p1", Language: "en"}})
				if err != nil {
					t.Error(err)
					return
				}
				if st[0].Total < n {
					t.Errorf("stats count %d comments after %d writes returned", st[0].Total, n)
					return
				}
				if reads[0].Calls == 0 {
					answered.Add(1)
				}
			}
		})
	}
	writers.Wait()
	close(done)
	readers.Wait()
	t.Logf("%d reads answered as last read", answered.Load())
}
