package storespec

import (
	"context"

	"github.com/aws/smithy-go/middleware"

	"github.com/acme/comments-gateway/store/dynamo"
	"github.com/acme/comments-gateway/tracing"
)

// OpenDynamo opens the DynamoDB table name the way every command does: the
// SDK's default configuration and the store's retryer (dynamo.Open), and a
// client span per DynamoDB call (tracing.AWSCallSpans; a no-op unless
// serve's tracing is on), plus the API options given (serve's
// metrics.Collectors.DynamoDBCalls).
func OpenDynamo(ctx context.Context, name string, apiOptions ...func(*middleware.Stack) error) (*dynamo.Table, error) {
	return dynamo.Open(ctx, name, append([]func(*middleware.Stack) error{tracing.AWSCallSpans}, apiOptions...)...)
}
