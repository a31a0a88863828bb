package tracing

import (
	"context"

	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/smithy-go/middleware"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// AWSCallSpans is an AWS SDK v2 API option (an entry of aws.Config's or a
// client's APIOptions; main passes it to store/dynamo.Open): it adds a
// middleware giving each API call (its retries included) a client span,
// "DynamoDB.Query", a child of the span in the call's context. It uses the
// global tracer provider at call time, so with tracing off it costs a no-op
// span.
//
// (go.opentelemetry.io/contrib/.../otelaws does this too, but is deprecated
// and pulls in the S3, SQS and SNS clients; the SDK's own replacement,
// smithyoteltracing, is not in the module proxy.)
func AWSCallSpans(stack *middleware.Stack) error {
	return stack.Initialize.Add(awsSpan, middleware.After)
}

var awsSpan = middleware.InitializeMiddlewareFunc("CommentsGatewayOTelSpan", func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
	service, op := awsmiddleware.GetServiceID(ctx), awsmiddleware.GetOperationName(ctx)
	ctx, span := otel.GetTracerProvider().Tracer(ScopeName).Start(ctx, service+"."+op,
		trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(
			attribute.String("rpc.system", "aws-api"),
			attribute.String("rpc.service", service),
			attribute.String("rpc.method", op),
			attribute.String("cloud.region", awsmiddleware.GetRegion(ctx)),
		))
	defer span.End()
	out, md, err := next.HandleInitialize(ctx, in)
	if id, ok := awsmiddleware.GetRequestIDMetadata(md); ok && span.IsRecording() {
		span.SetAttributes(attribute.String("aws.request_id", id))
	}
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	return out, md, err
})
