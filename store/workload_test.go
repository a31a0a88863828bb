package store_test

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acme/comments-gateway/demo"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/bolt/bolttest"
)

// workloadRatings are the rating filters of the browsing workload.
var workloadRatings = [][]int{nil, {5}, {1, 2}, {1, 3, 5}, {1, 2, 3, 4}, {4, 5}}

// browse runs one slice of the browsing workload: every product × one
// language choice (all languages, or each product's most common one) × one
// rating filter × the first `pages` pages of 20, reading the stats once per
// page when the client asks for totalCount (withTotal) or the plan needs
// them, as the gateway does. It returns items read (stats items included)
// and items returned.
func browse(tb testing.TB, s *store.Store, products []string, topLang map[string]string, byLang bool, rs []int, pages int, withTotal bool) (read, returned, rounds, pagesRead int64) {
	tb.Helper()
	ctx, usage := store.WithUsage(context.Background())
	size := 20
	for _, pid := range products {
		lang := ""
		if byLang {
			lang = topLang[pid]
		}
		f := store.Filter{Language: lang, Ratings: rs}
		var after *string
		for p := 0; p < pages; p++ {
			// The stats are read only when needed, alongside the page's
			// reads, as the resolver has them read.
			conn, err := s.ListComments(ctx, store.CommentsQuery{ProductID: pid, Filter: f, Page: store.PageArgs{First: &size, After: after}, Total: withTotal},
				func() (*store.Stats, error) {
					sts, err := s.GetStats(ctx, []store.StatsID{{ProductID: pid, Language: lang}})
					if err != nil {
						return nil, err
					}
					return sts[0], nil
				})
			if err != nil {
				tb.Fatal(err)
			}
			returned += int64(len(conn.Edges))
			rounds += int64(conn.Trace.Rounds)
			pagesRead++
			if !conn.HasNextPage {
				break
			}
			after = &conn.Edges[len(conn.Edges)-1].Cursor
		}
	}
	return usage.ItemsRead(), returned, rounds, pagesRead
}

// MustDemoStore loads the demo data set into a bolt store (whose reads are
// totalled by the store.Usage of their context) and returns it with the
// products and each product's most common language.
func MustDemoStore(tb testing.TB) (*store.Store, []string, map[string]string) {
	tb.Helper()
	tbl := bolttest.Open(tb)
	s := store.New(tbl)
	ctx := context.Background()
	cs := demo.Default()
	if err := s.PutComments(ctx, cs); err != nil {
		tb.Fatal(err)
	}
	if _, err := s.RebuildStats(ctx, 2); err != nil {
		tb.Fatal(err)
	}
	seen := map[string]bool{}
	var products []string
	for _, c := range cs {
		if !seen[c.ProductID] {
			seen[c.ProductID] = true
			products = append(products, c.ProductID)
		}
	}
	topLang := map[string]string{}
	for _, pid := range products {
		langs, err := s.Languages(ctx, pid, store.MaxLanguages)
		if err != nil {
			tb.Fatal(err)
		}
		top := slices.MaxFunc(langs, func(a, b *store.Stats) int { return cmp.Compare(a.Total, b.Total) })
		topLang[pid] = top.Language
	}
	return s, products, topLang
}

// BenchmarkBrowsingWorkload reports the read amplification (items read,
// stats items included, per item returned) of the browsing workload on the
// demo data set (50 products, 20,000 comments), per filter and in total:
// every product × {all languages, its most common language} × the rating
// filters of workloadRatings × the first 10 pages of 20; once with clients
// asking for totalCount on every page (the stats item read every time),
// once without (stats read only for merges).
func BenchmarkBrowsingWorkload(b *testing.B) {
	s, products, topLang := MustDemoStore(b)
	for _, sz := range []struct {
		name   string
		sz     store.Sizing
		remote bool // merge as on a remote table (nearly dry partitions refilled together)
	}{{"balanced", store.BalancedSizing, false}, {"lean", store.LeanSizing, false}, {"few-rounds", store.FewRoundsSizing, false},
		{"balanced-remote", store.BalancedSizing, true}, {"few-rounds-remote", store.FewRoundsSizing, true}} {
		s.SetSizing(sz.sz)
		s.SetLocal(!sz.remote)
		for _, withTotal := range []bool{true, false} {
			var allRead, allReturned, allRounds, allPages int64
			for _, byLang := range []bool{false, true} {
				for _, rs := range workloadRatings {
					rname := fmt.Sprint(rs)
					if rs == nil {
						rname = "any"
					}
					name := fmt.Sprintf("sizing=%s/totalCount=%v/lang=%s/ratings=%s", sz.name, withTotal, map[bool]string{false: "all", true: "top"}[byLang], rname)
					b.Run(strings.ReplaceAll(name, " ", ","), func(b *testing.B) {
						var read, returned, rounds, pages int64
						for b.Loop() {
							read, returned, rounds, pages = browse(b, s, products, topLang, byLang, rs, 10, withTotal)
						}
						allRead += read
						allReturned += returned
						allRounds += rounds
						allPages += pages
						b.ReportMetric(float64(read)/float64(returned), "read/returned")
						b.ReportMetric(float64(rounds)/float64(pages), "rounds/page")
					})
				}
			}
			b.Run(fmt.Sprintf("sizing=%s/totalCount=%v/total", sz.name, withTotal), func(b *testing.B) {
				for b.Loop() {
				}
				b.ReportMetric(float64(allRead)/float64(allReturned), "read/returned")
				b.ReportMetric(float64(allRounds)/float64(allPages), "rounds/page")
			})
		}
	}
}

// BenchmarkMergeSizing sweeps the merge sizing (first-read slack, refills
// rounded up or down) over the browsing workload with totalCount on every
// page, reporting read amplification against query rounds per page: the
// trade-off behind the named sizings (store.Sizings).
func BenchmarkMergeSizing(b *testing.B) {
	s, products, topLang := MustDemoStore(b)
	for _, lean := range []bool{true, false} {
		for _, slack := range []float64{-1, -0.5, 0, 0.5, 1} {
			sz := store.Sizing{Slack: slack, LeanRefill: lean}
			b.Run(fmt.Sprintf("slack=%+.1f/lean=%v", slack, lean), func(b *testing.B) {
				s.SetSizing(sz)
				var read, returned, rounds, pages int64
				for b.Loop() {
					read, returned, rounds, pages = 0, 0, 0, 0
					for _, byLang := range []bool{false, true} {
						for _, rs := range workloadRatings {
							r1, r2, r3, r4 := browse(b, s, products, topLang, byLang, rs, 10, true)
							read, returned, rounds, pages = read+r1, returned+r2, rounds+r3, pages+r4
						}
					}
				}
				b.ReportMetric(float64(read)/float64(returned), "read/returned")
				b.ReportMetric(float64(rounds)/float64(pages), "rounds/page")
			})
		}
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
	cfg := demo.DefaultConfig()
	cfg.Products, cfg.Comments = 1, 40_000
	cs := demo.Generate(demo.NewRand(7), cfg)
	if err := s.PutComments(ctx, cs); err != nil {
		b.Fatal(err)
	}
	if _, err := s.RebuildStats(ctx, 2); err != nil {
		b.Fatal(err)
	}
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
	s, products, topLang := MustDemoStore(t)
	ctx := context.Background()
	size := 20
	for _, pid := range products[:10] {
		for _, rs := range workloadRatings {
			for _, lang := range []string{"", topLang[pid]} {
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
