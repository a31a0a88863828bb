package dynamo

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/acme/comments-gateway/store/table"
)

// The batched calls: BatchGetItem and BatchWriteItem, chunked to DynamoDB's
// limits, run in parallel, and repeated for what DynamoDB leaves
// unprocessed.

// BatchGet returns the items of keys, aligned with keys (nil where an item
// does not exist). Duplicate keys are read once. The keys are read in
// BatchGetItem calls of at most 100 keys, up to 8 at once; keys DynamoDB
// leaves unprocessed are requested again with jittered exponential backoff
// until all are read or ctx is done. Reads are strongly consistent, like
// Get.
func (t *Table) BatchGet(ctx context.Context, keys []table.Key) (out []table.Item, err error) {
	chunkRCU := make([]float64, (len(keys)+maxBatchGet-1)/maxBatchGet) // per chunk: they run in parallel
	defer func() {
		table.Account(ctx, table.Call{Op: table.CallBatchGet, Items: table.Found(out...), ReadCapacity: sum(chunkRCU)})
	}()
	out = make([]table.Item, len(keys))
	if len(keys) == 0 {
		return out, nil
	}
	// Distinct keys in first-seen order: BatchGetItem rejects duplicates.
	pos := make(map[table.Key][]int, len(keys))
	var distinct []table.Key
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
		}, readCall)
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
			return nil, rcu, table.Wrap(table.EUNAVAILABLE, err, "DynamoDB BatchGetItem: %d keys still unprocessed at the request's deadline", len(next.Keys))
		}
	}
}

func cloneItem(it table.Item) table.Item {
	c := make(table.Item, len(it))
	for k, v := range it {
		c[k] = v
	}
	return c
}

// BatchPut writes whole items, not atomically as a group: BatchWriteItem
// calls of at most 25 items, up to 8 at once; items DynamoDB leaves
// unprocessed are written again with jittered exponential backoff until all
// are written or ctx is done. When several items have the same key, the last
// one wins (as if they were put one after another).
func (t *Table) BatchPut(ctx context.Context, items []table.Item) error {
	defer table.Account(ctx, table.Call{Op: table.CallBatchPut})
	// Last item per key, in first-seen order: BatchWriteItem rejects
	// duplicate keys in one call.
	last := make(map[table.Key]int, len(items))
	var order []table.Key
	for i, it := range items {
		k := it.Key()
		if _, ok := last[k]; !ok {
			order = append(order, k)
		}
		last[k] = i
	}
	for _, it := range items {
		if err := table.ValidateItem(it); err != nil {
			return err
		}
	}
	reqs := make([]types.WriteRequest, len(order))
	for i, k := range order {
		m, err := toAVMap(items[last[k]])
		if err != nil {
			return err
		}
		reqs[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: m}}
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(maxParallel)
	for start := 0; start < len(reqs); start += maxBatchWrite {
		chunk := reqs[start:min(start+maxBatchWrite, len(reqs))]
		g.Go(func() error { return t.batchWriteChunk(gctx, chunk) })
	}
	if err := g.Wait(); err != nil {
		return translate(ctx, "BatchWriteItem", err)
	}
	return nil
}

// batchWriteChunk writes at most maxBatchWrite items, retrying unprocessed
// items.
func (t *Table) batchWriteChunk(ctx context.Context, reqs []types.WriteRequest) error {
	for attempt := 0; ; attempt++ {
		out, err := t.client.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{
			RequestItems:           map[string][]types.WriteRequest{t.name: reqs},
			ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal, // for the metrics (metrics.DynamoDBCalls)
		})
		if err != nil {
			return translate(ctx, "BatchWriteItem", err)
		}
		next := out.UnprocessedItems[t.name]
		if len(next) == 0 {
			return nil
		}
		reqs = next
		if err := sleep(ctx, jitter(attempt, unprocessedBase, unprocessedMax)); err != nil {
			return table.Wrap(table.EUNAVAILABLE, err, "DynamoDB BatchWriteItem: %d items still unprocessed at the request's deadline", len(next))
		}
	}
}
