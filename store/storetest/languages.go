package storetest

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/table"
)

// readCounter is a Table that counts the items its reads return.
type readCounter struct {
	table.Table
	items atomic.Int64
}

func (r *readCounter) Query(ctx context.Context, q table.Query) (table.QueryResult, error) {
	res, err := r.Table.Query(ctx, q)
	r.items.Add(int64(res.Len()))
	return res, err
}

func (r *readCounter) BatchGet(ctx context.Context, keys []table.Key) ([]table.Item, error) {
	items, err := r.Table.BatchGet(ctx, keys)
	for _, it := range items {
		if it != nil {
			r.items.Add(1)
		}
	}
	return items, err
}

// testLanguagesOverShards: a product's languages, whose tags share
// prefixes ("en", "en-GB", "en-US") and whose counts are spread over
// several counter shards by many writes, come back in tag order, the first
// n of them for every n, equal to a recount of the comments written; a
// language whose comments were all deleted is left out. Languages(n) reads
// at most StatsShards items per language it covers, and after
// rebuild-stats (one shard per language) at most n.
func testLanguagesOverShards(t *testing.T, tbl table.Table) {
	rc := &readCounter{Table: tbl}
	l := &taggedLanguages{rc: rc, s: store.New(rc), pid: "tags"}
	perLang := map[string]int{"en": 24, "en-GB": 3, "en-US": 17, "de": 1, "de-AT": 5, "de-CH": 9, "es": 2, "es-419": 14, "pt-BR": 6, "zh-Hant": 4}
	l.write(t, perLang)
	for _, c := range l.live["de-AT"] { // its stats items stay, with zero counts
		if err := l.s.DeleteComment(context.Background(), c.ID, store.AnyOwner); err != nil {
			t.Fatal(err)
		}
	}
	l.live["de-AT"] = nil
	l.tags = make([]string, 0, len(perLang))
	for lang := range perLang {
		l.tags = append(l.tags, lang)
	}
	slices.Sort(l.tags) // byte order: "de" < "de-AT" < … < "en" < "en-GB"
	l.check(t, "sharded", store.StatsShards)
	if _, err := l.s.RebuildStats(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	l.check(t, "rebuilt", 1)
}

// taggedLanguages is the state of testLanguagesOverShards: the store on a
// table that counts its reads, the product, its language tags in byte
// order, and its live comments by language.
type taggedLanguages struct {
	rc   *readCounter
	s    *store.Store
	pid  string
	tags []string
	live map[string][]*store.Comment
}

// write creates perLang[lang] comments of every language, of all ratings.
func (l *taggedLanguages) write(t *testing.T, perLang map[string]int) {
	l.live = map[string][]*store.Comment{}
	for lang, n := range perLang {
		for i := range n {
			c, err := l.s.CreateComment(context.Background(), store.NewComment{ProductID: l.pid, Language: lang, Rating: 1 + i%5, Author: "a", Title: "t", Body: "b"})
			if err != nil {
				t.Fatal(err)
			}
			l.live[lang] = append(l.live[lang], c)
		}
	}
}

// check compares Languages(n), for every n, with the recount of the first
// n tags, and bounds the items it reads by perLanguage per tag covered.
func (l *taggedLanguages) check(t *testing.T, phase string, perLanguage int) {
	t.Helper()
	for n := 0; n <= len(l.tags)+1; n++ {
		l.rc.items.Store(0)
		got, err := l.s.Languages(context.Background(), l.pid, n)
		if err != nil {
			t.Fatalf("%s: Languages(%d): %v", phase, n, err)
		}
		if read, most := l.rc.items.Load(), int64(perLanguage*min(n, len(l.tags))); read > most {
			t.Errorf("%s: Languages(%d) read %d items, more than %d", phase, n, read, most)
		}
		want := l.recount(l.tags[:min(n, len(l.tags))])
		var have []string
		for _, st := range got {
			have = append(have, fmt.Sprintf("%s:%d:%v", st.Language, st.Total, st.Counts))
		}
		if !slices.Equal(have, want) {
			t.Errorf("%s: Languages(%d) = %v, want %v", phase, n, have, want)
		}
	}
}

// recount returns the languages of tags that have live comments, each as
// "tag:total:counts".
func (l *taggedLanguages) recount(tags []string) []string {
	var want []string
	for _, lang := range tags {
		cs := l.live[lang]
		if len(cs) == 0 {
			continue
		}
		var counts [store.MaxRating + 1]int64
		for _, c := range cs {
			counts[c.Rating]++
		}
		want = append(want, fmt.Sprintf("%s:%d:%v", lang, len(cs), counts))
	}
	return want
}
