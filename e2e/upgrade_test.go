package e2e

import (
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/bolt"
	"github.com/acme/comments-gateway/store/dynamo"
	"github.com/acme/comments-gateway/store/dynamo/dynamotest"
	"github.com/acme/comments-gateway/store/table"
)

// design1Fixtures are bolt files written by gateways of logical design 1
// (the leaderboard on the stats items), both of file format 1 (so serve
// migrates the file's format when it opens it, then the design):
// design1.db.gz was seeded by the gateway at c152473^ (`seed -products 8
// -comments 240 -rand-seed 7`, then compacted with bbolt.Compact),
// format1.db is the file of store/bolt/migrate_test.go.
var design1Fixtures = []string{"design1.db.gz", "format1.db"}

// mustFixture copies the bolt fixture name of store/bolt/testdata (gunzipped)
// to a temporary file and returns its path.
func mustFixture(t *testing.T, name string) string {
	t.Helper()
	f, err := os.Open(filepath.Join(moduleRoot, "store", "bolt", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(name, ".gz") {
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	}
	path := filepath.Join(t.TempDir(), "old.db")
	b, err := io.ReadAll(r)
	if err == nil {
		err = os.WriteFile(path, b, 0o600)
	}
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// exportedRecs exports the comments of spec with the binary and returns
// them as records, the recount's input: `export` reads the comments only,
// never the stats or the leaderboard.
func exportedRecs(t *testing.T, spec string) []*rec {
	t.Helper()
	file := filepath.Join(t.TempDir(), "export.jsonl")
	MustRun(t, "export", "-store", spec, file)
	var out []*rec
	for _, e := range mustReadExport(t, file) {
		out = append(out, &rec{ID: e.ID, Product: e.ProductID, Lang: e.Language, Rating: e.Rating})
	}
	if len(out) == 0 {
		t.Fatalf("%s exported no comment", spec)
	}
	return out
}

// checkLeaderboards compares topProducts (all languages and each language
// of recs) with a recount of the 5-star comments of recs.
func checkLeaderboards(t *testing.T, s *Server, recs []*rec) {
	t.Helper()
	langs := []string{""}
	for _, c := range recs {
		if !slices.Contains(langs, c.Lang) {
			langs = append(langs, c.Lang)
		}
	}
	for _, lang := range langs {
		var got struct {
			TopProducts []struct {
				FiveStarCount int
				Product       struct{ ID string }
			}
		}
		vars := map[string]any{}
		if lang != "" {
			vars["l"] = lang
		}
		MustQuery(t, s, `query($l: String) { topProducts(first: 100, language: $l) { fiveStarCount product { id } } }`, vars, &got)
		var gotRanks []rank
		for _, r := range got.TopProducts {
			gotRanks = append(gotRanks, rank{r.Product.ID, r.FiveStarCount})
		}
		want := oracleTop(recs, lang, 100)
		if len(want) == 0 || !slices.Equal(gotRanks, want) {
			t.Errorf("topProducts(language: %q) = %v, want %v (a recount)", lang, gotRanks, want)
		}
	}
}

// TestServeUpgradesADesign1BoltFile: serve migrates a bolt file of logical
// design 1 before it listens (saying so in its log), after which every
// leaderboard equals a recount of the exported comments; the file records
// its design, so the next start does not migrate again.
func TestServeUpgradesADesign1BoltFile(t *testing.T) {
	for _, name := range design1Fixtures {
		t.Run(name, func(t *testing.T) {
			path := mustFixture(t, name)
			spec := "bolt:" + path
			recs := exportedRecs(t, spec)
			s := MustStartServer(t, "-store", spec)
			if !s.waitLog(func(log string) bool { return strings.Contains(log, "upgraded the store") }) {
				t.Fatalf("no upgrade in the log:\n%s", tail(s.stderr.String(), 4000))
			}
			if log := s.stderr.String(); !strings.Contains(log, "upgrading the store to logical design 2") {
				t.Errorf("the log does not say it upgrades:\n%s", tail(log, 4000))
			}
			checkLeaderboards(t, s, recs)
			s.Stop(t)
			s = MustStartServer(t, "-store", spec)
			checkLeaderboards(t, s, recs)
			s.Stop(t)
			if log := s.stderr.String(); strings.Contains(log, "upgrad") {
				t.Errorf("the second start upgraded again:\n%s", tail(log, 4000))
			}
		})
	}
}

// TestServeRefusesADesign1DynamoDBTable: a new table is served at once; a
// table holding the items of a design-1 file is refused with a message
// naming the command that upgrades it (create-table notes it too), and
// after that command every leaderboard equals a recount.
func TestServeRefusesADesign1DynamoDBTable(t *testing.T) {
	client := dynamotest.MustClient(t) // skips without DYNAMODB_ENDPOINT
	table := fmt.Sprintf("e2e-legacy-%d-%d", os.Getpid(), time.Now().UnixNano())
	spec := "dynamodb:" + table
	if out := MustRun(t, "create-table", "-stream=false", "-store", spec); strings.Contains(out, "note") {
		t.Errorf("create-table of a new table printed %q", out)
	}
	t.Cleanup(func() { deleteTable(t, client, table) })
	MustStartServer(t, serveArgs(spec)...).Stop(t) // a new table is no old one

	path := mustFixture(t, "design1.db.gz")
	copyItems(t, path, dynamo.New(client, table))
	recs := exportedRecs(t, "bolt:"+path)
	_, stderr, err := runGW(t, nil, append([]string{"serve", "-addr", "127.0.0.1:0", "-demo=false", "-open-mutations"}, serveArgs(spec)...)...)
	want := "run `comments-gateway rebuild-stats -store " + spec + "` once"
	if msg := errorLine(stderr); err == nil || !strings.Contains(msg, want) || !strings.Contains(msg, "logical design 1") {
		t.Fatalf("serve of a design-1 table: exit %v, error %q; want it to name %q\n%s", err, msg, want, tail(stderr, 2000))
	}
	if out := MustRun(t, "create-table", "-stream=false", "-store", spec); !strings.Contains(out, "note: "+spec) || !strings.Contains(out, want) {
		t.Errorf("create-table of a design-1 table printed %q; want a note naming %q", out, want)
	}
	MustRun(t, "rebuild-stats", "-store", spec)
	s := MustStartServer(t, serveArgs(spec)...)
	checkLeaderboards(t, s, recs)
}

// copyItems copies every item of the bolt file at path into dst whole: a
// DynamoDB table as a gateway of the file's design left it.
func copyItems(t *testing.T, path string, dst table.Table) {
	t.Helper()
	src, err := bolt.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	ctx, cancel := context.WithTimeout(context.Background(), e2eCommandTimeout)
	defer cancel()
	var start table.Item
	for {
		items, next, err := src.Scan(ctx, 0, 1, start, 500)
		if err == nil {
			err = dst.BatchPut(ctx, items)
		}
		if err != nil {
			t.Fatal(err)
		}
		if next == nil {
			return
		}
		start = next
	}
}

// TestServeRefusesANewerDesign: a table whose meta item records a design
// newer than this gateway's is refused by serve, rebuild-stats, seed and
// import, which say to run the newer gateway.
func TestServeRefusesANewerDesign(t *testing.T) {
	path := filepath.Join(t.TempDir(), "newer.db")
	tbl, err := bolt.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	k := store.DesignKey()
	newer := table.Item{table.AttrPK: table.S(k.PK), table.AttrSK: table.S(k.SK), "design": table.N(store.DesignVersion + 1)}
	if err := tbl.BatchPut(context.Background(), []table.Item{newer}); err != nil {
		t.Fatal(err)
	}
	tbl.Close()
	spec := "bolt:" + path
	for _, args := range [][]string{
		{"serve", "-addr", "127.0.0.1:0", "-demo=false", "-open-mutations", "-store", spec},
		{"rebuild-stats", "-store", spec},
		{"seed", "-store", spec},
		{"import", "-store", spec, "-"},
	} {
		_, stderr, err := runGW(t, nil, args...)
		if msg := errorLine(stderr); err == nil || !strings.Contains(msg, "written by a newer comments-gateway") {
			t.Errorf("%v: exit %v, error %q; want the refusal of a newer design\n%s", args, err, msg, tail(stderr, 2000))
		}
	}
}
