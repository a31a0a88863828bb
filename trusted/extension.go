package trusted

import (
	"context"
	"maps"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// A refusal of a document is about the request, as a parse or validation
// error is: a websocket transport answers it with an `error` message.
func init() {
	errcode.RegisterErrorType(CodeRequired, errcode.KindProtocol)
	errcode.RegisterErrorType(CodeMismatch, errcode.KindProtocol)
}

// Extension is the same rule inside gqlgen, for every transport (a
// subscription over a websocket does not pass Middleware): it resolves
// extensions.persistedQuery.sha256Hash through the manifest and, with Only,
// refuses a document outside it. Register it before the APQ extension, which
// then sees only the hashes the manifest lacks.
type Extension struct {
	Manifest *Manifest
}

var _ interface {
	graphql.OperationParameterMutator
	graphql.HandlerExtension
} = Extension{}

// ExtensionName names the extension for gqlgen.
func (Extension) ExtensionName() string { return "TrustedDocuments" }

// Validate accepts any schema.
func (Extension) Validate(graphql.ExecutableSchema) error { return nil }

// MutateOperationParameters puts the trusted document in place of its hash,
// or refuses the operation.
func (e Extension) MutateOperationParameters(ctx context.Context, p *graphql.RawParams) *gqlerror.Error {
	var hash string
	if pq, ok := p.Extensions["persistedQuery"].(map[string]any); ok {
		hash, _ = pq["sha256Hash"].(string)
	}
	doc, ref := e.Manifest.resolve("", hash, p.Query)
	switch {
	case ref != nil:
		return &gqlerror.Error{Message: ref.message, Extensions: map[string]any{"code": ref.code}}
	case doc != "":
		p.Query = doc
		p.Extensions = maps.Clone(p.Extensions)
		delete(p.Extensions, "persistedQuery")
	}
	return nil
}
