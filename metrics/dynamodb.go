package metrics

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go/middleware"
	"github.com/prometheus/client_golang/prometheus"
)

// dynamoOps are the DynamoDB data operations the gateway calls: their
// throttle and capacity series exist from the start at zero, so that a
// rate() over them works (and /metrics names them) before the first
// throttle, and on the embedded store too.
var dynamoOps = []string{
	"GetItem", "BatchGetItem", "Query", "Scan",
	"PutItem", "UpdateItem", "DeleteItem", "TransactWriteItems", "BatchWriteItem",
}

// dynamoCollectors are the DynamoDB client's metrics (DynamoDBCalls), by
// the API operation's name (a fixed set: the DynamoDB API).
type dynamoCollectors struct {
	throttles *prometheus.CounterVec
	readUnits *prometheus.CounterVec
	writeUnit *prometheus.CounterVec
}

func newDynamoCollectors() dynamoCollectors {
	d := dynamoCollectors{
		throttles: counterVec("comments_dynamodb_throttled_attempts_total",
			"DynamoDB call attempts refused by throttling (each retry counts), by API operation.", "op"),
		readUnits: counterVec("comments_dynamodb_read_capacity_units_total",
			"Read capacity units DynamoDB reported the gateway's calls consumed (ReturnConsumedCapacity), by API operation.", "op"),
		writeUnit: counterVec("comments_dynamodb_write_capacity_units_total",
			"Write capacity units DynamoDB reported the gateway's calls consumed (ReturnConsumedCapacity), by API operation.", "op"),
	}
	for _, op := range dynamoOps {
		d.throttles.WithLabelValues(op)
		d.readUnits.WithLabelValues(op)
		d.writeUnit.WithLabelValues(op)
	}
	return d
}

func (d dynamoCollectors) collectors() []prometheus.Collector {
	return []prometheus.Collector{d.throttles, d.readUnits, d.writeUnit}
}

// DynamoDBCalls is an AWS SDK v2 API option (main passes it to
// store/dynamo.Open, like tracing.AWSCallSpans): it counts each attempt
// the SDK's retryer classifies as throttled (after the Retry middleware,
// so every attempt is seen) and the capacity units a call's response
// reports (its ConsumedCapacity; a call that asks for none adds nothing).
// A nil Collectors adds nothing to the stack.
func (c *Collectors) DynamoDBCalls(stack *middleware.Stack) error {
	if c == nil {
		return nil
	}
	if err := stack.Initialize.Add(c.capacityMiddleware(), middleware.After); err != nil {
		return err
	}
	attempt := c.throttleMiddleware()
	if _, ok := stack.Finalize.Get("Retry"); ok {
		return stack.Finalize.Insert(attempt, "Retry", middleware.After)
	}
	return stack.Finalize.Add(attempt, middleware.After)
}

// throttleMiddleware counts the attempts whose error the SDK's standard
// throttle classification (the codes the retryer backs off for:
// ProvisionedThroughputExceededException, ThrottlingException,
// RequestLimitExceeded, …) calls a throttle.
func (c *Collectors) throttleMiddleware() middleware.FinalizeMiddleware {
	throttle := retry.IsErrorThrottles(retry.DefaultThrottles)
	return middleware.FinalizeMiddlewareFunc("CommentsGatewayThrottleMetrics", func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
		out, md, err := next.HandleFinalize(ctx, in)
		if err != nil && throttle.IsErrorThrottle(err) == aws.TrueTernary {
			c.dynamo.throttles.WithLabelValues(awsmiddleware.GetOperationName(ctx)).Inc()
		}
		return out, md, err
	})
}

// capacityMiddleware adds the capacity a call's response reports.
func (c *Collectors) capacityMiddleware() middleware.InitializeMiddleware {
	return middleware.InitializeMiddlewareFunc("CommentsGatewayCapacityMetrics", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
		out, md, err := next.HandleInitialize(ctx, in)
		if err == nil {
			c.dynamo.observeCapacity(awsmiddleware.GetOperationName(ctx), out.Result)
		}
		return out, md, err
	})
}

// observeCapacity adds the units of a response's ConsumedCapacity to the
// read or the write counter, by the kind of call.
func (d dynamoCollectors) observeCapacity(op string, result any) {
	var cc []types.ConsumedCapacity
	one := func(c *types.ConsumedCapacity) {
		if c != nil {
			cc = append(cc, *c)
		}
	}
	read := true
	switch r := result.(type) {
	case *dynamodb.GetItemOutput:
		one(r.ConsumedCapacity)
	case *dynamodb.QueryOutput:
		one(r.ConsumedCapacity)
	case *dynamodb.ScanOutput:
		one(r.ConsumedCapacity)
	case *dynamodb.BatchGetItemOutput:
		cc = r.ConsumedCapacity
	case *dynamodb.PutItemOutput:
		read = false
		one(r.ConsumedCapacity)
	case *dynamodb.UpdateItemOutput:
		read = false
		one(r.ConsumedCapacity)
	case *dynamodb.DeleteItemOutput:
		read = false
		one(r.ConsumedCapacity)
	case *dynamodb.TransactWriteItemsOutput:
		read = false
		cc = r.ConsumedCapacity
	case *dynamodb.BatchWriteItemOutput:
		read = false
		cc = r.ConsumedCapacity
	}
	var units float64
	for _, c := range cc {
		if c.CapacityUnits != nil {
			units += *c.CapacityUnits
		}
	}
	if units == 0 {
		return
	}
	if read {
		d.readUnits.WithLabelValues(op).Add(units)
	} else {
		d.writeUnit.WithLabelValues(op).Add(units)
	}
}
