package store_test

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/bolt/bolttest"
)

// BenchmarkServedPages reads the pages of the PostGraphile side by side
// (docs/BENCHMARKS.md, headline) from the embedded store as serve sizes
// it, without totalCount: filtered page 1 (the product's most common
// language, ratings 2, 3, 5), unfiltered page 1, the filtered page 10,000
// comments deep, and a walk of the first 600 filtered pages by their
// cursors (one page an iteration). One product of 40,000 demo comments.
// Reported per page: items read, store calls, query rounds and the
// process's CPU time (cpu-ns/op: steadier than wall time on a shared box).
func BenchmarkServedPages(b *testing.B) {
	ctx := context.Background()
	s := store.New(bolttest.Open(b), store.WithSizing(store.SpreadSizing))
	cs := loadOneProduct(ctx, b, s)
	langs := map[string]int{}
	for _, c := range cs {
		langs[c.Language]++
	}
	lang := cs[0].Language
	for l, n := range langs {
		if n > langs[lang] {
			lang = l
		}
	}
	pid := cs[0].ProductID
	filtered := store.Filter{Language: lang, Ratings: []int{2, 3, 5}}
	page := func(b *testing.B, f store.Filter, after *string) *store.Connection {
		stats := func() (*store.Stats, error) {
			sts, err := s.GetStats(ctx, []store.StatsID{{ProductID: pid, Language: f.Language}})
			if err != nil {
				return nil, err
			}
			return sts[0], nil
		}
		conn, err := s.ListComments(ctx, store.CommentsQuery{ProductID: pid, Filter: f, Page: store.PageArgs{After: after}}, stats)
		if err != nil {
			b.Fatal(err)
		}
		return conn
	}
	// The walk's cursors, as the side by side records them.
	var cursors []*string
	for cur := (*string)(nil); len(cursors) < 600; {
		cursors = append(cursors, cur)
		conn := page(b, filtered, cur)
		if !conn.HasNextPage {
			break
		}
		cur = &conn.Edges[len(conn.Edges)-1].Cursor
	}
	if len(cursors) <= 500 {
		b.Fatalf("%d filtered pages, want 501", len(cursors))
	}
	scenarios := []struct {
		name    string
		f       store.Filter
		cursors []*string
	}{
		{"filtered-page1", filtered, cursors[:1]},
		{"unfiltered-page1", store.Filter{}, []*string{nil}},
		{"deep-10000", filtered, cursors[500:501]},
		{"walk-600", filtered, cursors},
	}
	for _, sc := range scenarios {
		b.Run(sc.name, func(b *testing.B) {
			var items, calls, rounds int
			i := 0
			cpu0 := processCPU(b)
			for b.Loop() {
				tr := page(b, sc.f, sc.cursors[i%len(sc.cursors)]).Trace
				items, calls, rounds = items+tr.ItemsRead, calls+tr.Calls, rounds+tr.Rounds
				i++
			}
			b.ReportMetric(float64(processCPU(b)-cpu0)/float64(i), "cpu-ns/op")
			b.ReportMetric(float64(items)/float64(i), "items/page")
			b.ReportMetric(float64(calls)/float64(i), "calls/page")
			b.ReportMetric(float64(rounds)/float64(i), "rounds/page")
		})
	}
}

// processCPU is the CPU time (user and system) the process has used.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
