package tracing

import (
	"context"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Extension is a gqlgen handler extension giving each operation a span
// (named after its type and name, "query commentsByProduct") and each
// resolver call (a field with a resolver, not a plain struct field) a child
// span named after the field ("Query.comments") with its GraphQL path as an
// attribute. Errors are recorded on the spans.
type Extension struct{ tracer trace.Tracer }

var (
	_ graphql.HandlerExtension     = Extension{}
	_ graphql.OperationInterceptor = Extension{}
	_ graphql.FieldInterceptor     = Extension{}
)

// NewExtension returns an Extension creating spans with tp.
func NewExtension(tp trace.TracerProvider) Extension {
	return Extension{tracer: tp.Tracer(ScopeName)}
}

// ExtensionName implements graphql.HandlerExtension.
func (Extension) ExtensionName() string { return "OpenTelemetry" }

// Validate implements graphql.HandlerExtension.
func (Extension) Validate(graphql.ExecutableSchema) error { return nil }

// InterceptOperation starts the operation's span; it ends when the response
// is produced.
func (e Extension) InterceptOperation(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	oc := graphql.GetOperationContext(ctx)
	typ, name := "query", oc.OperationName
	if oc.Operation != nil {
		typ = string(oc.Operation.Operation)
		if name == "" {
			name = oc.Operation.Name
		}
	}
	spanName := typ
	if name != "" {
		spanName += " " + name
	}
	ctx, span := e.tracer.Start(ctx, spanName, trace.WithAttributes(
		attribute.String("graphql.operation.type", typ),
		attribute.String("graphql.operation.name", name),
	))
	h := next(ctx)
	var once sync.Once
	return func(ctx context.Context) *graphql.Response {
		resp := h(ctx)
		once.Do(func() {
			if resp != nil && len(resp.Errors) > 0 {
				span.SetStatus(codes.Error, resp.Errors.Error())
			}
			span.End()
		})
		return resp
	}
}

// InterceptField gives a resolver call its span.
func (e Extension) InterceptField(ctx context.Context, next graphql.Resolver) (any, error) {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || !fc.IsResolver {
		return next(ctx)
	}
	ctx, span := e.tracer.Start(ctx, fc.Object+"."+fc.Field.Name, trace.WithAttributes(
		attribute.String("graphql.field.path", fc.Path().String()),
		attribute.String("graphql.field.name", fc.Field.Name),
		attribute.String("graphql.field.type", fc.Object),
	))
	defer span.End()
	res, err := next(ctx)
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	return res, err
}
