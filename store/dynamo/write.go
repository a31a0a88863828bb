package dynamo

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/acme/comments-gateway/store/table"
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
// Write returns table.CondFailure's error: Op is the index of the op whose
// condition failed, the code that of its condition (ECONFLICT unless it has
// its own; see writeError); a conflict with a concurrent transaction is
// ECONFLICT with Op -1. More than table.MaxWriteOps ops, two
// ops on one item, or an op that is not well formed is EINVALID, and nothing
// is sent.
func (t *Table) Write(ctx context.Context, ops []table.Op) error {
	defer table.Account(ctx, table.Call{Op: table.CallWrite})
	switch {
	case len(ops) == 0:
		return nil
	case len(ops) > table.MaxWriteOps || len(ops) > maxTransactItems:
		return table.Errorf(table.EINVALID, "write: %d operations, at most %d", len(ops), table.MaxWriteOps)
	case len(ops) == 1:
		return t.writeOne(ctx, ops[0])
	}
	seen := make(map[table.Key]bool, len(ops))
	for _, op := range ops {
		if seen[op.Key] {
			// DynamoDB would reject it too (ValidationException).
			return table.Errorf(table.EINVALID, "write: two operations on item (%q, %q)", op.Key.PK, op.Key.SK)
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
	if _, err := t.client.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal}); err != nil {
		return writeError(ctx, "TransactWriteItems", ops, err)
	}
	return nil
}

// transactItem is op as one item of TransactWriteItems.
func (t *Table) transactItem(op table.Op) (types.TransactWriteItem, error) {
	p, err := build(op)
	if err != nil {
		return types.TransactWriteItem{}, err
	}
	tableName := aws.String(t.name)
	switch op.Kind {
	case table.OpPut:
		return types.TransactWriteItem{Put: &types.Put{TableName: tableName, Item: p.item, ConditionExpression: p.cond,
			ExpressionAttributeNames: p.names, ExpressionAttributeValues: p.values, ReturnValuesOnConditionCheckFailure: p.onFailure}}, nil
	case table.OpDelete:
		return types.TransactWriteItem{Delete: &types.Delete{TableName: tableName, Key: p.key, ConditionExpression: p.cond,
			ExpressionAttributeNames: p.names, ExpressionAttributeValues: p.values, ReturnValuesOnConditionCheckFailure: p.onFailure}}, nil
	}
	return types.TransactWriteItem{Update: &types.Update{TableName: tableName, Key: p.key, UpdateExpression: p.update,
		ConditionExpression: p.cond, ExpressionAttributeNames: p.names, ExpressionAttributeValues: p.values,
		ReturnValuesOnConditionCheckFailure: p.onFailure}}, nil
}

// writeOne applies a single op with the plain item call.
func (t *Table) writeOne(ctx context.Context, op table.Op) error {
	p, err := build(op)
	if err != nil {
		return err
	}
	if call, err := t.itemWrite(ctx, op.Kind, p); err != nil {
		return writeError(ctx, call, []table.Op{op}, err)
	}
	return nil
}

// itemWrite sends p with the item call of kind: PutItem, DeleteItem or
// UpdateItem. It returns the call's name.
func (t *Table) itemWrite(ctx context.Context, kind table.OpKind, p parts) (string, error) {
	tableName := aws.String(t.name)
	switch kind {
	case table.OpPut:
		_, err := t.client.PutItem(ctx, &dynamodb.PutItemInput{TableName: tableName, Item: p.item, ConditionExpression: p.cond,
			ExpressionAttributeNames: p.names, ExpressionAttributeValues: p.values, ReturnValuesOnConditionCheckFailure: p.onFailure, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
		return "PutItem", err
	case table.OpDelete:
		_, err := t.client.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: tableName, Key: p.key, ConditionExpression: p.cond,
			ExpressionAttributeNames: p.names, ExpressionAttributeValues: p.values, ReturnValuesOnConditionCheckFailure: p.onFailure, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
		return "DeleteItem", err
	}
	_, err := t.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: tableName, Key: p.key, UpdateExpression: p.update,
		ConditionExpression: p.cond, ExpressionAttributeNames: p.names, ExpressionAttributeValues: p.values,
		ReturnValuesOnConditionCheckFailure: p.onFailure, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	return "UpdateItem", err
}
