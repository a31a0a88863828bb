package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/bolt"
	"github.com/acme/comments-gateway/store/dynamo/dynamotest"
	"github.com/acme/comments-gateway/store/table"
)

// exported is one line of an export, as the test reads it.
type exported struct {
	ID, ProductID, Language string
	Rating                  int
	Author, Title, Body     string
	CreatedAt               string
	AuthorID                string
}

// mustReadExport parses an export file line by line.
func mustReadExport(t *testing.T, path string) []exported {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []exported
	for i, line := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
		var e exported
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			t.Fatalf("%s line %d: %v: %s", path, i+1, err, line)
		}
		out = append(out, e)
	}
	return out
}

// checkExportMatches compares an export with the records it must hold, in
// the order given: every field, times as instants.
func checkExportMatches(t *testing.T, got []exported, want []*rec) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("export has %d comments, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		at, err := time.Parse(time.RFC3339Nano, g.CreatedAt)
		if err != nil || !at.Equal(w.CreatedAt) || !strings.HasSuffix(g.CreatedAt, "Z") ||
			g.ID != w.ID || g.ProductID != w.Product || g.Language != w.Lang || g.Rating != w.Rating ||
			g.Author != w.Author || g.Title != w.Title || g.Body != w.Body || g.AuthorID != "" {
			t.Fatalf("export line %d = %+v, want %+v", i+1, g, *w)
		}
	}
}

// TestExportRoundTrip: import → export → import into a fresh store →
// export gives the same bytes, on bolt and on DynamoDB, for the whole store
// and for one product; and the export holds exactly the imported comments
// (a recount of the generated data).
func TestExportRoundTrip(t *testing.T) {
	recs := generateE2EData()
	in := writeJSONL(t, recs)
	dir := t.TempDir()
	stores := map[string]func(name string) string{
		"bolt": func(name string) string { return "bolt:" + filepath.Join(dir, name+".db") },
		"dynamodb": func(name string) string {
			dynamotest.Endpoint(t)
			table := fmt.Sprintf("export-%s-%d", name, time.Now().UnixNano())
			MustRun(t, "create-table", "-stream=false", "-store", "dynamodb:"+table)
			return "dynamodb:" + table
		},
	}
	for kind, newStore := range stores {
		t.Run(kind, func(t *testing.T) {
			a, b := newStore("a"), newStore("b")
			out1, out2 := filepath.Join(dir, kind+"-1.jsonl"), filepath.Join(dir, kind+"-2.jsonl")
			MustRun(t, "import", "-store", a, in)
			MustRun(t, "export", "-store", a, out1)
			MustRun(t, "import", "-store", b, out1)
			MustRun(t, "export", "-store", b, out2)
			b1, _ := os.ReadFile(out1)
			b2, _ := os.ReadFile(out2)
			if !bytes.Equal(b1, b2) || len(b1) == 0 {
				t.Errorf("export after re-import differs (%d and %d bytes)", len(b1), len(b2))
			}
			got := mustReadExport(t, out1)
			byID := slices.Clone(recs)
			slices.SortFunc(byID, func(x, y *rec) int { return strings.Compare(x.ID, y.ID) })
			slices.SortFunc(got, func(x, y exported) int { return strings.Compare(x.ID, y.ID) })
			checkExportMatches(t, got, byID)

			// One product, newest first (ties by id descending).
			p1, p2 := filepath.Join(dir, kind+"-p1.jsonl"), filepath.Join(dir, kind+"-p2.jsonl")
			MustRun(t, "export", "-store", a, "-product", e2eBig, p1)
			MustRun(t, "export", "-store", b, "-product", e2eBig, p2)
			var want []*rec
			for _, r := range recs {
				if r.Product == e2eBig {
					want = append(want, r)
				}
			}
			slices.SortFunc(want, func(x, y *rec) int {
				if displayBefore(x, y) {
					return -1
				}
				return 1
			})
			checkExportMatches(t, mustReadExport(t, p1), want)
			if q1, _ := os.ReadFile(p1); !bytes.Equal(q1, mustReadFile(t, p2)) {
				t.Error("product export after re-import differs")
			}
		})
	}
}

func mustReadFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var adminRE = regexp.MustCompile(`"msg":"admin endpoints","addr":"(127\.0\.0\.1:[0-9]+)"`)

// TestBackupWhileServing: the server holds its bolt file, so `backup
// -store` is refused with a hint; `backup -from` copies it through the
// server's admin listener while comments are being created, and the copy is
// a consistent bolt store (every product's stats count exactly its
// comments) that opens; `export -from` streams one product.
func TestBackupWhileServing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "live.db")
	MustRun(t, "seed", "-store", "bolt:"+path, "-products", "3", "-comments", "3000")
	s := MustStartServer(t, "-store", "bolt:"+path, "-admin-addr", "127.0.0.1:0")
	var m []string // the log's lines may reach stderr up to 100 ms after they are logged
	s.waitLog(func(log string) bool { m = adminRE.FindStringSubmatch(log); return m != nil })
	if m == nil {
		t.Fatalf("no admin address in the log:\n%s", tail(s.stderr.String(), 2000))
	}
	admin := "http://" + m[1]

	_, errOut, err := runGW(t, nil, "backup", "-store", "bolt:"+path, "-lock-timeout", "200ms", filepath.Join(dir, "no.db"))
	if err == nil || !strings.Contains(errOut, "-from http://ADMIN_ADDR") {
		t.Errorf("backup of a served file: %v\n%s", err, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "no.db")); err == nil {
		t.Error("a failed backup left its output file")
	}

	// Comments are created while the copy is made. Each request runs to its
	// end (bounded by the client's timeout): a request cancelled on the
	// client could still be served after the count below.
	var stop atomic.Bool
	var wg sync.WaitGroup
	var created atomic.Int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; !stop.Load() && i < 200; i++ {
			resp, err := s.Do(context.Background(), http.MethodPost, `mutation($i: CreateCommentInput!) { createComment(input: $i) { comment { id } } }`,
				map[string]any{"i": map[string]any{"productId": "p-new", "language": "en", "rating": 1 + i%5, "author": "a", "title": "t", "body": "b"}})
			if err == nil && len(resp.Errors) == 0 {
				created.Add(1)
			}
		}
	}()
	out := filepath.Join(dir, "copy.db")
	MustRun(t, "backup", "-from", admin, out)
	stop.Store(true)
	wg.Wait()
	// A request that failed on the client may still have been served: the
	// server's count is the truth.
	var after struct {
		Product struct {
			Comments struct{ TotalCount int64 }
		}
	}
	MustQuery(t, s, `{ product(id: "p-new") { comments { totalCount } } }`, nil, &after)
	newComments := after.Product.Comments.TotalCount
	if newComments < created.Load() {
		t.Fatalf("the server has %d new comments, %d were created", newComments, created.Load())
	}

	tbl, err := bolt.Open(out)
	if err != nil {
		t.Fatalf("the copy does not open: %v", err)
	}
	defer tbl.Close()
	st := store.New(tbl)
	items, _, err := tbl.Scan(t.Context(), 0, 1, nil, 100000)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int64{}
	for _, it := range items {
		if _, ok := store.CommentIDFromPK(it.S(table.AttrPK)); ok {
			counts[it.S(table.AttrProductID)]++
		}
	}
	var total int64
	for pid, n := range counts {
		sts, err := st.GetStats(t.Context(), []store.StatsID{{ProductID: pid}})
		if err != nil || sts[0].Total != n {
			t.Errorf("in the copy, product %s has %d comments and stats total %v (%v)", pid, n, sts[0].Total, err)
		}
		total += n
	}
	if total < 3000 || total > 3000+newComments {
		t.Errorf("the copy has %d comments; 3000 were seeded and %d created meanwhile", total, newComments)
	}
	t.Logf("copy: %d comments (%d created during the run)", total, newComments)

	// export -from streams a product from the running server.
	exp := filepath.Join(dir, "p.jsonl")
	MustRun(t, "export", "-from", admin, "-product", "p-new", exp)
	if got := len(mustReadExport(t, exp)); int64(got) != newComments {
		t.Errorf("export -from of p-new has %d comments, the server has %d", got, newComments)
	}
}
