package resolvers_test

import (
	"testing"

	"github.com/acme/comments-gateway/internal/gqlhttp"
)

// TestErrorsCountByCode: each error a reply carries counts once in
// comments_graphql_errors_total under its extensions.code, and the codes
// no reply carried yet are exported at zero.
func TestErrorsCountByCode(t *testing.T) {
	e := MustCacheEnv(t, gqlhttp.MicroCacheConfig{})
	r := e.MustGet(t, `{ nosuch othernosuch }`)
	if len(r.Errors) != 2 {
		t.Fatalf("want 2 errors for two unknown fields, got %s", r.Body)
	}
	want := map[string]float64{"GRAPHQL_VALIDATION_FAILED": 2, "INTERNAL": 0, "THROTTLED": 0}
	got := map[string]float64{}
	mfs, err := e.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "comments_graphql_errors_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			got[m.GetLabel()[0].GetValue()] = m.GetCounter().GetValue()
		}
	}
	for code, n := range want {
		if v, ok := got[code]; !ok || v != n {
			t.Errorf("comments_graphql_errors_total{code=%q} = %v (exported %v), want %v", code, v, ok, n)
		}
	}
}
