package policy

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/99designs/gqlgen/graphql"

	"github.com/acme/comments-gateway/auth"
	"github.com/acme/comments-gateway/internal/gqlhttp"
	"github.com/acme/comments-gateway/store"
)

// GuardMutations returns the field middleware that enforces access on the
// Mutation root fields when credentials are configured (a nil or disabled
// authenticator leaves mutations open; cmdServe decides whether that is
// allowed). Queries are never checked (MutationGuard installs it on
// mutations only).
//
//   - no credential, or an invalid one: UNAUTHENTICATED;
//   - an API key or a moderator's JWT may do anything;
//   - with any other JWT, createComment stores the token's subject as the
//     comment's author and owner (input.author is ignored), and
//     updateComment/deleteComment change only that subject's comments
//     (comments created without a JWT have no owner): the store checks it
//     in the write itself and refuses with EFORBIDDEN, which the edge shows
//     as FORBIDDEN (see ChangeOwner).
func GuardMutations(a *auth.Authenticator) graphql.FieldMiddleware {
	return func(ctx context.Context, next graphql.Resolver) (any, error) {
		fc := graphql.GetFieldContext(ctx)
		if !a.Enabled() || fc == nil || fc.Object != "Mutation" {
			return next(ctx)
		}
		switch p, err := auth.FromContext(ctx); {
		case err != nil:
			return nil, gqlhttp.Coded(CodeUnauthenticated, "the credential is not valid")
		case p == nil:
			return nil, gqlhttp.Coded(CodeUnauthenticated, "mutations need a credential: Authorization: Bearer <API key or token>, or X-API-Key")
		}
		return next(ctx)
	}
}

// Authenticate is the credentials' layer when a is configured: it puts
// the request's principal in its context (package auth) and refuses an
// oversize credential (refuseOversizeCredential); nil when a is not.
func Authenticate(a *auth.Authenticator) gqlhttp.Middleware {
	if !a.Enabled() {
		return nil
	}
	return func(next http.Handler) http.Handler { return a.Middleware(refuseOversizeCredential(next)) }
}

// refuseOversizeCredential answers a request whose credential header is
// larger than auth.MaxCredentialBytes (Authenticate found it so without
// reading it) with 401 UNAUTHENTICATED and WWW-Authenticate: Bearer
// error="invalid_token" (RFC 6750), before the rate limit, the caches or
// the live connections look at the request: such a header is no
// credential, and a client that sends one is told so, not served as
// anonymous.
func refuseOversizeCredential(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := auth.FromContext(r.Context()); errors.Is(err, auth.ErrCredentialTooLarge) {
			gqlhttp.WriteError(w, http.StatusUnauthorized, CodeUnauthenticated,
				fmt.Sprintf("the credential is too large: an Authorization or X-API-Key header has at most %d bytes", auth.MaxCredentialBytes),
				"WWW-Authenticate", `Bearer error="invalid_token"`)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// ChangeOwner is whose comments the request's updateComment and
// deleteComment may change: a JWT's subject's only, unless the token is a
// moderator's; anyone's with an API key, or when mutations are open.
func ChangeOwner(ctx context.Context) store.Owner {
	if p, _ := auth.FromContext(ctx); p != nil && !p.MayChangeAny() {
		return store.OwnedBy(p.Subject)
	}
	return store.AnyOwner
}
