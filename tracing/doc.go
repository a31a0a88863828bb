// Package tracing is the gateway's OpenTelemetry tracing: the OTLP exporter
// set up from flags and the standard OTEL_* variables, the HTTP server span
// (otelhttp), a gqlgen extension giving each operation and each resolver call
// a span, and an AWS SDK middleware giving each DynamoDB call a span.
//
// The spans nest as the work does: the HTTP span (HTTP, continuing an
// incoming traceparent) holds the operation's span, which holds a span per
// resolver call (NewExtension), which holds the client span of each DynamoDB
// call that resolver made (AWSCallSpans, retries included).
//
// Tracing is off unless an OTLP endpoint is configured (Setup, Enabled).
// Off, the HTTP handler and the GraphQL server are not wrapped, and the AWS
// middleware, which main installs on the DynamoDB client it opens
// (store/dynamo.Open(ctx, table, AWSCallSpans)), starts no-op spans of
// OpenTelemetry's global no-op provider.
package tracing
