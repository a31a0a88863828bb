package bolt

import (
	"fmt"
	mrand "math/rand"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/table"
)

const benchComments = 100_000

// benchData returns n comments in creation order, as an import or the seed
// command produces them: ULID ids, 1,000 products, 5 languages, bodies of
// 50 to 450 bytes, a third with helpful votes.
func benchData(n int) []store.Comment {
	rng := mrand.New(mrand.NewSource(1))
	langs := []string{"en", "de", "fr", "pt-BR", "ja"}
	at := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	body := make([]byte, 450)
	for i := range body {
		body[i] = "abcdefghij klmnopqrstuvwxyz."[i%28]
	}
	out := make([]store.Comment, n)
	for i := range out {
		at = at.Add(time.Duration(1+rng.Intn(60_000)) * time.Millisecond)
		out[i] = store.Comment{
			ID:        ulid.MustNew(ulid.Timestamp(at), rng).String(),
			ProductID: fmt.Sprintf("product-%04d", rng.Intn(1000)),
			Language:  langs[rng.Intn(len(langs))],
			Rating:    1 + rng.Intn(5),
			Author:    fmt.Sprintf("author %d", rng.Intn(10_000)),
			Title:     fmt.Sprintf("Title of comment %d", i),
			Body:      string(body[:50+rng.Intn(400)]),
			CreatedAt: at,
		}
	}
	// Helpful votes, from a source of their own (the rest of the data stays
	// as it was): most comments have none, a few many.
	votes := mrand.New(mrand.NewSource(2))
	for i := range out {
		if votes.Intn(3) == 0 {
			out[i].HelpfulCount = int64(votes.ExpFloat64() * 20)
		}
	}
	return out
}

func benchItems(cs []store.Comment) []table.Item {
	items := make([]table.Item, len(cs))
	for i := range cs {
		items[i] = cs[i].Item()
	}
	return items
}

// BenchmarkBatchPut loads 100,000 comments into a new file: in creation
// order (import, seed) and shuffled.
func BenchmarkBatchPut(b *testing.B) {
	ordered := benchItems(benchData(benchComments))
	shuffled := append([]table.Item(nil), ordered...)
	mrand.New(mrand.NewSource(2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	for _, c := range []struct {
		name  string
		items []table.Item
	}{{"ordered", ordered}, {"shuffled", shuffled}} {
		b.Run(c.name, func(b *testing.B) {
			var size int64
			for b.Loop() {
				b.StopTimer()
				path := filepath.Join(b.TempDir(), "bench.db")
				t, err := Open(path)
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if err := t.BatchPut(b.Context(), c.items); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				t.Close()
				if fi, err := os.Stat(path); err == nil {
					size = fi.Size()
				}
				os.Remove(path)
				b.StartTimer()
			}
			b.ReportMetric(float64(len(c.items))*float64(b.N)/b.Elapsed().Seconds(), "items/s")
			b.ReportMetric(float64(size)/(1<<20), "MB")
		})
	}
}

// BenchmarkQuery reads pages of 20 comments, newest first, from a file of
// 100,000: the first page of a product, a page deep in it (behind a sort
// key condition), a page of one language and rating, and first pages from
// parallel readers.
func BenchmarkQuery(b *testing.B) {
	cs := benchData(benchComments)
	t, err := Open(filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer t.Close()
	if err := t.BatchPut(b.Context(), benchItems(cs)); err != nil {
		b.Fatal(err)
	}
	ctx := b.Context()
	// query runs q; every query but that of a deep page finds items.
	query := func(b *testing.B, q table.Query) {
		res, err := t.Query(ctx, q)
		if err != nil || len(res.Items) == 0 && q.SortOp == table.SortNone {
			b.Errorf("%+v: %d items, %v", q, len(res.Items), err)
		}
	}
	pick := func(i int) *store.Comment { return &cs[(i*7919)%len(cs)] }
	b.Run("first-page", func(b *testing.B) {
		i := 0
		for b.Loop() {
			c := pick(i)
			i++
			_, h := store.PartitionKey(c.ProductID, "", 0)
			query(b, table.Query{Index: table.IndexAll, HashValue: h, Limit: 20})
		}
	})
	b.Run("deep-page", func(b *testing.B) {
		i := 0
		for b.Loop() {
			c := pick(i)
			i++
			_, h := store.PartitionKey(c.ProductID, "", 0)
			query(b, table.Query{Index: table.IndexAll, HashValue: h, SortOp: table.SortLess, SortValue: c.SortKey(), Limit: 20})
		}
	})
	b.Run("lang-rating", func(b *testing.B) {
		i := 0
		for b.Loop() {
			c := pick(i)
			i++
			_, h := store.PartitionKey(c.ProductID, c.Language, c.Rating)
			query(b, table.Query{Index: table.IndexByLangAndRating, HashValue: h, Limit: 20})
		}
	})
	b.Run("helpful-page", func(b *testing.B) { // MOST_HELPFUL's first page
		i := 0
		for b.Loop() {
			c := pick(i)
			i++
			_, h := store.PartitionKey(c.ProductID, "", 0)
			query(b, table.Query{Index: table.IndexHelpfulAll, HashValue: h, Limit: 20})
		}
	})
	b.Run("helpful-least", func(b *testing.B) { // the zero tail first, voted comments skipped
		i := 0
		for b.Loop() {
			c := pick(i)
			i++
			_, h := store.PartitionKey(c.ProductID, "", 0)
			query(b, table.Query{Index: table.IndexHelpfulAll, HashValue: h, Forward: true, Limit: 20})
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			i := 0
			for pb.Next() {
				c := pick(i)
				i++
				_, h := store.PartitionKey(c.ProductID, "", 0)
				query(b, table.Query{Index: table.IndexAll, HashValue: h, Limit: 20})
			}
		})
	})
}

// BenchmarkTwinDenseVotes reads a helpful twin (Limit 1) of one partition
// of 20,000 comments in which all but one have a helpful vote: its zero
// tail, the lone unvoted comment, comes from the public index, whose
// entries of voted comments a read skips item by item (twin.go). With the
// unvoted comment first in the read's direction the read stops at it;
// with it last, the read skips every voted comment before it, and a
// descending read every one after it, to know whether more follow
// (docs/design.md, "Sparse twins").
func BenchmarkTwinDenseVotes(b *testing.B) {
	const n = 20_000
	at := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	for _, unvoted := range []string{"oldest", "newest"} {
		t, err := Open(filepath.Join(b.TempDir(), "dense.db"))
		if err != nil {
			b.Fatal(err)
		}
		items := make([]table.Item, n)
		for i := range items {
			c := store.Comment{ID: fmt.Sprintf("c%06d", i), ProductID: "p", Language: "en", Rating: 5,
				Author: "a", Title: "t", Body: "a comment", CreatedAt: at.Add(time.Duration(i) * time.Second), HelpfulCount: 1}
			if unvoted == "oldest" && i == 0 || unvoted == "newest" && i == n-1 {
				c.HelpfulCount = 0
			}
			items[i] = c.Item()
		}
		if err := t.BatchPut(b.Context(), items); err != nil {
			b.Fatal(err)
		}
		// The descending read starts past the least helpful voted comment,
		// as the page after it does: in the zero tail.
		least := items[0]
		if unvoted == "oldest" {
			least = items[1]
		}
		d := table.HelpfulIndexes[0]
		for _, q := range []table.Query{
			{Index: d.Name, HashValue: items[0].S(d.Hash), Limit: 1, Forward: true},
			{Index: d.Name, HashValue: items[0].S(d.Hash), Limit: 1, SortOp: table.SortLess, SortValue: least.S(table.AttrHSK)},
		} {
			dir := "ascending"
			if !q.Forward {
				dir = "descending-zero-tail"
			}
			b.Run(fmt.Sprintf("unvoted=%s/%s", unvoted, dir), func(b *testing.B) {
				for b.Loop() {
					if res, err := t.Query(b.Context(), q); err != nil || res.Len() != 1 {
						b.Fatalf("%d items, %v", res.Len(), err)
					}
				}
			})
		}
		t.Close()
	}
}
