package livehttp

import (
	"context"
	"errors"

	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/acme/comments-gateway/internal/gqlhttp"
	"github.com/acme/comments-gateway/live"
	"github.com/acme/comments-gateway/store"
)

// Enabled reports whether l serves subscriptions (false for a nil l).
func (l *Live) Enabled() bool {
	return l != nil && l.cfg.Hub != nil && l.fanout != nil
}

// RequiresAuth reports whether subscribing needs a credential.
func (l *Live) RequiresAuth() bool { return l.cfg.RequireAuth }

// Subscribe checks the connection's limit and joins the
// subscription's group (fanout.go) for the events of topic on product
// pid that pass flt; l must be Enabled, and the arguments valid. It
// returns the channel a subscription resolver returns: the group's events
// converted by conv, one at a time, when the group executes the operation
// through this subscriber.
func Subscribe[T any](ctx context.Context, l *Live, pid string, topic live.Topic, flt store.Filter, conv func(live.Event) T) (<-chan T, error) {
	c := liveConnFrom(ctx)
	if c != nil {
		if n := c.subs.Add(1); int(n) > l.cfg.MaxSubscriptionsPerConn {
			c.subs.Add(-1)
			return nil, gqlhttp.Coded(CodeLimitExceeded, "too many subscriptions on this connection")
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
	joined, err := l.fanout.join(ctx, c, pid, topic, flt, feed)
	if err != nil || !joined {
		if c != nil {
			c.subs.Add(-1)
		}
		var refused *gqlerror.Error
		switch {
		case errors.As(err, &refused): // the budget's (budget.go)
			return nil, refused
		case err == nil:
			return nil, store.Errorf(store.EINTERNAL, "a subscription outside a subscription operation")
		}
		return nil, store.Wrap(store.EUNAVAILABLE, err, "the server is shutting down; reconnect")
	}
	return out, nil
}
