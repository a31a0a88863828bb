package storespec

import (
	"context"

	"fmt"
	"strings"

	"github.com/aws/smithy-go/middleware"

	"github.com/acme/comments-gateway/store/bolt"
	"github.com/acme/comments-gateway/store/table"
)

// Default is -store's default: a bolt file in the working directory.
const Default = "bolt:comments.db"

// The kinds of store a Spec names.
const (
	Bolt     = "bolt"
	DynamoDB = "dynamodb"
)

// Spec is a parsed -store value: bolt:PATH or dynamodb:TABLE.
type Spec struct {
	Kind string // Bolt or DynamoDB
	Arg  string // the file's path or the table's name
}

// String is the spec as written: bolt:PATH or dynamodb:TABLE.
func (s Spec) String() string { return s.Kind + ":" + s.Arg }

// Parse parses a -store spec: bolt:PATH or dynamodb:TABLE.
func Parse(spec string) (Spec, error) {
	kind, arg, ok := strings.Cut(spec, ":")
	if !ok || arg == "" {
		return Spec{}, fmt.Errorf("-store %q: want bolt:PATH or dynamodb:TABLE", spec)
	}
	if kind != Bolt && kind != DynamoDB {
		return Spec{}, fmt.Errorf("-store %q: unknown store %q (want bolt or dynamodb)", spec, kind)
	}
	return Spec{Kind: kind, Arg: arg}, nil
}

// Open opens the Table the spec names; apiOptions go to a DynamoDB
// client's middleware stack (OpenDynamo).
func (s Spec) Open(ctx context.Context, apiOptions ...func(*middleware.Stack) error) (table.Table, error) {
	if s.Kind == Bolt {
		return bolt.Open(s.Arg)
	}
	return OpenDynamo(ctx, s.Arg, apiOptions...)
}

// Open opens the Table a -store spec names: bolt:PATH or dynamodb:TABLE.
func Open(ctx context.Context, spec string) (table.Table, error) {
	s, err := Parse(spec)
	if err != nil {
		return nil, err
	}
	return s.Open(ctx)
}
