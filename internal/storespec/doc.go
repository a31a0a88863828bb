// Package storespec reads a -store value, bolt:PATH (the embedded bbolt
// file, package store/bolt) or dynamodb:TABLE (package store/dynamo), and
// opens the table.Table it names: the one place where the gateway chooses
// a backend. Every command and serve open their table through Open.
//
// A DynamoDB table is opened the same way by every command: the AWS SDK's
// default configuration (AWS_* environment variables), the store's
// retryer, and a client span per call (tracing.AWSCallSpans, a no-op
// unless serve's tracing is on).
package storespec
