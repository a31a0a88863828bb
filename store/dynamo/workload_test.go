package dynamo

import (
	"testing"

	"github.com/acme/comments-gateway/demo"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/storetest"
)

// BenchmarkBrowsingWorkload runs the browsing workload (storetest.Browse:
// every product × all languages or its most common one × the workload's
// rating filters × the first 10 pages of 20, totalCount on every page) on
// DynamoDB Local under each named merge sizing, and reports what each
// costs on DynamoDB: items read per item returned, the read capacity
// DynamoDB reported per page (ConsumedCapacity, which bills a Query by the
// 4 KB it reads, at least 0.5 unit a call), store calls per page, and the
// query rounds of the merges' pages. 10 products, 4,000 comments.
func BenchmarkBrowsingWorkload(b *testing.B) {
	real := MustClient(b)
	tbl := MustTable(b, real, real)
	cfg := demo.DefaultConfig()
	cfg.Products, cfg.Comments = 10, 4000
	w := storetest.LoadBrowsing(b, tbl, demo.Generate(demo.NewRand(5), cfg))
	for _, name := range []string{"lean", "balanced", "few-rounds", "one-round"} {
		b.Run("sizing="+name, func(b *testing.B) {
			s := store.New(tbl, store.WithSizing(store.Sizings[name]))
			wl := *w
			wl.S = s
			var all, merged storetest.Tally
			for b.Loop() {
				all, merged = storetest.Tally{}, storetest.Tally{}
				for _, byLang := range []bool{false, true} {
					for _, rs := range storetest.WorkloadRatings {
						t := wl.Browse(b, byLang, rs, 10, true)
						all.Add(t)
						if len(rs) > 1 {
							merged.Add(t)
						}
					}
				}
			}
			b.ReportMetric(all.Amplification(), "read/returned")
			b.ReportMetric(all.RCU/float64(all.Pages), "RCU/page")
			b.ReportMetric(merged.RCU/float64(merged.Pages), "merged-RCU/page")
			b.ReportMetric(merged.RoundsPerPage(), "merged-rounds/page")
			b.ReportMetric(float64(all.Calls)/float64(all.Pages), "calls/page")
		})
	}
}

// BenchmarkOrderWorkload runs the browsing workload of
// BenchmarkBrowsingWorkload in each orderBy under the default sizing on
// DynamoDB (one-round), totalCount on every page, and reports items read
// per item returned, read capacity and store calls per page.
func BenchmarkOrderWorkload(b *testing.B) {
	real := MustClient(b)
	tbl := MustTable(b, real, real)
	cfg := demo.DefaultConfig()
	cfg.Products, cfg.Comments = 10, 4000
	w := storetest.LoadBrowsing(b, tbl, demo.Generate(demo.NewRand(5), cfg), store.WithSizing(store.OneRoundSizing))
	for _, o := range storetest.Orders {
		b.Run("order="+o.String(), func(b *testing.B) {
			var all storetest.Tally
			for b.Loop() {
				all = storetest.Tally{}
				for _, byLang := range []bool{false, true} {
					for _, rs := range storetest.WorkloadRatings {
						all.Add(w.BrowseOrder(b, o, byLang, rs, 10, true))
					}
				}
			}
			b.ReportMetric(all.Amplification(), "read/returned")
			b.ReportMetric(all.RCU/float64(all.Pages), "RCU/page")
			b.ReportMetric(float64(all.Calls)/float64(all.Pages), "calls/page")
		})
	}
}
