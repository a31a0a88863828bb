package dynamo

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/acme/comments-gateway/store"
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

// Table is a store.Table on one DynamoDB table. It is safe for concurrent
// use. Each of its calls is accounted (store.Account) with the read
// capacity DynamoDB reports it consumed.
type Table struct {
	client Client
	name   string
}

var _ store.Table = (*Table)(nil)

// New returns a Table on the DynamoDB table named table, using client for
// every request. Retries of throttled or failed requests are the client's
// (see NewRetryer, which Open installs).
func New(client Client, table string) *Table {
	return &Table{client: client, name: table}
}

// Name returns the name of the DynamoDB table.
func (t *Table) Name() string { return t.name }

// Close releases nothing: the SDK client needs no closing. It exists to
// satisfy store.Table.
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
func (t *Table) Get(ctx context.Context, k store.Key) (it store.Item, err error) {
	var rcu float64
	defer func() { store.Account(ctx, store.Call{Op: store.CallGet, Items: store.Found(it), ReadCapacity: rcu}) }()
	key, err := keyAV(k)
	if err != nil {
		return nil, err
	}
	out, err := t.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:              aws.String(t.name),
		Key:                    key,
		ConsistentRead:         aws.Bool(true),
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
	})
	if err != nil {
		return nil, translate(ctx, "GetItem", err)
	}
	rcu = units(out.ConsumedCapacity)
	return fromAVMap(out.Item)
}

// BatchGet returns the items of keys, aligned with keys (nil where an item
// does not exist). Duplicate keys are read once. The keys are read in
// BatchGetItem calls of at most 100 keys, up to 8 at once; keys DynamoDB
// leaves unprocessed are requested again with jittered exponential backoff
// until all are read or ctx is done. Reads are strongly consistent, like
// Get.
func (t *Table) BatchGet(ctx context.Context, keys []store.Key) (out []store.Item, err error) {
	chunkRCU := make([]float64, (len(keys)+maxBatchGet-1)/maxBatchGet) // per chunk: they run in parallel
	defer func() {
		store.Account(ctx, store.Call{Op: store.CallBatchGet, Items: store.Found(out...), ReadCapacity: sum(chunkRCU)})
	}()
	out = make([]store.Item, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	// Distinct keys in first-seen order: BatchGetItem rejects duplicates.
	pos := make(map[store.Key][]int, len(keys))
	var distinct []store.Key
	for i, k := range keys {
		if _, ok := pos[k]; !ok {
			distinct = append(distinct, k)
		}
		pos[k] = append(pos[k], i)
	}
	avs := make([]map[string]types.AttributeValue, len(distinct))
	for i, k := range distinct {
		av, err := keyAV(k)
		if err != nil {
			return nil, err
		}
		avs[i] = av
	}

	found := make([][]map[string]types.AttributeValue, (len(avs)+maxBatchGet-1)/maxBatchGet)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(maxParallel)
	for c := range found {
		chunk := avs[c*maxBatchGet : min((c+1)*maxBatchGet, len(avs))]
		g.Go(func() error {
			items, rcu, err := t.batchGetChunk(gctx, chunk)
			found[c], chunkRCU[c] = items, rcu
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return nil, translate(ctx, "BatchGetItem", err)
	}
	for _, items := range found {
		for _, m := range items {
			it, err := fromAVMap(m)
			if err != nil {
				return nil, err
			}
			for j, i := range pos[it.Key()] {
				if j == 0 {
					out[i] = it
				} else {
					out[i] = cloneItem(it) // one map per position: callers may modify them
				}
			}
		}
	}
	return out, nil
}

// batchGetChunk reads at most maxBatchGet keys, retrying unprocessed keys.
// It returns the items and the read capacity its calls consumed.
func (t *Table) batchGetChunk(ctx context.Context, keys []map[string]types.AttributeValue) ([]map[string]types.AttributeValue, float64, error) {
	var rcu float64
	var items []map[string]types.AttributeValue
	req := map[string]types.KeysAndAttributes{
		t.name: {Keys: keys, ConsistentRead: aws.Bool(true)},
	}
	for attempt := 0; ; attempt++ {
		res, err := t.client.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{
			RequestItems:           req,
			ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
		})
		if err != nil {
			return nil, rcu, translate(ctx, "BatchGetItem", err)
		}
		for _, c := range res.ConsumedCapacity {
			rcu += units(&c)
		}
		items = append(items, res.Responses[t.name]...)
		next, ok := res.UnprocessedKeys[t.name]
		if !ok || len(next.Keys) == 0 {
			return items, rcu, nil
		}
		req = map[string]types.KeysAndAttributes{t.name: next}
		if err := sleep(ctx, jitter(attempt, unprocessedBase, unprocessedMax)); err != nil {
			return nil, rcu, store.Wrap(store.EUNAVAILABLE, err, "DynamoDB BatchGetItem: %d keys still unprocessed at the request's deadline", len(next.Keys))
		}
	}
}

func cloneItem(it store.Item) store.Item {
	c := make(store.Item, len(it))
	for k, v := range it {
		c[k] = v
	}
	return c
}

// Query runs a key-condition query on the base table (q.Index "") or on
// one of store.Indexes: equality on the hash attribute and the optional sort
// condition, in the direction and up to the limit asked, from q.StartKey.
// It never filters. Base-table queries are strongly consistent (index
// queries cannot be). LastKey is DynamoDB's LastEvaluatedKey: non-nil when
// the limit or DynamoDB's 1 MB page stopped the query.
func (t *Table) Query(ctx context.Context, q store.Query) (res store.QueryResult, err error) {
	var rcu float64
	defer func() {
		store.Account(ctx, store.Call{Op: store.CallQuery, Index: q.Index, Items: len(res.Items), ReadCapacity: rcu})
	}()
	hash, sort := store.AttrPK, store.AttrSK
	if q.Index != "" {
		def, ok := store.IndexByName(q.Index)
		if !ok {
			return store.QueryResult{}, store.Errorf(store.EINVALID, "query: unknown index %q", q.Index)
		}
		hash, sort = def.Hash, def.Sort
	}
	if q.Limit <= 0 {
		return store.QueryResult{}, store.Errorf(store.EINVALID, "query: limit must be > 0, got %d", q.Limit)
	}
	if q.HashValue == "" {
		return store.QueryResult{}, store.Errorf(store.EINVALID, "query: empty %s value", hash)
	}
	kc := expression.Key(hash).Equal(expression.Value(q.HashValue))
	switch q.SortOp {
	case store.SortNone:
	case store.SortLess:
		if q.SortValue == "" { // nothing sorts before ""
			return store.QueryResult{}, nil
		}
		kc = kc.And(expression.Key(sort).LessThan(expression.Value(q.SortValue)))
	case store.SortGreater:
		if q.SortValue != "" { // everything sorts after ""
			kc = kc.And(expression.Key(sort).GreaterThan(expression.Value(q.SortValue)))
		}
	case store.SortBeginsWith:
		if q.SortValue != "" { // every value begins with ""
			kc = kc.And(expression.Key(sort).BeginsWith(q.SortValue))
		}
	default:
		return store.QueryResult{}, store.Errorf(store.EINVALID, "query: unknown sort condition %d", q.SortOp)
	}
	expr, err := expression.NewBuilder().WithKeyCondition(kc).Build()
	if err != nil {
		return store.QueryResult{}, store.Wrap(store.EINTERNAL, err, "query: build the key condition")
	}
	startKey, err := toAVMap(q.StartKey)
	if err != nil {
		return store.QueryResult{}, err
	}
	in := &dynamodb.QueryInput{
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
	out, err := t.client.Query(ctx, in)
	if err != nil {
		return store.QueryResult{}, translate(ctx, "Query", err)
	}
	rcu = units(out.ConsumedCapacity)
	if len(out.Items) > 0 {
		res.Items = make([]store.Item, len(out.Items))
	}
	for i, m := range out.Items {
		if res.Items[i], err = fromAVMap(m); err != nil {
			return store.QueryResult{}, err
		}
	}
	if res.LastKey, err = fromAVMap(out.LastEvaluatedKey); err != nil {
		return store.QueryResult{}, err
	}
	return res, nil
}

// Scan reads segment seg of total segments of the base table (a parallel
// scan; total <= 1 scans the whole table as one segment): up to limit > 0
// items (fewer when DynamoDB's 1 MB page ends first) after startKey, and the
// key to continue from (nil when the segment is done).
// The read is strongly consistent. Only rebuild-stats scans.
func (t *Table) Scan(ctx context.Context, seg, total int, startKey store.Item, limit int) (items []store.Item, last store.Item, err error) {
	var rcu float64
	defer func() { store.Account(ctx, store.Call{Op: store.CallScan, Items: len(items), ReadCapacity: rcu}) }()
	in := &dynamodb.ScanInput{
		TableName:              aws.String(t.name),
		ConsistentRead:         aws.Bool(true),
		ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
	}
	total = max(total, 1)
	if seg < 0 || seg >= total || total > 1_000_000 {
		return nil, nil, store.Errorf(store.EINVALID, "scan: segment %d of %d", seg, total)
	}
	if total > 1 {
		in.Segment, in.TotalSegments = aws.Int32(int32(seg)), aws.Int32(int32(total))
	}
	if limit <= 0 {
		return nil, nil, store.Errorf(store.EINVALID, "scan: limit must be > 0, got %d", limit)
	}
	in.Limit = aws.Int32(int32(min(limit, 1<<30)))
	if in.ExclusiveStartKey, err = toAVMap(startKey); err != nil {
		return nil, nil, err
	}
	out, err := t.client.Scan(ctx, in)
	if err != nil {
		return nil, nil, translate(ctx, "Scan", err)
	}
	rcu = units(out.ConsumedCapacity)
	if len(out.Items) > 0 {
		items = make([]store.Item, len(out.Items))
	}
	for i, m := range out.Items {
		if items[i], err = fromAVMap(m); err != nil {
			return nil, nil, err
		}
	}
	if last, err = fromAVMap(out.LastEvaluatedKey); err != nil {
		return nil, nil, err
	}
	return items, last, nil
}
