package dynamo

import (
	"context"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/expression"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"golang.org/x/sync/errgroup"

	"github.com/acme/comments-gateway/store"
)

// Write applies ops atomically. Several ops are one TransactWriteItems; a
// single op is the equivalent PutItem, DeleteItem or UpdateItem (half the
// write cost, same semantics). Conditions map to condition expressions:
//
//	CondExists    attribute_exists(PK)
//	CondNotExists attribute_not_exists(PK)
//	CondEquals    Attr = Value
//	CondAbsent    attribute_not_exists(Attr)
//
// An update is "ADD a :a, ... SET s = :s, ... REMOVE r, ...", which creates
// the item when it is absent. When a condition fails nothing is written and
// Write returns an *store.Error with code ECONFLICT and Op set to the index
// of the op whose condition failed; a conflict with a concurrent
// transaction is ECONFLICT with Op -1. More than store.MaxWriteOps ops, two
// ops on one item, or an op that is not well formed is EINVALID, and nothing
// is sent.
func (t *Table) Write(ctx context.Context, ops []store.Op) error {
	defer store.Account(ctx, store.Call{Op: store.CallWrite})
	switch {
	case len(ops) == 0:
		return nil
	case len(ops) > store.MaxWriteOps || len(ops) > maxTransactItems:
		return store.Errorf(store.EINVALID, "write: %d operations, at most %d", len(ops), store.MaxWriteOps)
	case len(ops) == 1:
		return t.writeOne(ctx, ops[0])
	}
	seen := make(map[store.Key]bool, len(ops))
	for _, op := range ops {
		if seen[op.Key] {
			// DynamoDB would reject it too (ValidationException).
			return store.Errorf(store.EINVALID, "write: two operations on item (%q, %q)", op.Key.PK, op.Key.SK)
		}
		seen[op.Key] = true
	}
	items := make([]types.TransactWriteItem, len(ops))
	for i, op := range ops {
		w, err := t.transactItem(op)
		if err != nil {
			return err
		}
		items[i] = w
	}
	if _, err := t.client.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items}); err != nil {
		return translate(ctx, "TransactWriteItems", err)
	}
	return nil
}

// parts are the DynamoDB parameters of one op.
type parts struct {
	key    map[string]types.AttributeValue
	item   map[string]types.AttributeValue // OpPut
	update *string                         // OpUpdate
	cond   *string
	names  map[string]string
	values map[string]types.AttributeValue
}

// build validates op and builds its parameters.
func build(op store.Op) (parts, error) {
	var p parts
	if err := store.ValidateOp(op); err != nil {
		return p, err
	}
	var err error
	if p.key, err = keyAV(op.Key); err != nil {
		return p, err
	}
	b := expression.NewBuilder()
	hasExpr := false
	if cond, ok := condition(op.Conds); ok {
		b, hasExpr = b.WithCondition(cond), true
	}
	switch op.Kind {
	case store.OpPut:
		if p.item, err = toAVMap(op.Item); err != nil {
			return p, err
		}
	case store.OpUpdate:
		upd, err := update(op)
		if err != nil {
			return p, err
		}
		b, hasExpr = b.WithUpdate(upd), true
	}
	if !hasExpr {
		return p, nil
	}
	expr, err := b.Build()
	if err != nil {
		return p, store.Wrap(store.EINTERNAL, err, "write: build the expressions")
	}
	p.update, p.cond = expr.Update(), expr.Condition()
	p.names, p.values = expr.Names(), expr.Values()
	return p, nil
}

// condition returns the conjunction of conds (checked by store.ValidateOp), and
// whether there is any.
func condition(conds []store.Cond) (expression.ConditionBuilder, bool) {
	var cs []expression.ConditionBuilder
	for _, c := range conds {
		switch c.Kind {
		case store.CondExists:
			cs = append(cs, expression.AttributeExists(name(store.AttrPK)))
		case store.CondNotExists:
			cs = append(cs, expression.AttributeNotExists(name(store.AttrPK)))
		case store.CondEquals:
			av, _ := toAV(c.Attr, c.Value)
			cs = append(cs, name(c.Attr).Equal(expression.Value(av)))
		case store.CondAbsent:
			cs = append(cs, expression.AttributeNotExists(name(c.Attr)))
		}
	}
	switch len(cs) {
	case 0:
		return expression.ConditionBuilder{}, false
	case 1:
		return cs[0], true
	}
	return expression.And(cs[0], cs[1], cs[2:]...), true
}

// update returns the update expression of op (checked by store.ValidateOp): ADD,
// SET and REMOVE.
func update(op store.Op) (expression.UpdateBuilder, error) {
	var u expression.UpdateBuilder
	for attr, d := range op.Add {
		u = u.Add(name(attr), expression.Value(&types.AttributeValueMemberN{Value: strconv.FormatInt(d, 10)}))
	}
	for attr, v := range op.Set {
		av, err := toAV(attr, v)
		if err != nil {
			return u, err
		}
		u = u.Set(name(attr), expression.Value(av))
	}
	for _, attr := range op.Remove {
		u = u.Remove(name(attr))
	}
	return u, nil
}

// name is an attribute name taken literally (no document paths).
func name(attr string) expression.NameBuilder { return expression.NameNoDotSplit(attr) }

// transactItem is op as one item of TransactWriteItems.
func (t *Table) transactItem(op store.Op) (types.TransactWriteItem, error) {
	p, err := build(op)
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	table := aws.String(t.name)
	switch op.Kind {
	case store.OpPut:
		return types.TransactWriteItem{Put: &types.Put{
			TableName: table, Item: p.item, ConditionExpression: p.cond,
			ExpressionAttributeNames: p.names, ExpressionAttributeValues: p.values,
		}}, nil
	case store.OpDelete:
		return types.TransactWriteItem{Delete: &types.Delete{
			TableName: table, Key: p.key, ConditionExpression: p.cond,
			ExpressionAttributeNames: p.names, ExpressionAttributeValues: p.values,
		}}, nil
	default:
		return types.TransactWriteItem{Update: &types.Update{
			TableName: table, Key: p.key, UpdateExpression: p.update, ConditionExpression: p.cond,
			ExpressionAttributeNames: p.names, ExpressionAttributeValues: p.values,
		}}, nil
	}
}

// writeOne applies a single op with the plain item call.
func (t *Table) writeOne(ctx context.Context, op store.Op) error {
	p, err := build(op)
	if err != nil {
		return err
	}
	table := aws.String(t.name)
	var opName string
	switch op.Kind {
	case store.OpPut:
		opName = "PutItem"
		_, err = t.client.PutItem(ctx, &dynamodb.PutItemInput{
			TableName: table, Item: p.item, ConditionExpression: p.cond,
			ExpressionAttributeNames: p.names, ExpressionAttributeValues: p.values,
		})
	case store.OpDelete:
		opName = "DeleteItem"
		_, err = t.client.DeleteItem(ctx, &dynamodb.DeleteItemInput{
			TableName: table, Key: p.key, ConditionExpression: p.cond,
			ExpressionAttributeNames: p.names, ExpressionAttributeValues: p.values,
		})
	default:
		opName = "UpdateItem"
		_, err = t.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
			TableName: table, Key: p.key, UpdateExpression: p.update, ConditionExpression: p.cond,
			ExpressionAttributeNames: p.names, ExpressionAttributeValues: p.values,
		})
	}
	if err != nil {
		return translate(ctx, opName, err) // ConditionalCheckFailed → ECONFLICT, Op 0
	}
	return nil
}

// BatchPut writes whole items, not atomically as a group: BatchWriteItem
// calls of at most 25 items, up to 8 at once; items DynamoDB leaves
// unprocessed are written again with jittered exponential backoff until all
// are written or ctx is done. When several items have the same key, the last
// one wins (as if they were put one after another).
func (t *Table) BatchPut(ctx context.Context, items []store.Item) error {
	defer store.Account(ctx, store.Call{Op: store.CallBatchPut})
	// Last item per key, in first-seen order: BatchWriteItem rejects
	// duplicate keys in one call.
	last := make(map[store.Key]int, len(items))
	var order []store.Key
	for i, it := range items {
		k := it.Key()
		if _, ok := last[k]; !ok {
			order = append(order, k)
		}
		last[k] = i
	}
	for _, it := range items {
		if err := store.ValidateItem(it); err != nil {
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
			RequestItems: map[string][]types.WriteRequest{t.name: reqs},
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
			return store.Wrap(store.EUNAVAILABLE, err, "DynamoDB BatchWriteItem: %d items still unprocessed at the request's deadline", len(next))
		}
	}
}
