package dynamo

// Tests that need no DynamoDB server: the committed table definition, value
// conversion, error translation, backoff and argument validation.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/acme/comments-gateway/store"
)

// TestDeployJSONMatchesCreateTable checks that deploy/dynamodb-table.json,
// the input of `aws dynamodb create-table --cli-input-json`, is exactly what
// CreateTable sends.
func TestDeployJSONMatchesCreateTable(t *testing.T) {
	b, err := os.ReadFile("../../deploy/dynamodb-table.json")
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var got dynamodb.CreateTableInput
	if err := dec.Decode(&got); err != nil {
		t.Fatalf("deploy/dynamodb-table.json: %v", err)
	}
	want := CreateTableInput(aws.ToString(got.TableName), true)
	if !reflect.DeepEqual(&got, want) {
		w, _ := json.MarshalIndent(want, "", "  ")
		t.Errorf("deploy/dynamodb-table.json differs from CreateTableInput(%q); want the equivalent of\n%s", aws.ToString(got.TableName), w)
	}
	if aws.ToString(got.TableName) == "" {
		t.Error("deploy/dynamodb-table.json has no TableName")
	}
}

func TestCreateTableInputIndexes(t *testing.T) {
	in := CreateTableInput("x", true)
	if len(in.GlobalSecondaryIndexes) != len(store.AllIndexes) {
		t.Fatalf("%d GSIs, want %d", len(in.GlobalSecondaryIndexes), len(store.AllIndexes))
	}
	for i, d := range store.AllIndexes {
		g := in.GlobalSecondaryIndexes[i]
		if aws.ToString(g.IndexName) != d.Name || !sameKeys(g.KeySchema, d.Hash, d.Sort) {
			t.Errorf("GSI %d = %s %v, want %s (%s, %s)", i, aws.ToString(g.IndexName), g.KeySchema, d.Name, d.Hash, d.Sort)
		}
		if g.Projection.ProjectionType != types.ProjectionTypeInclude || !reflect.DeepEqual(g.Projection.NonKeyAttributes, d.Projection) {
			t.Errorf("GSI %s projection = %s %v, want INCLUDE %v", d.Name, g.Projection.ProjectionType, g.Projection.NonKeyAttributes, d.Projection)
		}
	}
	if in.BillingMode != types.BillingModePayPerRequest {
		t.Errorf("billing mode %s", in.BillingMode)
	}
}

func TestConvertRoundTrip(t *testing.T) {
	it := store.Item{"PK": store.S("a"), "SK": store.S("b"), "s": store.S(""), "n": store.N(-42), "big": store.N(1 << 62)}
	m, err := toAVMap(it)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m["n"].(*types.AttributeValueMemberN); !ok {
		t.Errorf("int64 became %T, want N", m["n"])
	}
	if _, ok := m["s"].(*types.AttributeValueMemberS); !ok {
		t.Errorf("string became %T, want S", m["s"])
	}
	back, err := fromAVMap(m)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, it) {
		t.Errorf("round trip = %v, want %v", back, it)
	}
	if _, err := toAV("v", store.Value{}); store.ErrorCode(err) != store.EINVALID {
		t.Errorf("the zero Value: %v, want EINVALID", err)
	}
	if _, err := fromAV("b", &types.AttributeValueMemberBOOL{Value: true}); store.ErrorCode(err) != store.EINTERNAL {
		t.Errorf("BOOL: %v, want EINTERNAL", err)
	}
	if _, err := fromAV("n", &types.AttributeValueMemberN{Value: "1.5"}); store.ErrorCode(err) != store.EINTERNAL {
		t.Errorf("N 1.5: %v, want EINTERNAL", err)
	}
	if _, err := keyAV(store.Key{PK: "a"}); store.ErrorCode(err) != store.EINVALID {
		t.Errorf("empty SK: %v, want EINVALID", err)
	}
}

func TestTranslate(t *testing.T) {
	ctx := context.Background()
	done, cancel := context.WithCancel(ctx)
	cancel()
	resp500 := &smithyhttp.ResponseError{Response: &smithyhttp.Response{Response: &http.Response{StatusCode: 500}}, Err: errors.New("boom")}
	reasons := func(codes ...string) []types.CancellationReason {
		var rs []types.CancellationReason
		for _, c := range codes {
			rs = append(rs, types.CancellationReason{Code: aws.String(c)})
		}
		return rs
	}
	for _, tc := range []struct {
		name string
		ctx  context.Context
		err  error
		code string
		op   int
	}{
		{"throttle", ctx, &types.ProvisionedThroughputExceededException{}, store.EUNAVAILABLE, -1},
		{"throttle after retries", ctx, &retry.MaxAttemptsError{Attempt: 10, Err: &types.ThrottlingException{}}, store.EUNAVAILABLE, -1},
		{"request limit", ctx, &types.RequestLimitExceeded{}, store.EUNAVAILABLE, -1},
		{"5xx", ctx, resp500, store.EUNAVAILABLE, -1},
		{"internal server error", ctx, &types.InternalServerError{}, store.EUNAVAILABLE, -1},
		{"send error", ctx, &smithyhttp.RequestSendError{Err: errors.New("connection refused")}, store.EUNAVAILABLE, -1},
		{"deadline", ctx, fmt.Errorf("op: %w", context.DeadlineExceeded), store.EUNAVAILABLE, -1},
		{"ctx done", done, errors.New("whatever"), store.EUNAVAILABLE, -1},
		{"no table", ctx, &types.ResourceNotFoundException{}, store.EUNAVAILABLE, -1},
		{"condition", ctx, &types.ConditionalCheckFailedException{}, store.ECONFLICT, 0},
		{"cancelled: condition", ctx, &types.TransactionCanceledException{CancellationReasons: reasons("None", "None", "ConditionalCheckFailed")}, store.ECONFLICT, 2},
		{"cancelled: conflict", ctx, &types.TransactionCanceledException{CancellationReasons: reasons("None", "TransactionConflict")}, store.ECONFLICT, -1},
		{"cancelled: throttled", ctx, &types.TransactionCanceledException{CancellationReasons: reasons("ThrottlingError", "None")}, store.EUNAVAILABLE, -1},
		{"conflict", ctx, &types.TransactionConflictException{}, store.ECONFLICT, -1},
		{"validation", ctx, &smithyAPIError{code: "ValidationException", msg: "Invalid KeyConditionExpression"}, store.EINTERNAL, -1},
		{"too large", ctx, &smithyAPIError{code: "ValidationException", msg: "Item size has exceeded the maximum allowed size"}, store.EINVALID, -1},
		{"other", ctx, errors.New("something else"), store.EINTERNAL, -1},
		{"store error kept", ctx, store.Errorf(store.ENOTFOUND, "x"), store.ENOTFOUND, -1},
	} {
		err := translate(tc.ctx, "Op", tc.err)
		var se *store.Error
		if !errors.As(err, &se) {
			t.Errorf("%s: %v is not a *store.Error", tc.name, err)
			continue
		}
		if se.Code != tc.code || se.Op != tc.op {
			t.Errorf("%s: code %s op %d, want %s op %d (%v)", tc.name, se.Code, se.Op, tc.code, tc.op, err)
		}
		if !errors.Is(err, tc.err) && tc.name != "store error kept" {
			t.Errorf("%s: cause lost: %v", tc.name, err)
		}
	}
}

type smithyAPIError struct{ code, msg string }

func (e *smithyAPIError) Error() string                 { return e.code + ": " + e.msg }
func (e *smithyAPIError) ErrorCode() string             { return e.code }
func (e *smithyAPIError) ErrorMessage() string          { return e.msg }
func (e *smithyAPIError) ErrorFault() smithy.ErrorFault { return smithy.FaultClient }

func TestRetryerClassifiesFaults(t *testing.T) {
	r := NewRetryer()
	if r.MaxAttempts() != MaxAttempts {
		t.Errorf("MaxAttempts = %d", r.MaxAttempts())
	}
	for _, err := range []error{
		&types.ProvisionedThroughputExceededException{},
		&types.ThrottlingException{},
		&types.RequestLimitExceeded{},
		&smithyhttp.ResponseError{Response: &smithyhttp.Response{Response: &http.Response{StatusCode: 503}}, Err: errors.New("x")},
		&smithyhttp.RequestSendError{Err: errors.New("connection reset")},
		&types.TransactionCanceledException{CancellationReasons: []types.CancellationReason{{Code: aws.String("None")}, {Code: aws.String("ThrottlingError")}}},
	} {
		if !r.IsErrorRetryable(err) {
			t.Errorf("%T (%v) not retryable", err, err)
		}
	}
	for _, err := range []error{
		&types.ConditionalCheckFailedException{},
		&types.TransactionCanceledException{CancellationReasons: []types.CancellationReason{{Code: aws.String("ConditionalCheckFailed")}, {Code: aws.String("ThrottlingError")}}},
		&types.ResourceNotFoundException{},
	} {
		if r.IsErrorRetryable(err) {
			t.Errorf("%T (%v) retryable", err, err)
		}
	}
}

func TestJitter(t *testing.T) {
	for attempt := 0; attempt < 40; attempt++ {
		for range 50 {
			d := jitter(attempt, 25*time.Millisecond, 2*time.Second)
			ceiling := min(2*time.Second, 25*time.Millisecond<<min(attempt, 20))
			if d < 0 || d >= ceiling {
				t.Fatalf("jitter(%d) = %v, want [0, %v)", attempt, d, ceiling)
			}
		}
	}
}

// TestArgumentValidation covers what Table rejects before any request.
func TestArgumentValidation(t *testing.T) {
	tbl := New(nil, "unused") // a request would panic on the nil client
	ctx := context.Background()
	for name, q := range map[string]store.Query{
		"unknown index": {Index: "nope", HashValue: "h", Limit: 1},
		"zero limit":    {HashValue: "h"},
		"empty hash":    {Limit: 1},
		"bad sort op":   {HashValue: "h", Limit: 1, SortOp: 99},
	} {
		if _, err := tbl.Query(ctx, q); store.ErrorCode(err) != store.EINVALID {
			t.Errorf("%s: %v, want EINVALID", name, err)
		}
	}
	if res, err := tbl.Query(ctx, store.Query{HashValue: "h", Limit: 1, SortOp: store.SortLess}); err != nil || len(res.Items) != 0 || res.LastKey != nil {
		t.Errorf("sort < \"\": %v %v, want empty", res, err)
	}
	k := store.Key{PK: "a", SK: "b"}
	for name, ops := range map[string][]store.Op{
		"too many":      make([]store.Op, store.MaxWriteOps+1),
		"bad kind":      {{Kind: 42, Key: k}},
		"put no item":   {{Kind: store.OpPut, Key: k}},
		"put wrong key": {{Kind: store.OpPut, Key: k, Item: store.Item{"PK": store.S("a"), "SK": store.S("c")}}},
		"empty update":  {{Kind: store.OpUpdate, Key: k}},
		"empty key":     {{Kind: store.OpDelete, Key: store.Key{PK: "a"}}},
		"bad cond":      {{Kind: store.OpDelete, Key: k, Conds: []store.Cond{{Kind: 9}}}},
		"bad value":     {{Kind: store.OpUpdate, Key: k, Set: store.Item{"x": {}}}},
		"put with add":  {{Kind: store.OpPut, Key: k, Item: store.Item{"PK": store.S("a"), "SK": store.S("b")}, Add: map[string]int64{"n": 1}}},
		"delete item":   {{Kind: store.OpDelete, Key: k, Item: store.Item{"PK": store.S("a"), "SK": store.S("b")}}},
		"update item":   {{Kind: store.OpUpdate, Key: k, Item: store.Item{"PK": store.S("a"), "SK": store.S("b")}, Set: store.Item{"x": store.S("y")}}},
		"update PK":     {{Kind: store.OpUpdate, Key: k, Set: store.Item{"PK": store.S("z")}}},
		"twice":         {{Kind: store.OpUpdate, Key: k, Set: store.Item{"x": store.S("y")}, Remove: []string{"x"}}},
		"add to GSIPK":  {{Kind: store.OpUpdate, Key: k, Add: map[string]int64{store.AttrGSIPK: 1}}},
		"int GSISK":     {{Kind: store.OpUpdate, Key: k, Set: store.Item{store.AttrGSISK: store.N(1)}}},
		"empty GSIPK":   {{Kind: store.OpPut, Key: k, Item: store.Item{"PK": store.S("a"), "SK": store.S("b"), store.AttrGSIPK: store.S("")}}},
		"long PK":       {{Kind: store.OpDelete, Key: store.Key{PK: strings.Repeat("x", 2049), SK: "b"}}},
		"cond value":    {{Kind: store.OpDelete, Key: k, Conds: []store.Cond{{Kind: store.CondEquals, Attr: "x"}}}},
		"cond no attr":  {{Kind: store.OpDelete, Key: k, Conds: []store.Cond{{Kind: store.CondAbsent}}}},
		"empty name":    {{Kind: store.OpUpdate, Key: k, Remove: []string{""}}},
	} {
		if err := tbl.Write(ctx, ops); store.ErrorCode(err) != store.EINVALID {
			t.Errorf("%s: %v, want EINVALID", name, err)
		}
		// The same op as one of several (a transaction) is invalid too.
		if len(ops) == 1 {
			two := append(ops, store.Op{Kind: store.OpDelete, Key: store.Key{PK: "other", SK: "x"}})
			if err := tbl.Write(ctx, two); store.ErrorCode(err) != store.EINVALID {
				t.Errorf("%s in a transaction: %v, want EINVALID", name, err)
			}
		}
	}
	for name, items := range map[string][]store.Item{
		"no SK":       {{"PK": store.S("a")}},
		"nil":         {nil},
		"bad value":   {{"PK": store.S("a"), "SK": store.S("b"), "f": {}}},
		"empty GSISK": {{"PK": store.S("a"), "SK": store.S("b"), store.AttrGSISK: store.S("")}},
	} {
		if err := tbl.BatchPut(ctx, items); store.ErrorCode(err) != store.EINVALID {
			t.Errorf("BatchPut %s: %v, want EINVALID", name, err)
		}
	}
	if _, err := tbl.Get(ctx, store.Key{PK: "a"}); store.ErrorCode(err) != store.EINVALID {
		t.Errorf("Get with an empty SK: %v", err)
	}
	if _, _, err := tbl.Scan(ctx, 0, 1, nil, 0); store.ErrorCode(err) != store.EINVALID {
		t.Errorf("Scan with limit 0: %v", err)
	}
	for _, seg := range [][2]int{{1, 1}, {-1, 2}, {2, 2}} {
		if _, _, err := tbl.Scan(ctx, seg[0], seg[1], nil, 1); store.ErrorCode(err) != store.EINVALID {
			t.Errorf("Scan segment %d of %d: %v", seg[0], seg[1], err)
		}
	}
	if err := tbl.Write(ctx, nil); err != nil {
		t.Errorf("empty write: %v", err)
	}
	if items, err := tbl.BatchGet(ctx, nil); err != nil || len(items) != 0 {
		t.Errorf("empty BatchGet: %v %v", items, err)
	}
	if err := tbl.BatchPut(ctx, nil); err != nil {
		t.Errorf("empty BatchPut: %v", err)
	}
}
