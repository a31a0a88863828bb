package resolvers

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/acme/comments-gateway/auth"
	"github.com/acme/comments-gateway/graph/model"
	"github.com/acme/comments-gateway/store"
)

// guardMutations returns the field middleware that enforces access on the
// Mutation root fields when credentials are configured (a nil or disabled
// authenticator leaves mutations open; cmdServe decides whether that is
// allowed). Queries are never checked (mutationGuard installs it on
// mutations only).
//
//   - no credential, or an invalid one: UNAUTHENTICATED;
//   - an API key or a moderator's JWT may do anything;
//   - with any other JWT, createComment stores the token's subject as the
//     comment's author and owner (input.author is ignored), and
//     updateComment/deleteComment are FORBIDDEN unless the comment's owner
//     is that subject (comments created without a JWT have no owner).
func guardMutations(a *auth.Authenticator, s *store.Store) graphql.FieldMiddleware {
	return func(ctx context.Context, next graphql.Resolver) (any, error) {
		fc := graphql.GetFieldContext(ctx)
		if !a.Enabled() || fc == nil || fc.Object != "Mutation" {
			return next(ctx)
		}
		p, err := auth.FromContext(ctx)
		switch {
		case err != nil:
			return nil, codedError(CodeUnauthenticated, "the credential is not valid")
		case p == nil:
			return nil, codedError(CodeUnauthenticated, "mutations need a credential: Authorization: Bearer <API key or token>, or X-API-Key")
		}
		if p.Kind == auth.KindAPIKey {
			return next(ctx)
		}
		switch fc.Field.Name {
		case "createComment":
			return next(ctx) // the resolver makes the token's subject the author
		case "updateComment", "deleteComment":
			if p.MayChangeAny() {
				return next(ctx)
			}
			var id string
			switch in := fc.Args["input"].(type) {
			case model.UpdateCommentInput:
				id = in.ID
			case model.DeleteCommentInput:
				id = in.ID
			}
			if store.ValidateID("comment id", id) != nil {
				return next(ctx) // the resolver reports the bad id
			}
			cs, err := s.GetComments(ctx, []string{id})
			if err != nil {
				return nil, err
			}
			if cs[0] == nil {
				return next(ctx) // NOT_FOUND
			}
			// The owner never changes once created, and ids are never
			// reused, so checking before the write is enough.
			if cs[0].AuthorID == "" || cs[0].AuthorID != p.Subject {
				return nil, codedError(CodeForbidden, "only the comment's author or a moderator may change it")
			}
			return next(ctx)
		}
		return next(ctx)
	}
}

func codedError(code, msg string) *gqlerror.Error {
	e := &gqlerror.Error{Message: msg}
	setCode(e, code)
	return e
}
