package resolvers

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/acme/comments-gateway/auth"
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
//     updateComment/deleteComment change only that subject's comments
//     (comments created without a JWT have no owner): the store checks it
//     in the write itself and refuses with EFORBIDDEN, which the edge shows
//     as FORBIDDEN (see changeOwner).
func guardMutations(a *auth.Authenticator) graphql.FieldMiddleware {
	return func(ctx context.Context, next graphql.Resolver) (any, error) {
		fc := graphql.GetFieldContext(ctx)
		if !a.Enabled() || fc == nil || fc.Object != "Mutation" {
			return next(ctx)
		}
		switch p, err := auth.FromContext(ctx); {
		case err != nil:
			return nil, codedError(CodeUnauthenticated, "the credential is not valid")
		case p == nil:
			return nil, codedError(CodeUnauthenticated, "mutations need a credential: Authorization: Bearer <API key or token>, or X-API-Key")
		}
		return next(ctx)
	}
}

// changeOwner is whose comments the request's updateComment and
// deleteComment may change: a JWT's subject's only, unless the token is a
// moderator's; anyone's with an API key, or when mutations are open.
func changeOwner(ctx context.Context) store.Owner {
	if p, _ := auth.FromContext(ctx); p != nil && !p.MayChangeAny() {
		return store.OwnedBy(p.Subject)
	}
	return store.AnyOwner
}

func codedError(code, msg string) *gqlerror.Error {
	e := &gqlerror.Error{Message: msg}
	setCode(e, code)
	return e
}
