package resolvers

import (
	"context"

	"github.com/acme/comments-gateway/auth"
	"github.com/acme/comments-gateway/graph/model"
	"github.com/acme/comments-gateway/internal/gqlhttp"
	"github.com/acme/comments-gateway/internal/policy"
	"github.com/acme/comments-gateway/store"
)

// Moderation at the edge (docs/moderation.md): who may moderate, who sees
// an unpublished comment, and the lists' GraphQL form. The rules of the
// transitions are the store's (store.Moderate).

// requireModerator refuses, with FORBIDDEN, a request that is not a
// moderator's: a JWT with the moderator role, or a moderator API key
// (-moderator-api-keys). A plain API key may change any comment but not
// moderate.
func requireModerator(ctx context.Context) error {
	if p, _ := auth.FromContext(ctx); p.MayModerate() {
		return nil
	}
	return store.Errorf(store.EFORBIDDEN, "moderators only: this needs a JWT with the %q role, or a moderator API key (-moderator-api-keys)", auth.ModeratorRole)
}

// visible returns c when the request may see it: a published comment, or
// any to its author (a JWT's subject) and to moderators; nil otherwise, as
// for a comment that does not exist.
func visible(ctx context.Context, c *store.Comment) *store.Comment {
	if c == nil || c.Status == store.StatusPublished {
		return c
	}
	p, _ := auth.FromContext(ctx)
	if p.MayChangeAny() || p != nil && p.Kind == auth.KindJWT && c.AuthorID != "" && p.Subject == c.AuthorID {
		return c
	}
	return nil
}

// reporter is the identity a report of the request counts under: one per
// JWT subject; every API key is the one reporter "api-key". A request
// without a credential is UNAUTHENTICATED.
func reporter(ctx context.Context) (string, error) {
	p, _ := auth.FromContext(ctx)
	switch {
	case p == nil:
		return "", gqlhttp.Coded(policy.CodeUnauthenticated, "reportComment needs a credential: Authorization: Bearer <token>")
	case p.Kind == auth.KindJWT:
		return "jwt:" + p.Subject, nil
	}
	return string(p.Kind), nil
}

// moderate is the resolver of the four moderators' mutations.
func (r *mutationResolver) moderate(ctx context.Context, id string, a store.Action, reason *string) (*model.ModerateCommentPayload, error) {
	if err := requireModerator(ctx); err != nil {
		return nil, err
	}
	c, err := r.Store.Moderate(ctx, id, a, deref(reason))
	if err != nil {
		return nil, inputErrors(asArgument(err, "id"), "input")
	}
	return &model.ModerateCommentPayload{Comment: c}, nil
}

// deref is *s, or "" for nil.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// listPageArgs reads a moderation list's first and after.
func listPageArgs(first *int, after *string) (int, string) {
	n := store.DefaultListPage
	if first != nil {
		n = *first
	}
	return n, deref(after)
}

// moderationConnection maps a page of a moderation list to its connection.
func moderationConnection(p *store.CommentPage) *model.ModerationConnection {
	out := &model.ModerationConnection{
		Edges:    make([]*model.CommentEdge, len(p.Comments)),
		Nodes:    p.Comments,
		PageInfo: &model.PageInfo{HasNextPage: p.HasNext},
	}
	for i, c := range p.Comments {
		out.Edges[i] = &model.CommentEdge{Cursor: p.Cursors[i], Node: c}
	}
	if n := len(p.Cursors); n > 0 {
		start, end := p.Cursors[0], p.Cursors[n-1]
		out.PageInfo.StartCursor, out.PageInfo.EndCursor = &start, &end
	}
	return out
}
