package dynamo

import (
	"context"
	"errors"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/table"
)

// StreamSpec is the table's stream: every item write with its new and old
// images, so that a reader can tell what an update or delete changed.
func StreamSpec() *types.StreamSpecification {
	return &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}
}

// EnableStream turns on the table's stream (StreamSpec) when it has none,
// and waits until the table is ACTIVE again. A stream of another view type
// is EINVALID: the reader needs both images.
func (t *Table) EnableStream(ctx context.Context) error {
	out, err := t.client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(t.name)})
	if err != nil {
		return translate(ctx, "DescribeTable", err)
	}
	if sp := out.Table.StreamSpecification; sp != nil && aws.ToBool(sp.StreamEnabled) {
		if sp.StreamViewType != types.StreamViewTypeNewAndOldImages {
			return table.Errorf(table.EINVALID, "DynamoDB table %q has a %s stream; live updates need NEW_AND_OLD_IMAGES (disable the stream, then run create-table)", t.name, sp.StreamViewType)
		}
		return nil
	}
	_, err = t.client.UpdateTable(ctx, &dynamodb.UpdateTableInput{TableName: aws.String(t.name), StreamSpecification: StreamSpec()})
	if err != nil {
		return translate(ctx, "UpdateTable", err)
	}
	return t.waitActive(ctx)
}

// StreamARN returns the ARN of the table's stream, or an EINVALID error
// naming the command that enables it when the table has none.
func (t *Table) StreamARN(ctx context.Context) (string, error) {
	out, err := t.client.DescribeTable(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(t.name)})
	if err != nil {
		return "", translate(ctx, "DescribeTable", err)
	}
	sp := out.Table.StreamSpecification
	if sp == nil || !aws.ToBool(sp.StreamEnabled) || out.Table.LatestStreamArn == nil {
		return "", table.Errorf(table.EINVALID, "DynamoDB table %q has no stream: run `create-table -store dynamodb:%s` to enable it", t.name, t.name)
	}
	if sp.StreamViewType != types.StreamViewTypeNewAndOldImages {
		return "", table.Errorf(table.EINVALID, "DynamoDB table %q has a %s stream; live updates need NEW_AND_OLD_IMAGES", t.name, sp.StreamViewType)
	}
	return aws.ToString(out.Table.LatestStreamArn), nil
}

// StreamClient is the part of the DynamoDB Streams API a Stream uses.
// *dynamodbstreams.Client implements it.
type StreamClient interface {
	DescribeStream(ctx context.Context, in *dynamodbstreams.DescribeStreamInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.DescribeStreamOutput, error)
	GetShardIterator(ctx context.Context, in *dynamodbstreams.GetShardIteratorInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetShardIteratorOutput, error)
	GetRecords(ctx context.Context, in *dynamodbstreams.GetRecordsInput, optFns ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetRecordsOutput, error)
}

var _ StreamClient = (*dynamodbstreams.Client)(nil)

// Stream reads one table stream. Its methods are safe for concurrent use.
type Stream struct {
	client StreamClient
	arn    string
}

// NewStream returns a Stream on the stream arn (Table.StreamARN).
func NewStream(client StreamClient, arn string) *Stream { return &Stream{client: client, arn: arn} }

// StreamClientFor returns a DynamoDB Streams client configured as the
// DynamoDB client c: same region, credentials and retryer, and c's
// endpoint override (DynamoDB Local serves both APIs on one port) unless
// AWS_ENDPOINT_URL_DYNAMODB_STREAMS names another.
func StreamClientFor(c *dynamodb.Client, streamsEndpoint string) *dynamodbstreams.Client {
	o := c.Options()
	return dynamodbstreams.New(dynamodbstreams.Options{
		Region: o.Region, Credentials: o.Credentials, Retryer: o.Retryer, HTTPClient: o.HTTPClient,
		APIOptions: o.APIOptions, Logger: o.Logger, ClientLogMode: o.ClientLogMode,
		RetryMaxAttempts: o.RetryMaxAttempts, RetryMode: o.RetryMode, AppID: o.AppID,
	}, func(so *dynamodbstreams.Options) {
		switch {
		case streamsEndpoint != "":
			so.BaseEndpoint = aws.String(streamsEndpoint)
		case o.BaseEndpoint != nil:
			so.BaseEndpoint = o.BaseEndpoint
		}
	})
}

// Client returns the DynamoDB client of t when it is an SDK client (nil
// for a test's wrapper).
func (t *Table) Client() *dynamodb.Client {
	c, _ := t.client.(*dynamodb.Client)
	return c
}

// Shards lists the stream's shards, parents before their children (the
// order in which their records must be read).
func (s *Stream) Shards(ctx context.Context) ([]store.StreamShard, error) {
	var all []store.StreamShard
	in := &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(s.arn)}
	for {
		out, err := s.client.DescribeStream(ctx, in)
		table.Account(ctx, table.Call{Op: table.CallStreamShards})
		if err != nil {
			return nil, translate(ctx, "DescribeStream", err)
		}
		for _, sh := range out.StreamDescription.Shards {
			closed := sh.SequenceNumberRange != nil && sh.SequenceNumberRange.EndingSequenceNumber != nil
			all = append(all, store.StreamShard{ID: aws.ToString(sh.ShardId), Parent: aws.ToString(sh.ParentShardId), Closed: closed})
		}
		last := out.StreamDescription.LastEvaluatedShardId
		if last == nil {
			return parentsFirst(all), nil
		}
		in.ExclusiveStartShardId = last
	}
}

// parentsFirst orders shards so that each comes after its parent (when the
// parent is listed; an expired parent is no longer).
func parentsFirst(shards []store.StreamShard) []store.StreamShard {
	byID := make(map[string]store.StreamShard, len(shards))
	for _, sh := range shards {
		byID[sh.ID] = sh
	}
	out := make([]store.StreamShard, 0, len(shards))
	done := map[string]bool{}
	var visit func(sh store.StreamShard)
	visit = func(sh store.StreamShard) {
		if done[sh.ID] {
			return
		}
		done[sh.ID] = true
		if p, ok := byID[sh.Parent]; ok {
			visit(p)
		}
		out = append(out, sh)
	}
	for _, sh := range shards {
		visit(sh)
	}
	return out
}

// Iterator returns an iterator on shard that starts after sequence number
// after, or at the shard's oldest record (TRIM_HORIZON) when after is "".
func (s *Stream) Iterator(ctx context.Context, shard, after string) (string, error) {
	in := &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(s.arn), ShardId: aws.String(shard),
		ShardIteratorType: stypes.ShardIteratorTypeTrimHorizon}
	if after != "" {
		in.ShardIteratorType, in.SequenceNumber = stypes.ShardIteratorTypeAfterSequenceNumber, aws.String(after)
	}
	out, err := s.client.GetShardIterator(ctx, in)
	table.Account(ctx, table.Call{Op: table.CallStreamIterator})
	if err != nil {
		return "", streamError(ctx, "GetShardIterator", err)
	}
	return aws.ToString(out.ShardIterator), nil
}

// Records reads the next records of an iterator (up to 1,000, 1 MB). It
// returns the iterator to continue from, "" when the shard is closed and
// fully read.
func (s *Stream) Records(ctx context.Context, iterator string) ([]store.StreamRecord, string, error) {
	out, err := s.client.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: aws.String(iterator)})
	n := 0
	if out != nil {
		n = len(out.Records)
	}
	table.Account(ctx, table.Call{Op: table.CallStreamRecords, Items: n})
	if err != nil {
		return nil, "", streamError(ctx, "GetRecords", err)
	}
	recs := make([]store.StreamRecord, 0, len(out.Records))
	for _, r := range out.Records {
		rec, err := recordChange(r)
		if err != nil {
			return nil, "", err
		}
		recs = append(recs, rec)
	}
	return recs, aws.ToString(out.NextShardIterator), nil
}

// streamError translates a Streams error; an expired iterator or trimmed
// data is store.ErrIteratorExpired.
func streamError(ctx context.Context, op string, err error) error {
	var expired *stypes.ExpiredIteratorException
	var trimmed *stypes.TrimmedDataAccessException
	if errors.As(err, &expired) || errors.As(err, &trimmed) {
		return table.Wrap(table.EUNAVAILABLE, errors.Join(store.ErrIteratorExpired, err), "%s", op)
	}
	return translate(ctx, op, err)
}

// recordChange turns a stream record into a comment change, as subscribers
// see it (store.PublicChange): INSERT of a published comment is ADDED (the
// new image), MODIFY UPDATED (new and old) or, when it publishes or
// unpublishes the comment, ADDED or DELETED, REMOVE DELETED (the old
// image); writes of unpublished comments are none.
func recordChange(r stypes.Record) (store.StreamRecord, error) {
	d := r.Dynamodb
	if d == nil {
		return store.StreamRecord{}, table.Errorf(table.EINTERNAL, "stream record %s without data", aws.ToString(r.EventID))
	}
	rec := store.StreamRecord{Seq: aws.ToString(d.SequenceNumber), Created: aws.ToTime(d.ApproximateCreationDateTime)}
	pk, _ := d.Keys[table.AttrPK].(*stypes.AttributeValueMemberS)
	if pk == nil {
		return rec, nil
	}
	if _, ok := store.CommentIDFromPK(pk.Value); !ok {
		return rec, nil
	}
	newC, err := streamComment(d.NewImage)
	if err != nil {
		return rec, err
	}
	oldC, err := streamComment(d.OldImage)
	if err != nil {
		return rec, err
	}
	if r.EventName == stypes.OperationTypeModify && newC != nil && oldC != nil && *newC == *oldC {
		return rec, nil
	}
	switch {
	case r.EventName == stypes.OperationTypeInsert && newC != nil:
		oldC = nil
	case r.EventName == stypes.OperationTypeModify && newC != nil && oldC != nil:
	case r.EventName == stypes.OperationTypeRemove && oldC != nil:
		newC = nil
	default:
		return rec, table.Errorf(table.EINTERNAL, "stream record %s: %s of %s lacks its image (the stream must be NEW_AND_OLD_IMAGES)", rec.Seq, r.EventName, pk.Value)
	}
	// Subscribers see publications (docs/design.md §12.3): a write of an
	// unpublished comment is no change.
	ch := store.PublicChange(oldC, newC)
	if ch.Kind == "" {
		return rec, nil
	}
	ch.ID = store.StreamChangeID(rec.Created, rec.Seq)
	rec.Change = &ch
	return rec, nil
}

// streamComment converts a stream image of a comment item (nil for none).
func streamComment(img map[string]stypes.AttributeValue) (*store.Comment, error) {
	it, err := convertValues(img, fromStreamAV)
	if it == nil || err != nil {
		return nil, err
	}
	return store.CommentFromItem(it)
}

// fromStreamAV converts one attribute of a stream image: a string or an
// int64, the only types the table holds.
func fromStreamAV(name string, av stypes.AttributeValue) (table.Value, error) {
	switch x := av.(type) {
	case *stypes.AttributeValueMemberS:
		return table.S(x.Value), nil
	case *stypes.AttributeValueMemberN:
		n, err := strconv.ParseInt(x.Value, 10, 64)
		if err != nil {
			return table.Value{}, table.Wrap(table.EINTERNAL, err, "stream image attribute %q: number %q is not an int64", name, x.Value)
		}
		return table.N(n), nil
	}
	return table.Value{}, table.Errorf(table.EINTERNAL, "stream image attribute %q: unsupported type %T", name, av)
}
