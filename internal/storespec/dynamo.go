package storespec

import (
	"context"

	"github.com/acme/comments-gateway/store/dynamo"
	"github.com/acme/comments-gateway/tracing"
)

// OpenDynamo opens the DynamoDB table name the way every command does: the
// SDK's default configuration and the store's retryer (dynamo.Open), and a
// client span per DynamoDB call (tracing.AWSCallSpans; a no-op unless
// serve's tracing is on).
func OpenDynamo(ctx context.Context, name string) (*dynamo.Table, error) {
	return dynamo.Open(ctx, name, tracing.AWSCallSpans)
}
