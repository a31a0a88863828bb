package resolvers

import (
	"context"
	"errors"

	"github.com/acme/comments-gateway/auth"
	"github.com/acme/comments-gateway/live"
	"github.com/acme/comments-gateway/store"
)

// subscribe validates a subscription's arguments exactly as the comments
// and stats fields do, checks the credential and the connection's limit,
// and subscribes to the hub.
func (r *Resolver) subscribe(ctx context.Context, pid string, topic live.Topic, language *string, ratings []int) (*live.Subscription, error) {
	if r.Live == nil || r.Live.cfg.Hub == nil {
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
	sub, err := r.Live.cfg.Hub.Subscribe(pid, topic, f)
	if err != nil {
		if c != nil {
			c.subs.Add(-1)
		}
		return nil, store.Wrap(store.EUNAVAILABLE, err, "the server is shutting down; reconnect")
	}
	return sub, nil
}

// forward returns the channel a subscription resolver returns: the
// subscription's events converted by conv, closed when the request's
// context ends or the hub ends the subscription (a slow consumer is told
// why first).
func forward[T any](ctx context.Context, r *Resolver, sub *live.Subscription, conv func(live.Event) T) <-chan T {
	out := make(chan T)
	go func() {
		defer close(out)
		defer func() {
			r.Live.cfg.Hub.Unsubscribe(sub)
			if c := liveConnFrom(ctx); c != nil {
				c.subs.Add(-1)
			}
		}()
		for {
			select {
			case ev, ok := <-sub.Events():
				if !ok {
					if errors.Is(sub.Err(), live.ErrSlowConsumer) {
						liveConnFrom(ctx).slowConsumer(ctx)
					}
					return
				}
				select {
				case out <- conv(ev):
				case <-ctx.Done():
					return
				}
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}
