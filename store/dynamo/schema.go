package dynamo

import (
	"context"
	"errors"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/acme/comments-gateway/store/table"
)

// createWait bounds how long CreateTable waits for the table and its indexes
// to become ACTIVE when ctx has no earlier deadline.
const createWait = 15 * time.Minute

// CreateTableInput returns the definition CreateTable sends for a table
// named table: string keys PK (hash) and SK (range), the four global
// secondary indexes of table.Indexes (the index's hash attribute and GSISK,
// projecting the key attributes plus IndexDef.Projection: exactly what a
// page shows, so an index write stays small and a page read needs no second
// read of the base table), and on-demand (PAY_PER_REQUEST) billing.
// deploy/dynamodb-table.json is the same definition for
// `aws dynamodb create-table --cli-input-json`.
//
// With stream the table gets its stream (StreamSpec), which live
// subscriptions across instances read; without, none (a gateway run with
// -no-subscriptions needs none, and DynamoDB Local writes much more slowly
// to a table with a stream).
func CreateTableInput(name string, stream bool) *dynamodb.CreateTableInput {
	in := &dynamodb.CreateTableInput{
		TableName: aws.String(name),
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String(table.AttrPK), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String(table.AttrSK), KeyType: types.KeyTypeRange},
		},
		BillingMode: types.BillingModePayPerRequest,
	}
	if stream {
		in.StreamSpecification = StreamSpec()
	}
	seen := map[string]bool{}
	attr := func(name string) {
		if !seen[name] {
			seen[name] = true
			in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{
				AttributeName: aws.String(name), AttributeType: types.ScalarAttributeTypeS,
			})
		}
	}
	attr(table.AttrPK)
	attr(table.AttrSK)
	for _, d := range table.AllIndexes {
		attr(d.Hash)
	}
	for _, d := range table.AllIndexes {
		attr(d.Sort)
	}
	for _, d := range table.AllIndexes {
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, gsi(d))
	}
	return in
}

// gsi is the definition of index d: its keys, and INCLUDE its projection.
func gsi(d table.IndexDef) types.GlobalSecondaryIndex {
	return types.GlobalSecondaryIndex{
		IndexName: aws.String(d.Name),
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String(d.Hash), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String(d.Sort), KeyType: types.KeyTypeRange},
		},
		Projection: &types.Projection{
			ProjectionType:   types.ProjectionTypeInclude,
			NonKeyAttributes: append([]string(nil), d.Projection...),
		},
	}
}

// CreateTable creates the table (see CreateTableInput) and waits until the
// table and all its indexes are ACTIVE, bounded by ctx (and by 15 minutes
// when ctx has no deadline); then it turns on time to live on the change
// log's table.AttrExpiresAt (EnableTTL) and point-in-time recovery
// (EnablePITR), as deploy/cdk's table has them. It is idempotent: when the
// table exists it waits for it to be ACTIVE, turns TTL and PITR on when
// they are off, with stream enables its stream when it has none
// (EnableStream; without, leaves the stream as it is), and returns nil, or
// an EINVALID error if the existing table lacks the key schema or one of
// the indexes, or has TTL on another attribute.
func (t *Table) CreateTable(ctx context.Context, stream bool) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, createWait)
		defer cancel()
	}
	_, err := t.client.CreateTable(ctx, CreateTableInput(t.name, stream))
	var inUse *types.ResourceInUseException
	if err != nil && !errors.As(err, &inUse) {
		return translate(ctx, "CreateTable", err)
	}
	if err := t.waitActive(ctx); err != nil {
		return err
	}
	if err := t.addIndexes(ctx); err != nil {
		return err
	}
	if err := t.EnableTTL(ctx); err != nil {
		return err
	}
	if err := t.EnablePITR(ctx); err != nil {
		return err
	}
	if !stream {
		return nil
	}
	return t.EnableStream(ctx)
}

// addIndexes adds to an existing table the indexes of store.AllIndexes it
// lacks (store.ModerationIndexes, on a table created before moderation),
// one UpdateTable each (DynamoDB creates one index per call), waiting for
// each to be ACTIVE: the upgrade path to moderation (docs/design.md §12.3).
func (t *Table) addIndexes(ctx context.Context) error {
	for {
		out, err := t.client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(t.name)})
		if err != nil {
			return translate(ctx, "DescribeTable", err)
		}
		d, ok := missingIndex(out.Table)
		if !ok {
			return nil
		}
		g := gsi(d)
		_, err = t.client.UpdateTable(ctx, &dynamodb.UpdateTableInput{
			TableName: aws.String(t.name),
			AttributeDefinitions: []types.AttributeDefinition{
				{AttributeName: aws.String(d.Hash), AttributeType: types.ScalarAttributeTypeS},
				{AttributeName: aws.String(d.Sort), AttributeType: types.ScalarAttributeTypeS},
			},
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: &types.CreateGlobalSecondaryIndexAction{
				IndexName: g.IndexName, KeySchema: g.KeySchema, Projection: g.Projection,
			}}},
		})
		if err != nil {
			return translate(ctx, "UpdateTable", err)
		}
		if err := t.waitActive(ctx); err != nil {
			return err
		}
	}
}

// missingIndex returns the first index of store.AllIndexes the table lacks.
func missingIndex(d *types.TableDescription) (table.IndexDef, bool) {
	for _, want := range table.AllIndexes {
		found := false
		for _, g := range d.GlobalSecondaryIndexes {
			found = found || aws.ToString(g.IndexName) == want.Name
		}
		if !found {
			return want, true
		}
	}
	return table.IndexDef{}, false
}

// waitActive polls DescribeTable until the table and every index are ACTIVE.
func (t *Table) waitActive(ctx context.Context) error {
	delay := 200 * time.Millisecond
	for {
		out, err := t.client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(t.name)})
		var notFound *types.ResourceNotFoundException
		switch {
		case errors.As(err, &notFound):
			// Just created: not visible yet everywhere. Wait.
		case err != nil:
			return translate(ctx, "DescribeTable", err)
		default:
			if err := checkSchema(out.Table); err != nil {
				return err
			}
			if active(out.Table) {
				return nil
			}
		}
		if err := sleep(ctx, delay); err != nil {
			return table.Wrap(table.EUNAVAILABLE, err, "DynamoDB table %q is not ACTIVE yet", t.name)
		}
		delay = min(2*delay, 5*time.Second)
	}
}

// active reports whether the table and all its global secondary indexes are
// ACTIVE.
func active(d *types.TableDescription) bool {
	if d == nil || d.TableStatus != types.TableStatusActive {
		return false
	}
	for _, g := range d.GlobalSecondaryIndexes {
		if g.IndexStatus != types.IndexStatusActive {
			return false
		}
	}
	return true
}

// checkSchema verifies that an existing table has the keys and the public
// indexes (store.Indexes) this package needs (it does not compare
// projections or billing); the moderation indexes are added by CreateTable
// and checked by store.Store.CheckModeration when moderation is on.
func checkSchema(d *types.TableDescription) error {
	if d == nil {
		return nil
	}
	name := aws.ToString(d.TableName)
	if !sameKeys(d.KeySchema, table.AttrPK, table.AttrSK) {
		return table.Errorf(table.EINVALID, "DynamoDB table %q exists with another key schema (want PK, SK)", name)
	}
	for _, want := range table.Indexes {
		found := false
		for _, g := range d.GlobalSecondaryIndexes {
			if aws.ToString(g.IndexName) == want.Name {
				found = sameKeys(g.KeySchema, want.Hash, want.Sort)
				break
			}
		}
		if !found {
			return table.Errorf(table.EINVALID, "DynamoDB table %q lacks index %s (%s, %s)", name, want.Name, want.Hash, want.Sort)
		}
	}
	return nil
}

func sameKeys(ks []types.KeySchemaElement, hash, sort string) bool {
	var h, s string
	for _, k := range ks {
		switch k.KeyType {
		case types.KeyTypeHash:
			h = aws.ToString(k.AttributeName)
		case types.KeyTypeRange:
			s = aws.ToString(k.AttributeName)
		}
	}
	return h == hash && s == sort
}
