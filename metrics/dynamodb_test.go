package metrics

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/acme/comments-gateway/store/dynamo/dynamotest"
)

// counterValue is the value of v's series with labels.
func counterValue(t *testing.T, v *prometheus.CounterVec, labels ...string) float64 {
	t.Helper()
	var m dto.Metric
	if err := v.WithLabelValues(labels...).Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}

// TestDynamoDBCallsCountsThrottledAttempts: a DynamoDB endpoint that
// throttles every attempt (a fault injected over HTTP on 127.0.0.1) is
// tried MaxAttempts times, and each attempt counts one throttle under the
// call's operation; the other operations' series exist at zero.
func TestDynamoDBCallsCountsThrottledAttempts(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"__type":"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException","message":"throttled"}`)
	}))
	defer srv.Close()
	c := New(prometheus.NewRegistry())
	client := dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(srv.URL),
		Credentials:  credentials.NewStaticCredentialsProvider("local", "local", ""),
		Retryer: retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts = 3
			o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return time.Millisecond, nil })
			o.RateLimiter = nopRateLimit{}
		}),
		APIOptions: []func(*middleware.Stack) error{c.DynamoDBCalls},
	})
	_, err := client.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String("t"),
		Key: map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "a"}}})
	if err == nil {
		t.Fatal("GetItem succeeded against an endpoint that throttles every attempt")
	}
	if got := counterValue(t, c.dynamo.throttles, "GetItem"); got != 3 {
		t.Errorf("throttled attempts of GetItem = %v, want 3 (every attempt)", got)
	}
	if got := counterValue(t, c.dynamo.throttles, "Query"); got != 0 {
		t.Errorf("throttled attempts of Query = %v, want 0", got)
	}
}

// nopRateLimit is a retry quota that never refuses a retry.
type nopRateLimit struct{}

func (nopRateLimit) GetToken(context.Context, uint) (func() error, error) {
	return func() error { return nil }, nil
}
func (nopRateLimit) AddTokens(uint) error { return nil }

// TestDynamoDBCallsCountsConsumedCapacity: against DynamoDB Local, a
// PutItem and a GetItem that ask for ReturnConsumedCapacity add their
// units to the write and the read counter, under their operation.
func TestDynamoDBCallsCountsConsumedCapacity(t *testing.T) {
	c := New(prometheus.NewRegistry())
	client := dynamotest.MustClient(t, config.WithAPIOptions([]func(*middleware.Stack) error{c.DynamoDBCalls}))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	table := aws.String(fmt.Sprintf("metrics-%d-%d", os.Getpid(), time.Now().UnixNano()))
	if _, err := client.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            table,
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("PK"), KeyType: types.KeyTypeHash}},
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("PK"), AttributeType: types.ScalarAttributeTypeS}},
		BillingMode:          types.BillingModePayPerRequest,
	}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: table}) })
	key := map[string]types.AttributeValue{"PK": &types.AttributeValueMemberS{Value: "a"}}
	if _, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: table, Item: key, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.GetItem(ctx, &dynamodb.GetItemInput{TableName: table, Key: key, ConsistentRead: aws.Bool(true), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal}); err != nil {
		t.Fatal(err)
	}
	if got := counterValue(t, c.dynamo.writeUnit, "PutItem"); got != 1 {
		t.Errorf("write units of PutItem = %v, want 1", got)
	}
	if got := counterValue(t, c.dynamo.readUnits, "GetItem"); got != 1 {
		t.Errorf("read units of a consistent GetItem = %v, want 1", got)
	}
	if got := counterValue(t, c.dynamo.readUnits, "PutItem"); got != 0 {
		t.Errorf("read units of PutItem = %v, want 0", got)
	}
}

// TestGraphQLErrorsAndStreamLease: the error counter's initialized codes
// exist at zero and count by code; the lease gauge is 0 until StreamLease
// and then follows its function; a nil Collectors does nothing.
func TestGraphQLErrorsAndStreamLease(t *testing.T) {
	var nilC *Collectors
	nilC.ObserveGraphQLError("INTERNAL")
	nilC.StreamLease(func() bool { return true })
	c := New(prometheus.NewRegistry())
	c.InitGraphQLErrorCodes([]string{"BAD_USER_INPUT", "INTERNAL"})
	c.ObserveGraphQLError("BAD_USER_INPUT")
	c.ObserveGraphQLError("BAD_USER_INPUT")
	if got := counterValue(t, c.gqlErrors, "BAD_USER_INPUT"); got != 2 {
		t.Errorf("BAD_USER_INPUT errors = %v, want 2", got)
	}
	if got := counterValue(t, c.gqlErrors, "INTERNAL"); got != 0 {
		t.Errorf("INTERNAL errors = %v, want 0", got)
	}
	if c.streamLeaseHeld() {
		t.Error("the lease gauge reads held before StreamLease")
	}
	held := true
	c.StreamLease(func() bool { return held })
	if !c.streamLeaseHeld() {
		t.Error("the lease gauge reads not held while the lease is held")
	}
	held = false
	if c.streamLeaseHeld() {
		t.Error("the lease gauge reads held after the lease was lost")
	}
}
