package resolvers

import (
	"context"
	"errors"

	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/acme/comments-gateway/auth"
	"github.com/acme/comments-gateway/live"
	"github.com/acme/comments-gateway/store"
)

// subscribe validates a subscription's arguments exactly as the comments
// and stats fields do, checks the credential and the connection's limit,
// and joins the subscription's group (livefanout.go). It returns the
// channel the subscription resolver returns: the group's events converted
// by conv, one at a time, when the group executes the operation through
// this subscriber.
func subscribe[T any](ctx context.Context, r *Resolver, pid string, topic live.Topic, language *string, ratings []int, conv func(live.Event) T) (<-chan T, error) {
	if r.Live == nil || r.Live.cfg.Hub == nil || r.Live.fanout == nil {
		return nil, store.Errorf(store.EUNAVAILABLE, "subscriptions are not enabled on this server")
	}
	if err := store.ValidateID("product id", pid); err != nil {
		return nil, err
	}
	f, err := commentFilter(language, ratings)
	if err != nil {
		return nil, err
	}
	if p, err := auth.FromContext(ctx); r.Live.cfg.RequireAuth && (p == nil || err != nil) {
		return nil, codedError(CodeUnauthenticated, "subscriptions need a credential: Authorization: Bearer <API key or token>, or X-API-Key (websocket: in the connection_init payload)")
	}
	c := liveConnFrom(ctx)
	if c != nil {
		if n := c.subs.Add(1); int(n) > r.Live.cfg.MaxSubscriptionsPerConn {
			c.subs.Add(-1)
			return nil, codedError(CodeLimitExceeded, "too many subscriptions on this connection")
		}
	}
	// Only the group's goroutine sends, and only the execution it then runs
	// receives: the one slot never blocks it.
	out := make(chan T, 1)
	feed := func(ev live.Event) {
		select {
		case <-out:
		default:
		}
		out <- conv(ev)
	}
	joined, err := r.Live.fanout.join(ctx, c, pid, topic, f, feed)
	if err != nil || !joined {
		if c != nil {
			c.subs.Add(-1)
		}
		var refused *gqlerror.Error
		switch {
		case errors.As(err, &refused): // the budget's (livebudget.go)
			return nil, refused
		case err == nil:
			return nil, store.Errorf(store.EINTERNAL, "a subscription outside a subscription operation")
		}
		return nil, store.Wrap(store.EUNAVAILABLE, err, "the server is shutting down; reconnect")
	}
	return out, nil
}
