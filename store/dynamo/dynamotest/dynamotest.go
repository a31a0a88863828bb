package dynamotest

import (
	"context"
	"os"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// SkipMessage is why a test skips without DYNAMODB_ENDPOINT.
const SkipMessage = "set DYNAMODB_ENDPOINT or run ./scripts/test.sh (it starts DynamoDB Local)"

// Endpoint returns DYNAMODB_ENDPOINT, or skips tb when it is unset.
func Endpoint(tb testing.TB) string {
	tb.Helper()
	ep := os.Getenv("DYNAMODB_ENDPOINT")
	if ep == "" {
		tb.Skip(SkipMessage)
	}
	return ep
}

// MustClient returns a DynamoDB client for DYNAMODB_ENDPOINT (skipping tb
// when it is unset), with opts added to the configuration (a retryer, say).
// Region and credentials come from AWS_REGION, AWS_ACCESS_KEY_ID and
// AWS_SECRET_ACCESS_KEY, defaulting to dummies: DynamoDB Local accepts any.
func MustClient(tb testing.TB, opts ...func(*config.LoadOptions) error) *dynamodb.Client {
	tb.Helper()
	endpoint := Endpoint(tb)
	opts = append([]func(*config.LoadOptions) error{
		config.WithRegion(getenv("AWS_REGION", "us-east-1")),
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(
			getenv("AWS_ACCESS_KEY_ID", "local"), getenv("AWS_SECRET_ACCESS_KEY", "local"), "")),
	}, opts...)
	cfg, err := config.LoadDefaultConfig(context.Background(), opts...)
	if err != nil {
		tb.Fatal(err)
	}
	return dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) {
		o.BaseEndpoint = aws.String(endpoint)
		// DynamoDB Local sends no X-Amz-Crc32 header on error responses, and
		// this SDK version then logs a spurious checksum WARN for each one
		// (aws/aws-sdk-go-v2 issue 3545). Validation is on in production.
		o.DisableValidateResponseChecksum = true
	})
}

func getenv(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
