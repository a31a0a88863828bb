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

	"github.com/acme/comments-gateway/store/table"
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
	if len(in.GlobalSecondaryIndexes) != len(table.AllIndexes) {
		t.Fatalf("%d GSIs, want %d", len(in.GlobalSecondaryIndexes), len(table.AllIndexes))
	}
	for i, d := range table.AllIndexes {
		g := in.GlobalSecondaryIndexes[i]
		if aws.ToString(g.IndexName) != d.Name || !sameKeys(g.KeySchema, d.Hash, d.Sort) {
			t.Errorf("GSI %d = %s %v, want %s (%s, %s)", i, aws.ToString(g.IndexName), g.KeySchema, d.Name, d.Hash, d.Sort)
		}
		checkProjection(t, d, g.Projection)
	}
	if in.BillingMode != types.BillingModePayPerRequest {
		t.Errorf("billing mode %s", in.BillingMode)
	}
}

// checkProjection checks that p, of index d, is ALL when d projects all,
// else INCLUDE d.Projection, in order.
func checkProjection(t *testing.T, d table.IndexDef, p *types.Projection) {
	t.Helper()
	switch {
	case p == nil:
		t.Errorf("index %s: no projection", d.Name)
	case d.ProjectAll && (p.ProjectionType != types.ProjectionTypeAll || len(p.NonKeyAttributes) > 0):
		t.Errorf("index %s projection = %s %v, want ALL", d.Name, p.ProjectionType, p.NonKeyAttributes)
	case !d.ProjectAll && (p.ProjectionType != types.ProjectionTypeInclude || !reflect.DeepEqual(p.NonKeyAttributes, d.Projection)):
		t.Errorf("index %s projection = %s %v, want INCLUDE %v", d.Name, p.ProjectionType, p.NonKeyAttributes, d.Projection)
	}
}

// TestProjectedAttributesFitDynamoDB: the NonKeyAttributes of every
// INCLUDE index, summed with repeats, stay within DynamoDB's limit
// (table.MaxProjected) with room for a future attribute (at most 90)
// (DynamoDB Local enforces the same sum, with a message that says "20
// attributes ... Local Secondary Indices"); no index includes more than
// 20 (the API's limit per index).
func TestProjectedAttributesFitDynamoDB(t *testing.T) {
	sum := 0
	for _, g := range CreateTableInput("x", true).GlobalSecondaryIndexes {
		if g.Projection.ProjectionType != types.ProjectionTypeInclude {
			continue
		}
		if n := len(g.Projection.NonKeyAttributes); n > 20 {
			t.Errorf("index %s includes %d attributes, more than 20", aws.ToString(g.IndexName), n)
		}
		sum += len(g.Projection.NonKeyAttributes)
	}
	if sum > table.MaxProjected-10 {
		t.Errorf("the INCLUDE indexes project %d attributes in all, want at most %d (DynamoDB allows %d)", sum, table.MaxProjected-10, table.MaxProjected)
	}
	t.Logf("NonKeyAttributes: %d in all", sum)
}

func TestConvertRoundTrip(t *testing.T) {
	it := table.Item{"PK": table.S("a"), "SK": table.S("b"), "s": table.S(""), "n": table.N(-42), "big": table.N(1 << 62)}
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
	if _, err := toAV("v", table.Value{}); table.ErrorCode(err) != table.EINVALID {
		t.Errorf("the zero Value: %v, want EINVALID", err)
	}
	if _, err := fromAV("b", &types.AttributeValueMemberBOOL{Value: true}); table.ErrorCode(err) != table.EINTERNAL {
		t.Errorf("BOOL: %v, want EINTERNAL", err)
	}
	if _, err := fromAV("n", &types.AttributeValueMemberN{Value: "1.5"}); table.ErrorCode(err) != table.EINTERNAL {
		t.Errorf("N 1.5: %v, want EINTERNAL", err)
	}
	if _, err := keyAV(table.Key{PK: "a"}); table.ErrorCode(err) != table.EINVALID {
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
		{"throttle", ctx, &types.ProvisionedThroughputExceededException{}, table.EUNAVAILABLE, -1},
		{"throttle after retries", ctx, &retry.MaxAttemptsError{Attempt: 10, Err: &types.ThrottlingException{}}, table.EUNAVAILABLE, -1},
		{"request limit", ctx, &types.RequestLimitExceeded{}, table.EUNAVAILABLE, -1},
		{"5xx", ctx, resp500, table.EUNAVAILABLE, -1},
		{"internal server error", ctx, &types.InternalServerError{}, table.EUNAVAILABLE, -1},
		{"send error", ctx, &smithyhttp.RequestSendError{Err: errors.New("connection refused")}, table.EUNAVAILABLE, -1},
		{"deadline", ctx, fmt.Errorf("op: %w", context.DeadlineExceeded), table.EUNAVAILABLE, -1},
		{"ctx done", done, errors.New("whatever"), table.EUNAVAILABLE, -1},
		{"no table", ctx, &types.ResourceNotFoundException{}, table.EUNAVAILABLE, -1},
		{"condition", ctx, &types.ConditionalCheckFailedException{}, table.ECONFLICT, 0},
		{"cancelled: condition", ctx, &types.TransactionCanceledException{CancellationReasons: reasons("None", "None", "ConditionalCheckFailed")}, table.ECONFLICT, 2},
		{"cancelled: conflict", ctx, &types.TransactionCanceledException{CancellationReasons: reasons("None", "TransactionConflict")}, table.ECONFLICT, -1},
		{"cancelled: throttled", ctx, &types.TransactionCanceledException{CancellationReasons: reasons("ThrottlingError", "None")}, table.EUNAVAILABLE, -1},
		{"conflict", ctx, &types.TransactionConflictException{}, table.ECONFLICT, -1},
		{"validation", ctx, &smithyAPIError{code: "ValidationException", msg: "Invalid KeyConditionExpression"}, table.EINTERNAL, -1},
		{"too large", ctx, &smithyAPIError{code: "ValidationException", msg: "Item size has exceeded the maximum allowed size"}, table.EINVALID, -1},
		{"other", ctx, errors.New("something else"), table.EINTERNAL, -1},
		{"store error kept", ctx, table.Errorf(table.ENOTFOUND, "x"), table.ENOTFOUND, -1},
	} {
		err := translate(tc.ctx, "Op", tc.err)
		var se *table.Error
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
	for name, q := range map[string]table.Query{
		"unknown index": {Index: "nope", HashValue: "h", Limit: 1},
		"zero limit":    {HashValue: "h"},
		"empty hash":    {Limit: 1},
		"bad sort op":   {HashValue: "h", Limit: 1, SortOp: 99},
	} {
		if _, err := tbl.Query(ctx, q); table.ErrorCode(err) != table.EINVALID {
			t.Errorf("%s: %v, want EINVALID", name, err)
		}
	}
	if res, err := tbl.Query(ctx, table.Query{HashValue: "h", Limit: 1, SortOp: table.SortLess}); err != nil || len(res.Items) != 0 || res.LastKey != nil {
		t.Errorf("sort < \"\": %v %v, want empty", res, err)
	}
	k := table.Key{PK: "a", SK: "b"}
	for name, ops := range map[string][]table.Op{
		"too many":      make([]table.Op, table.MaxWriteOps+1),
		"bad kind":      {{Kind: 42, Key: k}},
		"put no item":   {{Kind: table.OpPut, Key: k}},
		"put wrong key": {{Kind: table.OpPut, Key: k, Item: table.Item{"PK": table.S("a"), "SK": table.S("c")}}},
		"empty update":  {{Kind: table.OpUpdate, Key: k}},
		"empty key":     {{Kind: table.OpDelete, Key: table.Key{PK: "a"}}},
		"bad cond":      {{Kind: table.OpDelete, Key: k, Conds: []table.Cond{{Kind: 9}}}},
		"bad value":     {{Kind: table.OpUpdate, Key: k, Set: table.Item{"x": {}}}},
		"put with add":  {{Kind: table.OpPut, Key: k, Item: table.Item{"PK": table.S("a"), "SK": table.S("b")}, Add: map[string]int64{"n": 1}}},
		"delete item":   {{Kind: table.OpDelete, Key: k, Item: table.Item{"PK": table.S("a"), "SK": table.S("b")}}},
		"update item":   {{Kind: table.OpUpdate, Key: k, Item: table.Item{"PK": table.S("a"), "SK": table.S("b")}, Set: table.Item{"x": table.S("y")}}},
		"update PK":     {{Kind: table.OpUpdate, Key: k, Set: table.Item{"PK": table.S("z")}}},
		"twice":         {{Kind: table.OpUpdate, Key: k, Set: table.Item{"x": table.S("y")}, Remove: []string{"x"}}},
		"add to GSIPK":  {{Kind: table.OpUpdate, Key: k, Add: map[string]int64{table.AttrGSIPK: 1}}},
		"int GSISK":     {{Kind: table.OpUpdate, Key: k, Set: table.Item{table.AttrGSISK: table.N(1)}}},
		"empty GSIPK":   {{Kind: table.OpPut, Key: k, Item: table.Item{"PK": table.S("a"), "SK": table.S("b"), table.AttrGSIPK: table.S("")}}},
		"long PK":       {{Kind: table.OpDelete, Key: table.Key{PK: strings.Repeat("x", 2049), SK: "b"}}},
		"cond value":    {{Kind: table.OpDelete, Key: k, Conds: []table.Cond{{Kind: table.CondEquals, Attr: "x"}}}},
		"cond no attr":  {{Kind: table.OpDelete, Key: k, Conds: []table.Cond{{Kind: table.CondAbsent}}}},
		"empty name":    {{Kind: table.OpUpdate, Key: k, Remove: []string{""}}},
	} {
		if err := tbl.Write(ctx, ops); table.ErrorCode(err) != table.EINVALID {
			t.Errorf("%s: %v, want EINVALID", name, err)
		}
		// The same op as one of several (a transaction) is invalid too.
		if len(ops) == 1 {
			two := append(ops, table.Op{Kind: table.OpDelete, Key: table.Key{PK: "other", SK: "x"}})
			if err := tbl.Write(ctx, two); table.ErrorCode(err) != table.EINVALID {
				t.Errorf("%s in a transaction: %v, want EINVALID", name, err)
			}
		}
	}
	for name, items := range map[string][]table.Item{
		"no SK":       {{"PK": table.S("a")}},
		"nil":         {nil},
		"bad value":   {{"PK": table.S("a"), "SK": table.S("b"), "f": {}}},
		"empty GSISK": {{"PK": table.S("a"), "SK": table.S("b"), table.AttrGSISK: table.S("")}},
	} {
		if err := tbl.BatchPut(ctx, items); table.ErrorCode(err) != table.EINVALID {
			t.Errorf("BatchPut %s: %v, want EINVALID", name, err)
		}
	}
	if _, err := tbl.Get(ctx, table.Key{PK: "a"}); table.ErrorCode(err) != table.EINVALID {
		t.Errorf("Get with an empty SK: %v", err)
	}
	if _, _, err := tbl.Scan(ctx, 0, 1, nil, 0); table.ErrorCode(err) != table.EINVALID {
		t.Errorf("Scan with limit 0: %v", err)
	}
	for _, seg := range [][2]int{{1, 1}, {-1, 2}, {2, 2}} {
		if _, _, err := tbl.Scan(ctx, seg[0], seg[1], nil, 1); table.ErrorCode(err) != table.EINVALID {
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
