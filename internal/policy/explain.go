package policy

import (
	"context"
	"net/http"
	"sync"

	"github.com/acme/comments-gateway/auth"
	"github.com/acme/comments-gateway/internal/gqlhttp"
	"github.com/acme/comments-gateway/store"
)

// WantsExplain reports whether a request asks for EXPLAIN (X-Explain: 1).
func WantsExplain(r *http.Request) bool {
	return r.Header.Get("X-Explain") == "1"
}

// GuardExplain refuses a request for EXPLAIN unless open (resolvers.Config.OpenExplain)
// or made with an API key or a moderator's token: a plan names the table's
// keys and indexes. Without a valid credential it is 401 UNAUTHENTICATED,
// with another user's token 403 FORBIDDEN; the rate limit charges it as a
// refusal.
func GuardExplain(open bool) gqlhttp.Middleware {
	if open {
		return nil
	}
	return explainGuard
}

// explainGuard is GuardExplain's handler around next.
func explainGuard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !WantsExplain(r) {
			next.ServeHTTP(w, r)
			return
		}
		const how = "X-Explain: 1 needs an API key or a moderator's token (or the server's -open-explain); send the request without it"
		switch p, err := auth.FromContext(r.Context()); {
		case p.MayChangeAny():
			next.ServeHTTP(w, r)
		case p == nil || err != nil:
			gqlhttp.WriteError(w, http.StatusUnauthorized, CodeUnauthenticated, how)
		default:
			gqlhttp.WriteError(w, http.StatusForbidden, CodeForbidden, how)
		}
	})
}

// PlanEntry is the EXPLAIN of one comments field: how it was read.
type PlanEntry struct {
	Product  string           `json:"product"`
	Order    string           `json:"order"` // the orderBy value, e.g. "NEWEST"
	Language *string          `json:"language"`
	Ratings  []int            `json:"ratings"`
	Strategy string           `json:"strategy"`
	Skipped  []int            `json:"skippedRatings"`
	Parts    []PartitionEntry `json:"partitions"`
	// Stats is the read of the stats (product, language) this entry
	// counts; nil when the page did not need the stats, or when another
	// entry of the request counts the same read (the request reads each
	// stats once).
	Stats *StatsEntry `json:"stats"`
	// ItemsRead and Calls total the partitions' and the stats read's.
	ItemsRead int    `json:"itemsRead"`
	Calls     int    `json:"calls"`
	Rounds    int    `json:"rounds"` // query rounds, one after another
	Returned  int    `json:"itemsReturned"`
	Total     *int64 `json:"totalCount"` // null when the stats were not read
	// Positioned: the page knew how many comments remain after its start
	// (first page: from the stats; later pages: from the after cursor).
	Positioned bool `json:"positioned"`
	// KnownMore: those counts were exact and showed more follow, so no
	// item past the page was read.
	KnownMore bool `json:"hasNextPageFromCounts"`
}

// PartitionEntry is one partition of a PlanEntry.
type PartitionEntry struct {
	Index     string `json:"index"`
	Key       string `json:"key"`
	Rating    int    `json:"rating,omitempty"`
	Limits    []int  `json:"limits"`
	ItemsRead int    `json:"itemsRead"`
	Calls     int    `json:"calls"`
}

// StatsEntry is the stats read of a PlanEntry: the Table calls made for
// it and the items they returned (see store.StatsRead).
type StatsEntry struct {
	ItemsRead int `json:"itemsRead"`
	Calls     int `json:"calls"`
}

// explain collects the plans of one request.
type explain struct {
	mu      sync.Mutex
	entries []PlanEntry
	stats   map[store.StatsID]*store.StatsRead // read, not yet counted by an entry
}

type explainKey struct{}

// plan returns the plans collected so far (extensions.plan).
func (e *explain) plan() []PlanEntry {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.entries
}

// WithExplain returns a context that collects the plans of the request.
func WithExplain(ctx context.Context) context.Context {
	return context.WithValue(ctx, explainKey{}, &explain{entries: []PlanEntry{}})
}

// ExplainPlan returns the plans the request of ctx collected so far
// (extensions.plan), and whether it asked for EXPLAIN (WithExplain).
func ExplainPlan(ctx context.Context) ([]PlanEntry, bool) {
	e, _ := ctx.Value(explainKey{}).(*explain)
	if e == nil {
		return nil, false
	}
	return e.plan(), true
}

// RecordStatsReads keeps what reading the stats of ids took (aligned with
// ids) for the request's EXPLAIN, if the request asked for one.
func RecordStatsReads(ctx context.Context, ids []store.StatsID, reads []store.StatsRead) {
	e, _ := ctx.Value(explainKey{}).(*explain)
	if e == nil || len(reads) != len(ids) {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.stats == nil {
		e.stats = make(map[store.StatsID]*store.StatsRead, len(ids))
	}
	for i, id := range ids {
		e.stats[id] = &reads[i]
	}
}

// RecordPlan adds a comments field's trace to the request's EXPLAIN, if the
// request asked for one, with the read of its stats (product pid, language
// f.Language) when the page had them and no entry counts that read yet.
func RecordPlan(ctx context.Context, pid string, f store.Filter, tr *store.Trace) {
	e, _ := ctx.Value(explainKey{}).(*explain)
	if e == nil || tr == nil {
		return
	}
	pe := PlanEntry{
		Product: pid, Order: tr.Plan.Order.String(), Ratings: f.Ratings, Strategy: string(tr.Plan.Strategy),
		Skipped: tr.Plan.Skipped, ItemsRead: tr.ItemsRead, Calls: tr.Calls, Rounds: tr.Rounds,
		Returned: tr.Returned, Parts: []PartitionEntry{}, Positioned: tr.Positioned, KnownMore: tr.KnownMore,
	}
	if t := tr.Plan.Total; t >= 0 {
		pe.Total = &t
	}
	if pe.Skipped == nil {
		pe.Skipped = []int{}
	}
	if f.Language != "" {
		l := f.Language
		pe.Language = &l
	}
	for i, p := range tr.Plan.Partitions {
		pe.Parts = append(pe.Parts, PartitionEntry{
			Index: p.Index, Key: p.Key, Rating: p.Rating, Limits: tr.Reads[i].Limits,
			ItemsRead: tr.Reads[i].Items, Calls: tr.Reads[i].Calls,
		})
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	id := store.StatsID{ProductID: pid, Language: f.Language}
	if r := e.stats[id]; r != nil && pe.Total != nil {
		delete(e.stats, id)
		pe.Stats = &StatsEntry{ItemsRead: r.Items, Calls: r.Calls}
		pe.ItemsRead += r.Items
		pe.Calls += r.Calls
	}
	e.entries = append(e.entries, pe)
}
