package dynamo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
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
// secondary indexes of table.AllIndexes (the index's hash and sort
// attributes, projecting the key attributes plus IndexDef.Projection:
// exactly what a page shows, so an index write stays small and a page read
// needs no second read of the base table; or ALL for the sparse moderation
// indexes), and on-demand (PAY_PER_REQUEST) billing.
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

// gsi is the definition of index d: its keys, and its projection.
func gsi(d table.IndexDef) types.GlobalSecondaryIndex {
	return types.GlobalSecondaryIndex{
		IndexName: aws.String(d.Name),
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String(d.Hash), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String(d.Sort), KeyType: types.KeyTypeRange},
		},
		Projection: projection(d),
	}
}

// projection is the projection of index d: ALL, or INCLUDE its attributes.
func projection(d table.IndexDef) *types.Projection {
	if d.ProjectAll {
		return &types.Projection{ProjectionType: types.ProjectionTypeAll}
	}
	return &types.Projection{
		ProjectionType:   types.ProjectionTypeInclude,
		NonKeyAttributes: append([]string(nil), d.Projection...),
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
// an EINVALID error if the existing table has another key schema, or has
// TTL on another attribute. It replaces the indexes whose projection
// differs from their definition (replaceStaleIndexes), then adds those an
// existing table lacks (addIndexes).
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
	if err := t.replaceStaleIndexes(ctx); err != nil {
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

// addIndexes adds to an existing table the indexes of table.AllIndexes
// it lacks (the moderation indexes on a table created before moderation,
// the helpful twins on one created before votes, an index whose rebuild
// was interrupted), one at a time (createIndex): the upgrade path to
// moderation (docs/design.md §12.3) and to MOST_HELPFUL.
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
		t.report("adding index %s: DynamoDB backfills it from the table's items, minutes on a large table", d.Name)
		if err := t.createIndex(ctx, d); err != nil {
			return err
		}
	}
}

// createIndex adds index d to the table (one UpdateTable: DynamoDB creates
// one index per call) and waits until DynamoDB has backfilled it and it is
// ACTIVE.
func (t *Table) createIndex(ctx context.Context, d table.IndexDef) error {
	g := gsi(d)
	_, err := t.client.UpdateTable(ctx, &dynamodb.UpdateTableInput{
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
	return t.waitActive(ctx)
}

// replaceStaleIndexes replaces, one at a time, each index of the table
// whose projection differs from its definition (a table created before
// the page showed helpful counts, verified purchases and replies, or
// before the moderation indexes projected ALL): a GSI's projection cannot
// be changed, so it deletes the index, waits until it is gone, and
// creates it anew with the projection of table.AllIndexes (createIndex).
// CreateTable runs it before addIndexes, so that the indexes it replaces
// shrink to their definition before any index is added: the sum DynamoDB
// limits (table.MaxProjected) never exceeds that of the definition or of
// the table as it was. While an index is rebuilt, the reads it serves
// fail: docs/operations.md says when to run it. Interrupted, a run again
// resumes (addIndexes creates an index deleted but not yet created again).
func (t *Table) replaceStaleIndexes(ctx context.Context) error {
	for {
		out, err := t.client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(t.name)})
		if err != nil {
			return translate(ctx, "DescribeTable", err)
		}
		stale := staleIndexes(out.Table)
		if len(stale) == 0 {
			return nil
		}
		d := stale[0]
		t.report("replacing index %s, whose projection differs from its definition: the reads it serves fail until it is ACTIVE again", d.Name)
		_, err = t.client.UpdateTable(ctx, &dynamodb.UpdateTableInput{
			TableName: aws.String(t.name),
			GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Delete: &types.DeleteGlobalSecondaryIndexAction{
				IndexName: aws.String(d.Name),
			}}},
		})
		if err != nil {
			return translate(ctx, "UpdateTable", err)
		}
		if err := t.waitIndexGone(ctx, d.Name); err != nil {
			return err
		}
		if err := t.createIndex(ctx, d); err != nil {
			return err
		}
	}
}

// waitIndexGone polls DescribeTable until the table no longer has index
// name.
func (t *Table) waitIndexGone(ctx context.Context, name string) error {
	delay := 200 * time.Millisecond
	for {
		out, err := t.client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(t.name)})
		if err != nil {
			return translate(ctx, "DescribeTable", err)
		}
		if _, ok := describedIndex(out.Table, name); !ok {
			return nil
		}
		if err := sleep(ctx, delay); err != nil {
			return table.Wrap(table.EUNAVAILABLE, err, "index %s of DynamoDB table %q is not deleted yet", name, t.name)
		}
		delay = min(2*delay, 5*time.Second)
	}
}

// staleIndexes returns the indexes of table.AllIndexes the table has with
// a projection other than their definition's.
func staleIndexes(d *types.TableDescription) []table.IndexDef {
	var out []table.IndexDef
	for _, want := range table.AllIndexes {
		g, ok := describedIndex(d, want.Name)
		if ok && !sameProjection(g.Projection, want) {
			out = append(out, want)
		}
	}
	return out
}

// sameProjection reports whether p is the projection of want: ALL, or
// INCLUDE the same attributes in any order.
func sameProjection(p *types.Projection, want table.IndexDef) bool {
	if p == nil || p.ProjectionType == types.ProjectionTypeAll || want.ProjectAll {
		return p != nil && want.ProjectAll && p.ProjectionType == types.ProjectionTypeAll
	}
	return p.ProjectionType == types.ProjectionTypeInclude && len(lacking(p, want)) == 0 &&
		len(p.NonKeyAttributes) == len(want.Projection)
}

// lacking returns what index want reads that projection p does not copy:
// attributes of its INCLUDE list, or "ALL" when it projects ALL and p
// does not. A projection ALL lacks nothing.
func lacking(p *types.Projection, want table.IndexDef) []string {
	if p != nil && p.ProjectionType == types.ProjectionTypeAll {
		return nil
	}
	if want.ProjectAll {
		return []string{"ALL"}
	}
	var have []string
	if p != nil {
		have = p.NonKeyAttributes
	}
	var out []string
	for _, a := range want.Projection {
		if !slices.Contains(have, a) {
			out = append(out, a)
		}
	}
	return out
}

// describedIndex returns the description of the table's index name.
func describedIndex(d *types.TableDescription, name string) (types.GlobalSecondaryIndexDescription, bool) {
	if d != nil {
		for _, g := range d.GlobalSecondaryIndexes {
			if aws.ToString(g.IndexName) == name {
				return g, true
			}
		}
	}
	return types.GlobalSecondaryIndexDescription{}, false
}

// CheckProjections refuses, with EINVALID, a table whose indexes lack
// attributes its lists show (helpfulCount, verifiedPurchase, reply; a
// moderation index not ALL), naming them: lists read from those indexes
// would show them empty. An index projecting more than its definition
// passes. create-table replaces such indexes (replaceStaleIndexes).
func (t *Table) CheckProjections(ctx context.Context) error {
	out, err := t.client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(t.name)})
	if err != nil {
		return translate(ctx, "DescribeTable", err)
	}
	var msgs []string
	for _, d := range staleIndexes(out.Table) {
		g, _ := describedIndex(out.Table, d.Name)
		if lacks := lacking(g.Projection, d); len(lacks) > 0 {
			msgs = append(msgs, fmt.Sprintf("%s lacks %s", d.Name, strings.Join(lacks, ", ")))
		}
	}
	if len(msgs) > 0 {
		return table.Errorf(table.EINVALID, "the indexes of DynamoDB table %q project fewer attributes than a page shows (%s): create-table replaces them",
			t.name, strings.Join(msgs, "; "))
	}
	return nil
}

// missingIndex returns the first index of store.AllIndexes the table lacks.
func missingIndex(d *types.TableDescription) (table.IndexDef, bool) {
	for _, want := range table.AllIndexes {
		if _, found := describedIndex(d, want.Name); !found {
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

// checkSchema verifies that an existing table has the keys this package
// needs and that each index of table.AllIndexes it has is keyed as
// declared (it does not compare projections, which replaceStaleIndexes
// does, or billing). A table lacking more than one of the public indexes
// (table.Indexes) is not a comments table and is refused; one lacking one
// is left to CreateTable, which adds it (addIndexes): replaceStaleIndexes
// deletes one index at a time, so an interrupted run leaves at most one
// missing. store.Store.CheckModeration refuses to moderate without the
// moderation indexes.
func checkSchema(d *types.TableDescription) error {
	if d == nil {
		return nil
	}
	name := aws.ToString(d.TableName)
	if !sameKeys(d.KeySchema, table.AttrPK, table.AttrSK) {
		return table.Errorf(table.EINVALID, "DynamoDB table %q exists with another key schema (want PK, SK)", name)
	}
	var lacks []string
	for _, want := range table.AllIndexes {
		g, ok := describedIndex(d, want.Name)
		switch {
		case ok && !sameKeys(g.KeySchema, want.Hash, want.Sort):
			return table.Errorf(table.EINVALID, "DynamoDB table %q has index %s with other keys (want %s, %s)", name, want.Name, want.Hash, want.Sort)
		case !ok && slices.ContainsFunc(table.Indexes, func(p table.IndexDef) bool { return p.Name == want.Name }):
			lacks = append(lacks, want.Name)
		}
	}
	if len(lacks) > 1 {
		return table.Errorf(table.EINVALID, "DynamoDB table %q lacks indexes %s: it is not a comments table", name, strings.Join(lacks, ", "))
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
