package dynamo

import (
	"context"
	"errors"
	"log/slog"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/table"
)

// The production settings of a table that are not part of its definition
// (CreateTableInput): DynamoDB sets them with calls of their own once the
// table is ACTIVE.

// EnableTTL turns on the table's time to live on table.AttrExpiresAt, so
// that DynamoDB deletes change log items an hour after they were logged
// (docs/live.md). TTL already on that attribute is left as it is; on
// another attribute it is an EINVALID error (a table has one TTL
// attribute, and changing it would change what DynamoDB deletes).
func (t *Table) EnableTTL(ctx context.Context) error {
	out, err := t.client.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(t.name)})
	if err != nil {
		return translate(ctx, "DescribeTimeToLive", err)
	}
	if d := out.TimeToLiveDescription; d != nil && (d.TimeToLiveStatus == types.TimeToLiveStatusEnabled || d.TimeToLiveStatus == types.TimeToLiveStatusEnabling) {
		if attr := aws.ToString(d.AttributeName); attr != store.AttrExpiresAt {
			return table.Errorf(table.EINVALID, "DynamoDB table %q has time to live on %q; the change log needs it on %q (disable it, then run create-table)", t.name, attr, store.AttrExpiresAt)
		}
		return nil
	}
	_, err = t.client.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName:               aws.String(t.name),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(store.AttrExpiresAt), Enabled: aws.Bool(true)},
	})
	if err != nil {
		return translate(ctx, "UpdateTimeToLive", err)
	}
	return nil
}

// EnablePITR turns on point-in-time recovery (continuous backups; enabling
// it again is a no-op). An endpoint that does not know the call, such as
// DynamoDB Local (UnknownOperationException), gets a logged warning
// instead of an error: the table works without it.
func (t *Table) EnablePITR(ctx context.Context) error {
	_, err := t.client.UpdateContinuousBackups(ctx, &dynamodb.UpdateContinuousBackupsInput{
		TableName:                        aws.String(t.name),
		PointInTimeRecoverySpecification: &types.PointInTimeRecoverySpecification{PointInTimeRecoveryEnabled: aws.Bool(true)},
	})
	var api smithy.APIError
	if errors.As(err, &api) && api.ErrorCode() == "UnknownOperationException" {
		slog.Default().WarnContext(ctx, "point-in-time recovery not enabled: the DynamoDB endpoint does not support UpdateContinuousBackups", "table", t.name, "err", err.Error())
		return nil
	}
	if err != nil {
		return translate(ctx, "UpdateContinuousBackups", err)
	}
	return nil
}
