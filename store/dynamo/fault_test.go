package dynamo

// Fault tests: a Client that wraps the real one (on DynamoDB Local) and
// injects throttling, server errors, timeouts, partial batch results and
// cancelled transactions. Faults of a single request are injected inside
// the SDK's retry loop (a finalize middleware right after "Retry"), so they
// exercise the retryer Open installs; partial batches and cancellations are
// injected as responses.

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"golang.org/x/sync/errgroup"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/storetest"
	"github.com/acme/comments-gateway/store/table"
)

// faultClient wraps a real Client and injects faults.
type faultClient struct {
	Client

	// queryFault, when set, gives for the n-th Query call (from 0) the error
	// of each attempt (nil: the attempt goes through).
	queryFault func(call int) func(attempt int) error
	queryCalls atomic.Int64

	// txFault, when set, gives the error of each attempt of
	// TransactWriteItems (nil: the attempt goes through).
	txFault func(attempt int) error
	// txResult, when set, is returned instead of calling TransactWriteItems.
	txResult error

	// partial is the number of batch calls (BatchGetItem, BatchWriteItem)
	// that still process only half their keys or items.
	partial      atomic.Int64
	batchGets    atomic.Int64
	batchWrites  atomic.Int64
	attempts     atomic.Int64 // attempts that went through a fault middleware
	injected     atomic.Int64 // faults injected
	maxBatchSeen atomic.Int64
}

// inject returns a client option that adds a middleware right after the
// SDK's retry middleware: it sees every attempt and fails those fail says.
func (f *faultClient) inject(fail func(attempt int) error) func(*dynamodb.Options) {
	return func(o *dynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(s *middleware.Stack) error {
			attempt := 0 // one stack per call: counts this call's attempts
			return s.Finalize.Insert(middleware.FinalizeMiddlewareFunc("InjectFault",
				func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
					n := attempt
					attempt++
					f.attempts.Add(1)
					if err := fail(n); err != nil {
						f.injected.Add(1)
						return middleware.FinalizeOutput{}, middleware.Metadata{}, err
					}
					return next.HandleFinalize(ctx, in)
				}), "Retry", middleware.After)
		})
	}
}

func (f *faultClient) Query(ctx context.Context, in *dynamodb.QueryInput, o ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error) {
	n := int(f.queryCalls.Add(1) - 1)
	if f.queryFault != nil {
		if fail := f.queryFault(n); fail != nil {
			o = append(o, f.inject(fail))
		}
	}
	return f.Client.Query(ctx, in, o...)
}

func (f *faultClient) TransactWriteItems(ctx context.Context, in *dynamodb.TransactWriteItemsInput, o ...func(*dynamodb.Options)) (*dynamodb.TransactWriteItemsOutput, error) {
	if f.txResult != nil {
		return nil, f.txResult
	}
	if f.txFault != nil {
		o = append(o, f.inject(f.txFault))
	}
	return f.Client.TransactWriteItems(ctx, in, o...)
}

// cut reports whether this batch call is to be processed only half.
func (f *faultClient) cut() bool {
	for {
		n := f.partial.Load()
		if n <= 0 {
			return false
		}
		if f.partial.CompareAndSwap(n, n-1) {
			return true
		}
	}
}

func (f *faultClient) BatchGetItem(ctx context.Context, in *dynamodb.BatchGetItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchGetItemOutput, error) {
	f.batchGets.Add(1)
	var tableName string
	var req types.KeysAndAttributes
	for tableName, req = range in.RequestItems {
	}
	f.maxBatchSeen.Store(max(f.maxBatchSeen.Load(), int64(len(req.Keys))))
	if len(req.Keys) < 2 || !f.cut() {
		return f.Client.BatchGetItem(ctx, in, o...)
	}
	half := len(req.Keys) / 2
	part := req
	part.Keys = req.Keys[:half]
	out, err := f.Client.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{
		RequestItems: map[string]types.KeysAndAttributes{tableName: part}, ReturnConsumedCapacity: in.ReturnConsumedCapacity,
	}, o...)
	if err != nil {
		return nil, err
	}
	rest := req
	rest.Keys = req.Keys[half:]
	out.UnprocessedKeys = map[string]types.KeysAndAttributes{tableName: rest}
	return out, nil
}

func (f *faultClient) BatchWriteItem(ctx context.Context, in *dynamodb.BatchWriteItemInput, o ...func(*dynamodb.Options)) (*dynamodb.BatchWriteItemOutput, error) {
	f.batchWrites.Add(1)
	var tableName string
	var reqs []types.WriteRequest
	for tableName, reqs = range in.RequestItems {
	}
	f.maxBatchSeen.Store(max(f.maxBatchSeen.Load(), int64(len(reqs))))
	if len(reqs) < 2 || !f.cut() {
		return f.Client.BatchWriteItem(ctx, in, o...)
	}
	half := len(reqs) / 2
	out, err := f.Client.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{
		RequestItems: map[string][]types.WriteRequest{tableName: reqs[:half]}, ReturnConsumedCapacity: in.ReturnConsumedCapacity,
	}, o...)
	if err != nil {
		return nil, err
	}
	out.UnprocessedItems = map[string][]types.WriteRequest{tableName: reqs[half:]}
	return out, nil
}

func throttled() error {
	return &types.ProvisionedThroughputExceededException{Message: aws.String("injected: rate of requests exceeds the allowed throughput")}
}

func serverError(code int) error {
	return &smithyhttp.ResponseError{
		Response: &smithyhttp.Response{Response: &http.Response{StatusCode: code, Header: http.Header{}}},
		Err:      fmt.Errorf("injected: HTTP %d", code),
	}
}

type timeoutError struct{}

func (timeoutError) Error() string   { return "injected: i/o timeout" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }

// loadPartitions writes 3 ratings × 12 comments of one product and returns
// the table and the expected newest-first sort keys of each rating.
func loadPartitions(t *testing.T, tbl *Table) map[int][]string {
	t.Helper()
	base := time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC)
	want := map[int][]string{}
	var items []table.Item
	for i := range 36 {
		r := 1 + i%3
		it := comment(fmt.Sprintf("f%02d", i), "fp", "en", r, base.Add(time.Duration(i)*time.Second))
		items = append(items, it)
		want[r] = append([]string{it.S(table.AttrGSISK)}, want[r]...)
	}
	if err := tbl.BatchPut(ctxT(t), items); err != nil {
		t.Fatal(err)
	}
	return want
}

// TestFaultThrottledSubQueryRetried: of three parallel sub-queries (one per
// rating), two are throttled (then fail with a 503 and a timeout) on their
// first attempts; the SDK retries them and every answer is exact.
func TestFaultThrottledSubQueryRetried(t *testing.T) {
	t.Parallel()
	c := MustClient(t)
	f := &faultClient{Client: c}
	tbl := MustTable(t, c, f)
	want := loadPartitions(t, tbl)
	log := &storetest.CallLog{}
	f.queryFault = func(call int) func(int) error {
		if call%3 == 0 {
			return nil
		}
		return func(attempt int) error {
			switch attempt {
			case 0:
				return throttled()
			case 1:
				if call%3 == 1 {
					return serverError(503)
				}
				return &smithyhttp.RequestSendError{Err: timeoutError{}}
			}
			return nil
		}
	}
	ctx := table.WithAccountant(ctxT(t), log)
	got := make([][]string, 4)
	g, gctx := errgroup.WithContext(ctx)
	for r := 1; r <= 3; r++ {
		g.Go(func() error {
			_, hash := store.PartitionKey("fp", "en", r)
			res, err := tbl.Query(gctx, table.Query{Index: table.IndexByLangAndRating, HashValue: hash, Limit: 100})
			for _, it := range res.Items {
				got[r] = append(got[r], it.S(table.AttrGSISK))
			}
			return err
		})
	}
	if err := g.Wait(); err != nil {
		t.Fatalf("a throttled sub-query failed: %v", err)
	}
	for r := 1; r <= 3; r++ {
		if !slices.Equal(got[r], want[r]) {
			t.Errorf("rating %d: got %v, want %v", r, got[r], want[r])
		}
	}
	if n := f.injected.Load(); n != 4 {
		t.Errorf("%d faults injected, want 4 (2 sub-queries × 2 attempts)", n)
	}
	if n := f.attempts.Load(); n != 6 {
		t.Errorf("%d attempts of the faulty sub-queries, want 6", n)
	}
	if calls := log.Calls(); len(calls) != 3 {
		t.Errorf("%d calls accounted, want the 3 queries (retries are inside one call)", len(calls))
	}
}

// TestFaultPermanentFailure: a query that keeps failing ends as
// EUNAVAILABLE, after MaxAttempts attempts or at the context deadline —
// never as a short or empty answer.
func TestFaultPermanentFailure(t *testing.T) {
	t.Parallel()
	c := MustClient(t)
	for _, tc := range []struct {
		name     string
		fault    func() error
		deadline time.Duration
	}{
		{"throttled until attempts run out", throttled, 0},
		{"HTTP 500 until attempts run out", func() error { return serverError(500) }, 0},
		{"throttled past the deadline", throttled, 300 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := &faultClient{Client: c}
			tbl := MustTable(t, c, f)
			loadPartitions(t, tbl)
			f.queryFault = func(int) func(int) error { return func(int) error { return tc.fault() } }
			ctx := context.Background()
			if tc.deadline > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tc.deadline)
				defer cancel()
			}
			_, hash := store.PartitionKey("fp", "en", 1)
			start := time.Now()
			res, err := tbl.Query(ctx, table.Query{Index: table.IndexByLangAndRating, HashValue: hash, Limit: 100})
			elapsed := time.Since(start)
			if table.ErrorCode(err) != table.EUNAVAILABLE {
				t.Fatalf("err = %v, want EUNAVAILABLE", err)
			}
			if res.Items != nil || res.LastKey != nil {
				t.Errorf("a failed query returned %v", res)
			}
			if tc.deadline > 0 {
				if elapsed > tc.deadline+time.Second {
					t.Errorf("returned after %v, deadline %v", elapsed, tc.deadline)
				}
			} else if n := f.attempts.Load(); n != MaxAttempts {
				t.Errorf("%d attempts, want MaxAttempts = %d", n, MaxAttempts)
			}
			t.Logf("%d attempts in %v: %v", f.attempts.Load(), elapsed.Round(time.Millisecond), err)
		})
	}
}

// TestFaultUnprocessedKeys: BatchGetItem answers with half the keys
// unprocessed, several times; BatchGet asks again until it has them all.
func TestFaultUnprocessedKeys(t *testing.T) {
	t.Parallel()
	c := MustClient(t)
	f := &faultClient{Client: c}
	tbl := MustTable(t, c, f)
	at := time.Date(2023, 6, 1, 0, 0, 0, 0, time.UTC)
	var items []table.Item
	var keys []table.Key
	for i := range 150 {
		it := comment(fmt.Sprintf("u%03d", i), "up", "fr", 4, at.Add(time.Duration(i)*time.Millisecond))
		items = append(items, it)
		keys = append(keys, it.Key())
	}
	f.partial.Store(6) // 6 of the BatchWriteItem calls leave half unprocessed
	if err := tbl.BatchPut(ctxT(t), items); err != nil {
		t.Fatal(err)
	}
	if n := f.batchWrites.Load(); n < 6+6 {
		t.Errorf("%d BatchWriteItem calls, want at least 12 (6 chunks + 6 retries)", n)
	}
	f.partial.Store(5) // 5 of the BatchGetItem calls leave half unprocessed
	got, err := tbl.BatchGet(ctxT(t), keys)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, items) {
		t.Errorf("BatchGet after unprocessed keys differs from what was written")
	}
	if n := f.batchGets.Load(); n != 2+5 {
		t.Errorf("%d BatchGetItem calls, want 7 (2 chunks + 5 retries)", n)
	}
	if n := f.maxBatchSeen.Load(); n > maxBatchGet {
		t.Errorf("a batch of %d", n)
	}
	// Unprocessed keys forever: EUNAVAILABLE at the deadline.
	f.partial.Store(1 << 30)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	if _, err := tbl.BatchGet(ctx, keys); table.ErrorCode(err) != table.EUNAVAILABLE {
		t.Errorf("BatchGet with keys never processed: %v, want EUNAVAILABLE", err)
	}
}

// TestFaultTransactionCancelled: cancellation reasons map to ECONFLICT with
// the index of the failed operation, or -1 for a transaction conflict; a
// transaction cancelled only by throttling is retried by the SDK.
func TestFaultTransactionCancelled(t *testing.T) {
	t.Parallel()
	c := MustClient(t)
	f := &faultClient{Client: c}
	tbl := MustTable(t, c, f)
	ctx := ctxT(t)
	at := time.Date(2025, 7, 1, 0, 0, 0, 0, time.UTC)
	a, b, d := comment("ta", "tp", "en", 1, at), comment("tb", "tp", "en", 2, at), comment("td", "tp", "en", 3, at)
	put := func(it table.Item, conds ...table.Cond) table.Op {
		return table.Op{Kind: table.OpPut, Key: it.Key(), Item: it, Conds: conds}
	}
	if err := tbl.Write(ctx, []table.Op{put(a), put(b)}); err != nil {
		t.Fatal(err)
	}
	// Real: DynamoDB cancels for the condition of op 2.
	err := tbl.Write(ctx, []table.Op{
		put(d, table.Cond{Kind: table.CondNotExists}),
		{Kind: table.OpUpdate, Key: a.Key(), Add: map[string]int64{table.AttrVersion: 1}, Conds: []table.Cond{{Kind: table.CondExists}}},
		put(b, table.Cond{Kind: table.CondNotExists}),
	})
	assertConflict(t, err, 2)
	if it, _ := tbl.Get(ctx, d.Key()); it != nil {
		t.Error("cancelled transaction wrote op 0")
	}

	reasons := func(codes ...string) []types.CancellationReason {
		var rs []types.CancellationReason
		for _, code := range codes {
			rs = append(rs, types.CancellationReason{Code: aws.String(code)})
		}
		return rs
	}
	ops := []table.Op{put(d), {Kind: table.OpDelete, Key: a.Key()}, {Kind: table.OpDelete, Key: b.Key()}}
	// Injected responses.
	f.txResult = &types.TransactionCanceledException{Message: aws.String("injected"), CancellationReasons: reasons("None", "ConditionalCheckFailed", "None")}
	assertConflict(t, tbl.Write(ctx, ops), 1)
	f.txResult = &types.TransactionCanceledException{Message: aws.String("injected"), CancellationReasons: reasons("None", "TransactionConflict", "None")}
	assertConflict(t, tbl.Write(ctx, ops), -1)
	f.txResult = &types.TransactionConflictException{Message: aws.String("injected")}
	assertConflict(t, tbl.Write(ctx, ops), -1)
	f.txResult = nil

	// Throttled transaction: retried inside the SDK, then applied.
	f.txFault = func(attempt int) error {
		if attempt < 2 {
			return &types.TransactionCanceledException{Message: aws.String("injected"), CancellationReasons: reasons("None", "ThrottlingError", "None")}
		}
		return nil
	}
	if err := tbl.Write(ctx, ops); err != nil {
		t.Fatalf("throttled transaction: %v", err)
	}
	if n := f.injected.Load(); n != 2 {
		t.Errorf("%d faults injected, want 2", n)
	}
	got, err := tbl.BatchGet(ctx, []table.Key{a.Key(), b.Key(), d.Key()})
	if err != nil || got[0] != nil || got[1] != nil || !reflect.DeepEqual(got[2], d) {
		t.Errorf("after the retried transaction: %v, %v", got, err)
	}
	// Throttled for good: EUNAVAILABLE.
	f.txFault = func(int) error {
		return &types.TransactionCanceledException{Message: aws.String("injected"), CancellationReasons: reasons("ThrottlingError", "None", "None")}
	}
	ctx2, cancel := context.WithTimeout(ctx, 400*time.Millisecond)
	defer cancel()
	if err := tbl.Write(ctx2, ops); table.ErrorCode(err) != table.EUNAVAILABLE {
		t.Errorf("throttled transaction past the deadline: %v, want EUNAVAILABLE", err)
	}
}
