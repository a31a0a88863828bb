package resolvers

import (
	"context"

	"github.com/acme/comments-gateway/auth"
	"github.com/acme/comments-gateway/graph/model"
	"github.com/acme/comments-gateway/internal/gqlhttp"
	"github.com/acme/comments-gateway/internal/policy"
	"github.com/acme/comments-gateway/store"
)

// The merchant's part at the edge (docs/api.md, merchant replies): who may
// reply and who may mark a purchase verified. The roles come from the
// request's principal (package auth); the reply's rules are the store's
// (store.ReplyToComment).

// requireRole refuses a request whose principal lacks a role that may
// use what: UNAUTHENTICATED without a credential (with mutations open in
// dev mode), FORBIDDEN with one that does not have it.
// roles names the roles and keys is the flags of their API keys, for the
// messages.
func requireRole(ctx context.Context, may func(*auth.Principal) bool, what, roles, keys string) error {
	p, _ := auth.FromContext(ctx)
	switch {
	case p == nil:
		return gqlhttp.Coded(policy.CodeUnauthenticated, what+" needs a credential of the "+roles+" role")
	case !may(p):
		return store.Errorf(store.EFORBIDDEN, "%s is for the %s role only: a JWT with the role, or an API key of %s", what, roles, keys)
	}
	return nil
}

// replyTarget is the comment of a reply mutation, after checking that the
// caller may reply (a merchant or a moderator). An unpublished comment is
// found only by those who may see it (see visible).
func replyTarget(ctx context.Context, what, id string) (store.ReplyTarget, error) {
	if err := requireRole(ctx, (*auth.Principal).MayReply, what,
		`"merchant" or "moderator"`, "-merchant-api-keys or -moderator-api-keys"); err != nil {
		return store.ReplyTarget{}, err
	}
	p, _ := auth.FromContext(ctx)
	return store.ReplyTarget{CommentID: id, Unpublished: p.MayChangeAny()}, nil
}

// checkVerifiedPurchase refuses verifiedPurchase: true from a caller
// without the merchant role (false, or omitted, is anyone's).
func checkVerifiedPurchase(ctx context.Context, v *bool) (bool, error) {
	if v == nil || !*v {
		return false, nil
	}
	return true, requireRole(ctx, (*auth.Principal).MayVerifyPurchase, "verifiedPurchase: true",
		`"merchant"`, "-merchant-api-keys")
}

// replyPayload maps the outcome of a reply mutation, its invalid
// arguments under input.
func replyPayload(c *store.Comment, err error) (*model.ReplyPayload, error) {
	if err != nil {
		return nil, inputErrors(err, "input")
	}
	return &model.ReplyPayload{Comment: c}, nil
}
