package storetest

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/acme/comments-gateway/store"
)

// readCounter is a Table that counts the items its reads return.
type readCounter struct {
	store.Table
	items atomic.Int64
}

func (r *readCounter) Query(ctx context.Context, q store.Query) (store.QueryResult, error) {
	res, err := r.Table.Query(ctx, q)
	r.items.Add(int64(len(res.Items)))
	return res, err
}

func (r *readCounter) BatchGet(ctx context.Context, keys []store.Key) ([]store.Item, error) {
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
func testLanguagesOverShards(t *testing.T, tbl store.Table) {
	rc := &readCounter{Table: tbl}
	s := store.New(rc)
	ctx := context.Background()
	const pid = "tags"
	perLang := map[string]int{"en": 24, "en-GB": 3, "en-US": 17, "de": 1, "de-AT": 5, "de-CH": 9, "es": 2, "es-419": 14, "pt-BR": 6, "zh-Hant": 4}
	live := map[string][]*store.Comment{}
	for lang, n := range perLang {
		for i := range n {
			c, err := s.CreateComment(ctx, store.NewComment{ProductID: pid, Language: lang, Rating: 1 + i%5, Author: "a", Title: "t", Body: "b"})
			if err != nil {
				t.Fatal(err)
			}
			live[lang] = append(live[lang], c)
		}
	}
	for _, c := range live["de-AT"] { // its stats items stay, with zero counts
		if err := s.DeleteComment(ctx, c.ID, store.AnyOwner); err != nil {
			t.Fatal(err)
		}
	}
	live["de-AT"] = nil
	tags := make([]string, 0, len(perLang))
	for lang := range perLang {
		tags = append(tags, lang)
	}
	slices.Sort(tags) // byte order: "de" < "de-AT" < … < "en" < "en-GB"
	check := func(phase string, perLanguage int) {
		t.Helper()
		for n := 0; n <= len(tags)+1; n++ {
			rc.items.Store(0)
			got, err := s.Languages(ctx, pid, n)
			if err != nil {
				t.Fatalf("%s: Languages(%d): %v", phase, n, err)
			}
			if read, most := rc.items.Load(), int64(perLanguage*min(n, len(tags))); read > most {
				t.Errorf("%s: Languages(%d) read %d items, more than %d", phase, n, read, most)
			}
			var want []string
			for _, lang := range tags[:min(n, len(tags))] {
				cs := live[lang]
				if len(cs) == 0 {
					continue
				}
				var counts [store.MaxRating + 1]int64
				for _, c := range cs {
					counts[c.Rating]++
				}
				want = append(want, fmt.Sprintf("%s:%d:%v", lang, len(cs), counts))
			}
			var have []string
			for _, st := range got {
				have = append(have, fmt.Sprintf("%s:%d:%v", st.Language, st.Total, st.Counts))
			}
			if !slices.Equal(have, want) {
				t.Errorf("%s: Languages(%d) = %v, want %v", phase, n, have, want)
			}
		}
	}
	check("sharded", store.StatsShards)
	if _, err := s.RebuildStats(ctx, 2); err != nil {
		t.Fatal(err)
	}
	check("rebuilt", 1)
}
