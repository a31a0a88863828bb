package dynamo

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/acme/comments-gateway/store/table"
)

// DynamoDB limits.
const (
	maxBatchGet      = 100 // keys of one BatchGetItem
	maxBatchWrite    = 25  // put requests of one BatchWriteItem
	maxTransactItems = 100 // items of one TransactWriteItems
	// maxParallel bounds the batch calls one BatchGet or BatchPut runs at
	// once.
	maxParallel = 8
)

// Table is a table.Table on one DynamoDB table. It is safe for concurrent
// use. Each of its calls is accounted (table.Account) with the read
// capacity DynamoDB reports it consumed.
type Table struct {
	client Client
	name   string
	// progress, when set, is told of each index CreateTable replaces or
	// adds, before the wait (see ReportIndexChanges).
	progress func(msg string)
}

var _ table.Table = (*Table)(nil)

// New returns a Table on the DynamoDB table named table, using client for
// every request. Retries of throttled or failed requests are the client's
// (see NewRetryer, which Open installs).
func New(client Client, name string) *Table {
	return &Table{client: client, name: name}
}

// ReportIndexChanges makes CreateTable call f with a line about each index
// it replaces or adds, before it waits for DynamoDB to build it: on a large
// table that takes minutes, which a command should not spend silent.
func (t *Table) ReportIndexChanges(f func(msg string)) { t.progress = f }

// report calls the progress function, if any, with the formatted line.
func (t *Table) report(format string, args ...any) {
	if t.progress != nil {
		t.progress(fmt.Sprintf(format, args...))
	}
}

// Name returns the name of the DynamoDB table.
func (t *Table) Name() string { return t.name }

// Close releases nothing: the SDK client needs no closing. It exists to
// satisfy table.Table.
func (t *Table) Close() error { return nil }

// sum returns the sum of xs.
func sum(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s
}

// units returns the capacity units of DynamoDB's ConsumedCapacity reports
// (each nil or TOTAL).
func units(cc ...*types.ConsumedCapacity) float64 {
	var u float64
	for _, c := range cc {
		if c != nil {
			u += aws.ToFloat64(c.CapacityUnits)
		}
	}
	return u
}

// Get returns the item with key k, or nil when it does not exist. The read
// is strongly consistent.
func (t *Table) Get(ctx context.Context, k table.Key) (it table.Item, err error) {
	var rcu float64
	defer func() { table.Account(ctx, table.Call{Op: table.CallGet, Items: table.Found(it), ReadCapacity: rcu}) }()
	key, err := keyAV(k)
	if err != nil {
		return nil, err
	}
	out, err := t.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:              aws.String(t.name),
		Key:                    key,
		ConsistentRead:         aws.Bool(true),
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
	}, readCall)
	if err != nil {
		return nil, translate(ctx, "GetItem", err)
	}
	rcu = units(out.ConsumedCapacity)
	return fromAVMap(out.Item)
}

// Query runs a key-condition query on the base table (q.Index "") or on
// one of table.Indexes: equality on the hash attribute and the optional sort
// condition, in the direction and up to the limit asked, from q.StartKey.
// It never filters. Base-table queries are strongly consistent (index
// queries cannot be). LastKey is DynamoDB's LastEvaluatedKey: non-nil when
// the limit or DynamoDB's 1 MB page stopped the query.
func (t *Table) Query(ctx context.Context, q table.Query) (res table.QueryResult, err error) {
	var rcu float64
	defer func() {
		table.Account(ctx, table.Call{Op: table.CallQuery, Index: q.Index, Items: len(res.Items), ReadCapacity: rcu})
	}()
	in, none, err := t.queryInput(q)
	if err != nil || none {
		return table.QueryResult{}, err
	}
	out, err := t.client.Query(ctx, in, readCall)
	if err != nil {
		return table.QueryResult{}, translate(ctx, "Query", err)
	}
	rcu = units(out.ConsumedCapacity)
	items, err := fromAVMaps(out.Items)
	if err != nil {
		return table.QueryResult{}, err
	}
	last, err := fromAVMap(out.LastEvaluatedKey)
	if err != nil {
		return table.QueryResult{}, err
	}
	return table.QueryResult{Items: items, LastKey: last}, nil
}

// queryInput checks q and builds its request; none reports a query that
// cannot match anything (sort less than ""), which is not sent.
func (t *Table) queryInput(q table.Query) (in *dynamodb.QueryInput, none bool, err error) {
	hash, sort := table.AttrPK, table.AttrSK
	if q.Index != "" {
		def, ok := table.IndexByName(q.Index)
		if !ok {
			return nil, false, table.Errorf(table.EINVALID, "query: unknown index %q", q.Index)
		}
		hash, sort = def.Hash, def.Sort
	}
	if q.Limit <= 0 {
		return nil, false, table.Errorf(table.EINVALID, "query: limit must be > 0, got %d", q.Limit)
	}
	if q.HashValue == "" {
		return nil, false, table.Errorf(table.EINVALID, "query: empty %s value", hash)
	}
	kc, none, err := keyCondition(expression.Key(hash).Equal(expression.Value(q.HashValue)), sort, q)
	if err != nil || none {
		return nil, none, err
	}
	expr, err := expression.NewBuilder().WithKeyCondition(kc).Build()
	if err != nil {
		return nil, false, table.Wrap(table.EINTERNAL, err, "query: build the key condition")
	}
	startKey, err := toAVMap(q.StartKey)
	if err != nil {
		return nil, false, err
	}
	in = &dynamodb.QueryInput{
		TableName:                 aws.String(t.name),
		KeyConditionExpression:    expr.KeyCondition(),
		ExpressionAttributeNames:  expr.Names(),
		ExpressionAttributeValues: expr.Values(),
		ScanIndexForward:          aws.Bool(q.Forward),
		Limit:                     aws.Int32(int32(min(q.Limit, 1<<30))),
		ExclusiveStartKey:         startKey,
		ReturnConsumedCapacity:    types.ReturnConsumedCapacityTotal,
	}
	if q.Index != "" {
		in.IndexName = aws.String(q.Index)
	} else {
		in.ConsistentRead = aws.Bool(true)
	}
	return in, false, nil
}

// keyCondition adds q's sort condition on attribute sort to kc, the hash
// equality. An empty sort value bounds nothing, except that nothing sorts
// before it (none).
func keyCondition(kc expression.KeyConditionBuilder, sort string, q table.Query) (_ expression.KeyConditionBuilder, none bool, _ error) {
	switch q.SortOp {
	case table.SortNone:
	case table.SortLess:
		if q.SortValue == "" { // nothing sorts before ""
			return kc, true, nil
		}
		kc = kc.And(expression.Key(sort).LessThan(expression.Value(q.SortValue)))
	case table.SortGreater:
		if q.SortValue != "" { // everything sorts after ""
			kc = kc.And(expression.Key(sort).GreaterThan(expression.Value(q.SortValue)))
		}
	case table.SortBeginsWith:
		if q.SortValue != "" { // every value begins with ""
			kc = kc.And(expression.Key(sort).BeginsWith(q.SortValue))
		}
	default:
		return kc, false, table.Errorf(table.EINVALID, "query: unknown sort condition %d", q.SortOp)
	}
	return kc, false, nil
}

// Scan reads segment seg of total segments of the base table (a parallel
// scan; total <= 1 scans the whole table as one segment): up to limit > 0
// items (fewer when DynamoDB's 1 MB page ends first) after startKey, and the
// key to continue from (nil when the segment is done).
// The read is strongly consistent. Only rebuild-stats scans.
func (t *Table) Scan(ctx context.Context, seg, total int, startKey table.Item, limit int) (items []table.Item, last table.Item, err error) {
	var rcu float64
	defer func() { table.Account(ctx, table.Call{Op: table.CallScan, Items: len(items), ReadCapacity: rcu}) }()
	in := &dynamodb.ScanInput{
		TableName:              aws.String(t.name),
		ConsistentRead:         aws.Bool(true),
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
	}
	total = max(total, 1)
	if seg < 0 || seg >= total || total > 1_000_000 {
		return nil, nil, table.Errorf(table.EINVALID, "scan: segment %d of %d", seg, total)
	}
	if total > 1 {
		in.Segment, in.TotalSegments = aws.Int32(int32(seg)), aws.Int32(int32(total))
	}
	if limit <= 0 {
		return nil, nil, table.Errorf(table.EINVALID, "scan: limit must be > 0, got %d", limit)
	}
	in.Limit = aws.Int32(int32(min(limit, 1<<30)))
	if in.ExclusiveStartKey, err = toAVMap(startKey); err != nil {
		return nil, nil, err
	}
	out, err := t.client.Scan(ctx, in, readCall)
	if err != nil {
		return nil, nil, translate(ctx, "Scan", err)
	}
	rcu = units(out.ConsumedCapacity)
	if items, err = fromAVMaps(out.Items); err != nil {
		return nil, nil, err
	}
	if last, err = fromAVMap(out.LastEvaluatedKey); err != nil {
		return nil, nil, err
	}
	return items, last, nil
}
