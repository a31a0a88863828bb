package store_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acme/comments-gateway/demo"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/bolt/bolttest"
	"github.com/acme/comments-gateway/store/storetest"
)

// MustDemoStore loads the demo data set into a bolt store for the browsing
// workload (its reads are totalled by the store.Usage of their context).
func MustDemoStore(tb testing.TB) *storetest.Browsing {
	tb.Helper()
	return storetest.LoadBrowsing(tb, bolttest.Open(tb), demo.Default())
}

// BenchmarkBrowsingWorkload reports the read amplification (items read,
// stats items included, per item returned) and the query rounds per page
// of the browsing workload on the demo data set (50 products, 20,000
// comments), per filter and in total: every product × {all languages, its
// most common language} × the rating filters of storetest.WorkloadRatings
// × the first 10 pages of 20; once with clients asking for totalCount on
// every page (the stats item read every time), once without (stats read
// only for merges). "merged-rounds/page" is the mean over the merges' pages
// (filters of two to four ratings).
func BenchmarkBrowsingWorkload(b *testing.B) {
	w := MustDemoStore(b)
	for _, sz := range []struct {
		name   string
		remote bool // merge as on a remote table (nearly dry partitions refilled together)
	}{{"balanced", false}, {"spread", false}, {"lean", false}, {"few-rounds", false}, {"one-round", false},
		{"balanced-remote", true}, {"few-rounds-remote", true}} {
		w.S.SetSizing(store.Sizings[strings.TrimSuffix(sz.name, "-remote")])
		w.S.SetLocal(!sz.remote)
		for _, withTotal := range []bool{true, false} {
			var all, merged storetest.Tally
			for _, byLang := range []bool{false, true} {
				for _, rs := range storetest.WorkloadRatings {
					rname := fmt.Sprint(rs)
					if rs == nil {
						rname = "any"
					}
					name := fmt.Sprintf("sizing=%s/totalCount=%v/lang=%s/ratings=%s", sz.name, withTotal, map[bool]string{false: "all", true: "top"}[byLang], rname)
					b.Run(strings.ReplaceAll(name, " ", ","), func(b *testing.B) {
						var t storetest.Tally
						for b.Loop() {
							t = w.Browse(b, byLang, rs, 10, withTotal)
						}
						all.Add(t)
						if len(rs) > 1 {
							merged.Add(t)
						}
						b.ReportMetric(t.Amplification(), "read/returned")
						b.ReportMetric(t.RoundsPerPage(), "rounds/page")
					})
				}
			}
			b.Run(fmt.Sprintf("sizing=%s/totalCount=%v/total", sz.name, withTotal), func(b *testing.B) {
				for b.Loop() {
				}
				b.ReportMetric(all.Amplification(), "read/returned")
				b.ReportMetric(all.RoundsPerPage(), "rounds/page")
				b.ReportMetric(merged.RoundsPerPage(), "merged-rounds/page")
			})
		}
	}
}

// BenchmarkMergeSizing sweeps the merge sizing (first-read slack and
// spread; refills by share, rounded up or down, or one finishing refill)
// over the browsing workload with totalCount on every page, reporting read
// amplification against query rounds per page (all pages, and the merges'
// pages): the trade-off behind the named sizings (store.Sizings).
func BenchmarkMergeSizing(b *testing.B) {
	w := MustDemoStore(b)
	var sizings []store.Sizing
	for _, lean := range []bool{true, false} {
		for _, slack := range []float64{-1, -0.5, 0, 0.5, 1} {
			sizings = append(sizings, store.Sizing{Slack: slack, LeanRefill: lean})
		}
	}
	for _, spread := range []float64{0, 0.5, 1, 1.5} {
		for _, slack := range []float64{-0.5, 0, 0.5, 1} {
			sizings = append(sizings, store.Sizing{Slack: slack, Spread: spread, Finish: true})
		}
	}
	for _, sz := range sizings {
		b.Run(fmt.Sprintf("slack=%+.1f/lean=%v/spread=%.1f/finish=%v", sz.Slack, sz.LeanRefill, sz.Spread, sz.Finish), func(b *testing.B) {
			w.S.SetSizing(sz)
			var all, merged storetest.Tally
			for b.Loop() {
				all, merged = storetest.Tally{}, storetest.Tally{}
				for _, byLang := range []bool{false, true} {
					for _, rs := range storetest.WorkloadRatings {
						t := w.Browse(b, byLang, rs, 10, true)
						all.Add(t)
						if len(rs) > 1 {
							merged.Add(t)
						}
					}
				}
			}
			b.ReportMetric(all.Amplification(), "read/returned")
			b.ReportMetric(all.RoundsPerPage(), "rounds/page")
			b.ReportMetric(merged.RoundsPerPage(), "merged-rounds/page")
		})
	}
}

// BenchmarkPlanQuery measures the pure planner on a merge.
func BenchmarkPlanQuery(b *testing.B) {
	st := &store.Stats{ProductID: "p", Total: 1000, Counts: [6]int64{0, 110, 70, 120, 250, 450}}
	f := store.Filter{Language: "en", Ratings: []int{1, 3, 5}}
	for b.Loop() {
		store.PlanQuery("p", f, st, 21)
	}
}

// BenchmarkDeepPage measures page 1 and page 500 of a single-partition
// filter (no ratings) and of a 3-rating merged filter on one product with
// 40,000 comments, with the stats read as for totalCount, for each merge
// sizing. The four pages alternate within one loop, so machine noise hits
// them alike, and the ratios of their median latencies are reported:
// page 500 ÷ page 1 for each filter, and merged ÷ single on page 1.
func BenchmarkDeepPage(b *testing.B) {
	tbl := bolttest.Open(b)
	s := store.New(tbl)
	ctx := context.Background()
	cs := loadOneProduct(ctx, b, s)
	pid := cs[0].ProductID
	sts, err := s.GetStats(ctx, []store.StatsID{{ProductID: pid}})
	if err != nil {
		b.Fatal(err)
	}
	st := sts[0]
	size := 20
	page := func(b *testing.B, f store.Filter, after *string) *store.Connection {
		conn, err := s.ListComments(ctx, store.CommentsQuery{ProductID: pid, Filter: f, Page: store.PageArgs{First: &size, After: after}, Total: true},
			func() (*store.Stats, error) { return st, nil })
		if err != nil {
			b.Fatal(err)
		}
		return conn
	}
	single, merged := store.Filter{}, store.Filter{Ratings: []int{1, 3, 5}}
	for _, name := range []string{"lean", "balanced", "few-rounds"} {
		b.Run("sizing="+name, func(b *testing.B) {
			s.SetSizing(store.Sizings[name])
			deep := map[*store.Filter]*string{}
			for _, f := range []*store.Filter{&single, &merged} {
				var cursor *string
				for p := 1; p < 500; p++ {
					conn := page(b, *f, cursor)
					cursor = &conn.Edges[len(conn.Edges)-1].Cursor
				}
				deep[f] = cursor
			}
			var t [4][]time.Duration // single p1, single p500, merged p1, merged p500
			for b.Loop() {
				for i, q := range []struct {
					f     *store.Filter
					after *string
				}{{&single, nil}, {&single, deep[&single]}, {&merged, nil}, {&merged, deep[&merged]}} {
					t0 := time.Now()
					page(b, *q.f, q.after)
					t[i] = append(t[i], time.Since(t0))
				}
			}
			m := func(i int) float64 { return float64(median(t[i])) }
			b.ReportMetric(m(0)/1e3, "single-p1-µs")
			b.ReportMetric(m(2)/1e3, "merged-p1-µs")
			b.ReportMetric(m(1)/m(0), "single-p500/p1")
			b.ReportMetric(m(3)/m(2), "merged-p500/p1")
			b.ReportMetric(m(2)/m(0), "merged/single")
		})
	}
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// TestRemoteMergeSamePages: merging as on a remote table (partitions read
// in parallel, nearly dry ones refilled together) returns the same pages,
// cursors and flags as merging as on a local one, which the conformance
// suite checks against a recount, over the browsing workload's filters.
func TestRemoteMergeSamePages(t *testing.T) {
	w := MustDemoStore(t)
	s := w.S
	ctx := context.Background()
	size := 20
	for _, pid := range w.Products[:10] {
		for _, rs := range storetest.WorkloadRatings {
			for _, lang := range []string{"", w.TopLang[pid]} {
				q := store.CommentsQuery{ProductID: pid, Filter: store.Filter{Language: lang, Ratings: rs}, Total: true}
				stats := func() (*store.Stats, error) {
					sts, err := s.GetStats(ctx, []store.StatsID{{ProductID: pid, Language: lang}})
					if err != nil {
						return nil, err
					}
					return sts[0], nil
				}
				for page := 0; page < 10; page++ {
					q.Page = store.PageArgs{First: &size, After: q.Page.After}
					s.SetLocal(true)
					want, err := s.ListComments(ctx, q, stats)
					if err != nil {
						t.Fatal(err)
					}
					s.SetLocal(false)
					got, err := s.ListComments(ctx, q, stats)
					s.SetLocal(true)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.EqualFunc(got.Edges, want.Edges, func(a, b store.Edge) bool { return a.Cursor == b.Cursor && a.Comment.ID == b.Comment.ID }) ||
						got.HasNextPage != want.HasNextPage || got.TotalCount != want.TotalCount {
						t.Fatalf("%s %v %q page %d: remote merge differs from local", pid, rs, lang, page)
					}
					if !want.HasNextPage {
						break
					}
					q.Page.After = &want.Edges[len(want.Edges)-1].Cursor
				}
			}
		}
	}
}

// loadOneProduct loads into s the 40,000 demo comments of one product
// (seed 7) with their stats, as the deep-page benchmarks read them.
func loadOneProduct(ctx context.Context, b *testing.B, s *store.Store) []*store.Comment {
	cfg := demo.DefaultConfig()
	cfg.Products, cfg.Comments = 1, 40_000
	cs := demo.Generate(demo.NewRand(7), cfg)
	if err := s.PutComments(ctx, cs); err != nil {
		b.Fatal(err)
	}
	if _, err := s.RebuildStats(ctx, 2); err != nil {
		b.Fatal(err)
	}
	return cs
}
