package dynamo

// Tests against a real DynamoDB API server: DynamoDB Local, which
// ./scripts/test.sh downloads and starts, or any server DYNAMODB_ENDPOINT
// names. Without DYNAMODB_ENDPOINT they skip.

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"reflect"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/dynamo/dynamotest"
	"github.com/acme/comments-gateway/store/storetest"
	"github.com/acme/comments-gateway/store/table"
)

// MustClient returns a DynamoDB client for DYNAMODB_ENDPOINT, configured
// with the retryer Open installs, or skips the test when the variable is
// unset.
func MustClient(tb testing.TB) *dynamodb.Client {
	tb.Helper()
	return dynamotest.MustClient(tb, config.WithRetryer(NewRetryer))
}

var tableSeq atomic.Int64

// MustTable creates a fresh, uniquely named table on client (which may wrap
// the real one), as CreateTable would but without the stream (on DynamoDB
// Local a stream makes every write about 20 times slower, and these tests
// read no stream), and deletes it when the test ends.
func MustTable(tb testing.TB, real *dynamodb.Client, client Client) *Table {
	tb.Helper()
	name := fmt.Sprintf("test-%d-%d-%d", os.Getpid(), time.Now().UnixNano()%1e9, tableSeq.Add(1))
	tbl := New(client, name)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	in := CreateTableInput(name, false)
	if _, err := client.CreateTable(ctx, in); err != nil {
		tb.Fatalf("CreateTable %s: %v", name, err)
	}
	if err := tbl.waitActive(ctx); err != nil {
		tb.Fatalf("CreateTable %s: %v", name, err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := real.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)}); err != nil {
			tb.Logf("DeleteTable %s: %v", name, err)
		}
	})
	return tbl
}

// newTable is the factory the conformance suites get.
func newTable(t *testing.T) table.Table {
	t.Helper()
	c := MustClient(t)
	return MustTable(t, c, c)
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func comment(id, pid, lang string, rating int, at time.Time) table.Item {
	c := &store.Comment{ID: id, ProductID: pid, Language: lang, Rating: rating,
		Author: "a", Title: "t", Body: "b", CreatedAt: at}
	return c.Item()
}

// TestCreateTable: CreateTable makes the table, its indexes and their
// projections, on-demand billing and time to live on the change log's
// expiresAt, and is idempotent (point-in-time recovery, which DynamoDB
// Local does not implement, is only a logged warning there). An existing
// table without the indexes, or with TTL on another attribute, is
// refused (EINVALID), not changed.
func TestCreateTable(t *testing.T) {
	c := MustClient(t)
	tbl := MustTable(t, c, c)
	ctx := ctxT(t)
	if err := tbl.CreateTable(ctx, false); err != nil {
		t.Fatalf("second CreateTable: %v, want nil (idempotent)", err)
	}
	out, err := c.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(tbl.Name())})
	if err != nil {
		t.Fatal(err)
	}
	d := out.Table
	if d.TableStatus != types.TableStatusActive || !active(d) {
		t.Errorf("table status %s", d.TableStatus)
	}
	if err := checkSchema(d); err != nil {
		t.Error(err)
	}
	if d.BillingModeSummary == nil || d.BillingModeSummary.BillingMode != types.BillingModePayPerRequest {
		t.Errorf("billing %+v, want PAY_PER_REQUEST", d.BillingModeSummary)
	}
	for _, g := range d.GlobalSecondaryIndexes {
		def, _ := table.IndexByName(aws.ToString(g.IndexName))
		checkProjection(t, def, g.Projection)
	}
	ttl, err := c.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(tbl.Name())})
	if err != nil {
		t.Fatal(err)
	}
	if d := ttl.TimeToLiveDescription; d == nil || d.TimeToLiveStatus != types.TimeToLiveStatusEnabled || aws.ToString(d.AttributeName) != store.AttrExpiresAt {
		t.Errorf("time to live %+v, want ENABLED on %s", d, store.AttrExpiresAt)
	}
	// An existing table with TTL on another attribute is refused.
	withTTL := "test-ttl-" + tbl.Name()
	if _, err := c.CreateTable(ctx, CreateTableInput(withTTL, false)); err != nil {
		t.Fatal(err)
	}
	defer c.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(withTTL)})
	if _, err := c.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(withTTL),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String("ttl"), Enabled: aws.Bool(true)}}); err != nil {
		t.Fatal(err)
	}
	if err := New(c, withTTL).CreateTable(ctx, false); table.ErrorCode(err) != table.EINVALID {
		t.Errorf("CreateTable over a table with TTL on another attribute: %v, want EINVALID", err)
	}
	// An existing table without our indexes is reported, not accepted.
	other := "test-other-" + tbl.Name()
	if _, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            aws.String(other),
		AttributeDefinitions: CreateTableInput(other, false).AttributeDefinitions[:2],
		KeySchema:            CreateTableInput(other, false).KeySchema,
		BillingMode:          types.BillingModePayPerRequest,
	}); err != nil {
		t.Fatal(err)
	}
	defer c.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(other)})
	if err := New(c, other).CreateTable(ctx, false); table.ErrorCode(err) != table.EINVALID {
		t.Errorf("CreateTable over a table without indexes: %v, want EINVALID", err)
	}
}

func TestGetBatchGetWrite(t *testing.T) {
	tbl := newTable(t).(*Table)
	ctx := ctxT(t)
	at := time.Date(2025, 1, 2, 3, 4, 5, 6, time.UTC)
	c1 := comment("c1", "p1", "en", 5, at)
	if err := tbl.Write(ctx, []table.Op{{Kind: table.OpPut, Key: c1.Key(), Item: c1, Conds: []table.Cond{{Kind: table.CondNotExists}}}}); err != nil {
		t.Fatal(err)
	}
	got, err := tbl.Get(ctx, c1.Key())
	if err != nil || !reflect.DeepEqual(got, c1) {
		t.Fatalf("Get = %v, %v; want %v", got, err, c1)
	}
	if got, err := tbl.Get(ctx, store.CommentKey("nope")); got != nil || err != nil {
		t.Errorf("Get missing = %v, %v; want nil, nil", got, err)
	}
	// Put-if-absent of an existing item: ECONFLICT, Op 0.
	err = tbl.Write(ctx, []table.Op{{Kind: table.OpPut, Key: c1.Key(), Item: c1, Conds: []table.Cond{{Kind: table.CondNotExists}}}})
	assertConflict(t, err, 0)

	// A transaction: create c2, bump the stats with ADD/SET, delete c1 if present.
	c2 := comment("c2", "p1", "de", 3, at.Add(time.Second))
	sk := store.StatsKey("p1", "")
	ops := []table.Op{
		{Kind: table.OpPut, Key: c2.Key(), Item: c2, Conds: []table.Cond{{Kind: table.CondNotExists}}},
		{Kind: table.OpUpdate, Key: sk, Add: map[string]int64{"count_3": 1, table.AttrCountTotal: 1},
			Set: table.Item{table.AttrGSIPK: table.S(store.LeadersPK("")), table.AttrGSISK: table.S(store.LeadersSK(0, "p1"))}},
		{Kind: table.OpDelete, Key: c1.Key(), Conds: []table.Cond{{Kind: table.CondExists}}},
	}
	if err := tbl.Write(ctx, ops); err != nil {
		t.Fatal(err)
	}
	items, err := tbl.BatchGet(ctx, []table.Key{c1.Key(), sk, c2.Key(), sk})
	if err != nil {
		t.Fatal(err)
	}
	wantStats := table.Item{"PK": table.S(sk.PK), "SK": table.S(sk.SK), "count_3": table.N(1), table.AttrCountTotal: table.N(1),
		table.AttrGSIPK: table.S(store.LeadersPK("")), table.AttrGSISK: table.S(store.LeadersSK(0, "p1"))}
	if want := []table.Item{nil, wantStats, c2, wantStats}; !reflect.DeepEqual(items, want) {
		t.Fatalf("BatchGet = %v\nwant %v", items, want)
	}
	items[1]["x"] = table.S("y")
	if _, ok := items[3]["x"]; ok {
		t.Error("BatchGet returned one map for two equal keys")
	}

	// Conditions on attributes: CondEquals on count_3, CondAbsent on count_5;
	// SET, ADD and REMOVE in one update.
	upd := table.Op{Kind: table.OpUpdate, Key: sk, Add: map[string]int64{"count_3": -1}, Remove: []string{table.AttrGSIPK, table.AttrGSISK},
		Set:   table.Item{"note": table.S("x")},
		Conds: []table.Cond{{Kind: table.CondEquals, Attr: "count_3", Value: table.N(1)}, {Kind: table.CondAbsent, Attr: "count_5"}}}
	if err := tbl.Write(ctx, []table.Op{upd}); err != nil {
		t.Fatal(err)
	}
	got, _ = tbl.Get(ctx, sk)
	if want := (table.Item{"PK": table.S(sk.PK), "SK": table.S(sk.SK), "count_3": table.N(0), table.AttrCountTotal: table.N(1), "note": table.S("x")}); !reflect.DeepEqual(got, want) {
		t.Errorf("after update: %v, want %v", got, want)
	}
	// The same condition now fails (count_3 is 0): op 1 of 2, nothing written.
	err = tbl.Write(ctx, []table.Op{
		{Kind: table.OpUpdate, Key: store.StatsKey("p1", "de"), Add: map[string]int64{"count_3": 1}},
		upd,
	})
	assertConflict(t, err, 1)
	if got, _ := tbl.Get(ctx, store.StatsKey("p1", "de")); got != nil {
		t.Errorf("a cancelled transaction wrote %v", got)
	}
	// Delete of an absent item with CondExists: ECONFLICT at its index.
	err = tbl.Write(ctx, []table.Op{
		{Kind: table.OpUpdate, Key: sk, Add: map[string]int64{"count_1": 1}},
		{Kind: table.OpPut, Key: store.CommentKey("c9"), Item: comment("c9", "p1", "en", 1, at)},
		{Kind: table.OpDelete, Key: c1.Key(), Conds: []table.Cond{{Kind: table.CondExists}}},
	})
	assertConflict(t, err, 2)
	// A value mismatch of CondEquals with a string.
	err = tbl.Write(ctx, []table.Op{{Kind: table.OpDelete, Key: c2.Key(), Conds: []table.Cond{{Kind: table.CondEquals, Attr: table.AttrLanguage, Value: table.S("en")}}}})
	assertConflict(t, err, 0)
	if err := tbl.Write(ctx, []table.Op{{Kind: table.OpDelete, Key: c2.Key(), Conds: []table.Cond{{Kind: table.CondEquals, Attr: table.AttrLanguage, Value: table.S("de")}}}}); err != nil {
		t.Fatal(err)
	}
	// Two ops on one item: DynamoDB rejects the transaction.
	err = tbl.Write(ctx, []table.Op{{Kind: table.OpDelete, Key: sk}, {Kind: table.OpDelete, Key: sk}})
	if code := table.ErrorCode(err); code == "" || code == table.ECONFLICT {
		t.Errorf("two ops on one item: %v", err)
	}
}

func assertConflict(t *testing.T, err error, op int) {
	t.Helper()
	var se *table.Error
	if !errors.As(err, &se) || se.Code != table.ECONFLICT || se.Op != op {
		t.Fatalf("err = %v, want ECONFLICT with Op %d", err, op)
	}
}

// TestQuery covers the base table and every index: direction, limit,
// paging by LastKey, the three sort conditions, and sparseness.
func TestQuery(t *testing.T) {
	tbl := newTable(t).(*Table)
	ctx := ctxT(t)
	base := time.Date(2025, 5, 1, 0, 0, 0, 0, time.UTC)
	var items []table.Item
	for i := range 30 {
		lang := []string{"en", "de"}[i%2]
		items = append(items, comment(fmt.Sprintf("c%02d", i), "p", lang, 1+i%5, base.Add(time.Duration(i)*time.Minute)))
	}
	stats := (&store.Stats{ProductID: "p", Counts: [6]int64{0, 1, 0, 0, 0, 3}, Total: 4}).Item()
	statsDE := (&store.Stats{ProductID: "p", Language: "de", Counts: [6]int64{0, 1}, Total: 1}).Item() // no count_5: not on the leaderboard
	items = append(items, stats, statsDE, store.LeaderItem("p", "", 3), store.LeaderItem("p", "de", 0))
	if err := tbl.BatchPut(ctx, items); err != nil {
		t.Fatal(err)
	}

	sortKeys := func(res []table.Item) []string {
		var out []string
		for _, it := range res {
			out = append(out, it.S(table.AttrGSISK))
		}
		return out
	}
	want := func(pred func(table.Item) bool, desc bool) []string {
		var out []string
		for _, it := range items[:30] {
			if pred(it) {
				out = append(out, it.S(table.AttrGSISK))
			}
		}
		sort.Strings(out)
		if desc {
			slices.Reverse(out)
		}
		return out
	}
	readAll := func(q table.Query) []table.Item {
		var all []table.Item
		for pages := 0; ; pages++ {
			res, err := tbl.Query(ctx, q)
			if err != nil {
				t.Fatalf("%+v: %v", q, err)
			}
			if len(res.Items) > q.Limit {
				t.Fatalf("%d items over limit %d", len(res.Items), q.Limit)
			}
			all = append(all, res.Items...)
			if res.LastKey == nil {
				return all
			}
			if pages > 100 {
				t.Fatal("no end")
			}
			q.StartKey = res.LastKey
		}
	}
	for _, tc := range []struct {
		index, hash string
		pred        func(table.Item) bool
	}{
		{table.IndexAll, "PRODUCT#p", func(table.Item) bool { return true }},
		{table.IndexByLang, "PRODUCT#p/de", func(it table.Item) bool { return it.S(table.AttrLanguage) == "de" }},
		{table.IndexByRating, "PRODUCT#p/3", func(it table.Item) bool { return it.N(table.AttrRating) == 3 }},
		{table.IndexByLangAndRating, "PRODUCT#p/en/5", func(it table.Item) bool {
			return it.S(table.AttrLanguage) == "en" && it.N(table.AttrRating) == 5
		}},
	} {
		for _, forward := range []bool{false, true} {
			for _, limit := range []int{1, 4, 100} {
				got := sortKeys(readAll(table.Query{Index: tc.index, HashValue: tc.hash, Forward: forward, Limit: limit}))
				if w := want(tc.pred, !forward); !slices.Equal(got, w) {
					t.Errorf("%s %s forward=%v limit=%d:\n got %v\nwant %v", tc.index, tc.hash, forward, limit, got, w)
				}
			}
		}
		// sort conditions: < and > a middle key
		all := want(tc.pred, true)
		mid := all[len(all)/2]
		got := sortKeys(readAll(table.Query{Index: tc.index, HashValue: tc.hash, SortOp: table.SortLess, SortValue: mid, Limit: 3}))
		if w := all[len(all)/2+1:]; !slices.Equal(got, w) {
			t.Errorf("%s < %s: got %v, want %v", tc.index, mid, got, w)
		}
		got = sortKeys(readAll(table.Query{Index: tc.index, HashValue: tc.hash, SortOp: table.SortGreater, SortValue: mid, Forward: true, Limit: 3}))
		w := slices.Clone(all[:len(all)/2])
		slices.Reverse(w)
		if !slices.Equal(got, w) {
			t.Errorf("%s > %s: got %v, want %v", tc.index, mid, got, w)
		}
	}
	// Projection: index items carry the projected attributes, not version.
	res, err := tbl.Query(ctx, table.Query{Index: table.IndexAll, HashValue: "PRODUCT#p", Limit: 1})
	if err != nil || len(res.Items) != 1 {
		t.Fatal(res, err)
	}
	if _, ok := res.Items[0][table.AttrVersion]; ok {
		t.Errorf("index item has %s: projection is not INCLUDE", table.AttrVersion)
	}
	if c, err := store.CommentFromItem(res.Items[0]); err != nil || c.ID != "c29" {
		t.Errorf("newest comment = %+v, %v", c, err)
	}
	// Base table: PK = PRODUCT#p, SK begins_with "S#".
	res, err = tbl.Query(ctx, table.Query{HashValue: store.ProductPK("p"), SortOp: table.SortBeginsWith, SortValue: store.StatsLangPrefix, Forward: true, Limit: 10})
	if err != nil || len(res.Items) != 1 || !reflect.DeepEqual(res.Items[0], statsDE) || res.LastKey != nil {
		t.Errorf("languages query = %v, %v", res, err)
	}
	// Leaderboard: the sparse use of byLangAndRating holds only leaderboard
	// entries with a GSIPK; the German one (no 5-star comment) has none.
	res, err = tbl.Query(ctx, table.Query{Index: table.IndexByLangAndRating, HashValue: store.LeadersShardPK("", store.LeaderShard("p")), Limit: 10})
	if err != nil || len(res.Items) != 1 || res.Items[0].N("count_5") != 3 {
		t.Errorf("leaderboard = %v, %v", res, err)
	}
	res, err = tbl.Query(ctx, table.Query{Index: table.IndexByLangAndRating, HashValue: store.LeadersShardPK("de", store.LeaderShard("p")), Limit: 10})
	if err != nil || len(res.Items) != 0 || res.LastKey != nil {
		t.Errorf("empty leaderboard = %v, %v", res, err)
	}
}

// TestBatchAndScan loads more items than one BatchWriteItem and one
// BatchGetItem take, and reads them back by BatchGet and a parallel scan.
func TestBatchAndScan(t *testing.T) {
	c := MustClient(t)
	counter := &countingClient{Client: c}
	tbl := MustTable(t, c, counter)
	log := &storetest.CallLog{}
	ctx := table.WithAccountant(ctxT(t), log)
	at := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	var items []table.Item
	var keys []table.Key
	for i := range 230 {
		it := comment(fmt.Sprintf("b%03d", i), fmt.Sprintf("p%d", i%7), "en", 1+i%5, at.Add(time.Duration(i)*time.Second))
		items = append(items, it)
		keys = append(keys, it.Key())
	}
	dup := cloneItem(items[0])
	dup[table.AttrTitle] = table.S("last wins")
	if err := tbl.BatchPut(ctx, append(slices.Clone(items), dup)); err != nil {
		t.Fatal(err)
	}
	items[0] = dup
	if n := counter.n("BatchWriteItem"); n != 10 { // ceil(230/25)
		t.Errorf("%d BatchWriteItem calls, want 10", n)
	}
	keys = append(keys, store.CommentKey("missing"))
	got, err := tbl.BatchGet(ctx, keys)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, append(slices.Clone(items), nil)) {
		t.Error("BatchGet does not return the items aligned with the keys")
	}
	if n := counter.n("BatchGetItem"); n != 3 { // ceil(231/100)
		t.Errorf("%d BatchGetItem calls, want 3", n)
	}
	// Parallel scan: 3 segments, pages of 40.
	seen := map[table.Key]bool{}
	scans := 0
	for seg := range 3 {
		var start table.Item
		for {
			page, last, err := tbl.Scan(ctx, seg, 3, start, 40)
			scans++
			if err != nil {
				t.Fatal(err)
			}
			if len(page) > 40 {
				t.Fatalf("scan page of %d", len(page))
			}
			for _, it := range page {
				if seen[it.Key()] {
					t.Fatalf("%v scanned twice", it.Key())
				}
				seen[it.Key()] = true
			}
			if last == nil {
				break
			}
			start = last
		}
	}
	if len(seen) != len(items) {
		t.Errorf("scan saw %d items, want %d", len(seen), len(items))
	}
	empty, err := store.New(tbl).IsEmpty(ctx)
	if err != nil || empty {
		t.Errorf("IsEmpty = %v, %v", empty, err)
	}
	// One accounted call per Table call, however many DynamoDB requests it
	// made, with the read capacity DynamoDB reported for them all.
	ops := map[string]int{}
	var rcu float64
	for _, call := range log.Calls() {
		ops[call.Op]++
		rcu += call.ReadCapacity
	}
	if want := map[string]int{table.CallBatchPut: 1, table.CallBatchGet: 1, table.CallScan: scans + 1}; !maps.Equal(ops, want) {
		t.Errorf("accounted calls %v, want %v", ops, want)
	}
	if want := counter.readCapacity(); rcu != want {
		t.Errorf("accounted %v read capacity units, DynamoDB reported %v", rcu, want)
	}
	if rcu <= 0 {
		t.Logf("DynamoDB reported no consumed read capacity")
	}
}

// countingClient counts the calls of each operation and sums the read
// capacity DynamoDB reports for the reads.
type countingClient struct {
	Client
	mu    sync.Mutex
	calls map[string]int
	rcu   float64
}

func (c *countingClient) addCapacity(cc ...types.ConsumedCapacity) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, u := range cc {
		c.rcu += aws.ToFloat64(u.CapacityUnits)
	}
}

func (c *countingClient) readCapacity() float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rcu
}

func (c *countingClient) count(op string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.calls == nil {
		c.calls = map[string]int{}
	}
	c.calls[op]++
}

func (c *countingClient) n(op string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[op]
}

func (c *countingClient) GetItem(ctx context.Context, in *dynamodb.GetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	c.count("GetItem")
	return c.Client.GetItem(ctx, in, o...)
}

func (c *countingClient) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	c.count("BatchGetItem")
	out, err := c.Client.BatchGetItem(ctx, in, o...)
	if err == nil {
		c.addCapacity(out.ConsumedCapacity...)
	}
	return out, err
}

func (c *countingClient) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	c.count("Query")
	return c.Client.Query(ctx, in, o...)
}

func (c *countingClient) Scan(ctx context.Context, in *dynamodb.ScanInput, o ...func(*dynamodb.Options)) (*dynamodb.ScanOutput, error) {
	c.count("Scan")
	out, err := c.Client.Scan(ctx, in, o...)
	if err == nil && out.ConsumedCapacity != nil {
		c.addCapacity(*out.ConsumedCapacity)
	}
	return out, err
}

func (c *countingClient) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	c.count("BatchWriteItem")
	return c.Client.BatchWriteItem(ctx, in, o...)
}

// TestConcurrentWrites runs conditional read-modify-write loops from several
// goroutines on one counter: every conflict is ECONFLICT and, retried, the
// final count is exact.
func TestConcurrentWrites(t *testing.T) {
	tbl := newTable(t).(*Table)
	ctx := ctxT(t)
	k := store.StatsKey("hot", "")
	const workers, each = 4, 10
	var conflicts atomic.Int64
	g, gctx := errgroup.WithContext(ctx)
	for w := range workers {
		g.Go(func() error {
			for i := 0; i < each; i++ {
				for {
					it, err := tbl.Get(gctx, k)
					if err != nil {
						return err
					}
					cond := table.Cond{Kind: table.CondAbsent, Attr: "v"}
					if it != nil {
						cond = table.Cond{Kind: table.CondEquals, Attr: "v", Value: table.N(it.N("v"))}
					}
					err = tbl.Write(gctx, []table.Op{
						{Kind: table.OpUpdate, Key: k, Set: table.Item{"v": table.N(it.N("v") + 1)}, Conds: []table.Cond{cond}},
						{Kind: table.OpPut, Key: store.CommentKey(fmt.Sprintf("w%d-%d", w, i)), Item: table.Item{"PK": table.S(store.CommentKey(fmt.Sprintf("w%d-%d", w, i)).PK), "SK": table.S(store.CommentKey(fmt.Sprintf("w%d-%d", w, i)).SK)}},
					})
					if table.ErrorCode(err) == table.ECONFLICT {
						conflicts.Add(1)
						continue
					}
					if err != nil {
						return err
					}
					break
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	it, err := tbl.Get(ctx, k)
	if err != nil || it.N("v") != workers*each {
		t.Errorf("counter = %v, %v; want %d", it, err, workers*each)
	}
	t.Logf("%d conflicts retried", conflicts.Load())
}

// TestConformance runs the table.Table conformance suite on DynamoDB, each
// subtest on a fresh table.
func TestConformance(t *testing.T) {
	MustClient(t) // skip early without an endpoint
	storetest.Run(t, newTable)
}

// TestModel runs the comments model's suite (listing, stats, leaderboard,
// mutations) on DynamoDB.
func TestModel(t *testing.T) {
	MustClient(t)
	storetest.RunModel(t, newTable)
}
