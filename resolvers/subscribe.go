package resolvers

import (
	"context"

	"github.com/acme/comments-gateway/auth"
	"github.com/acme/comments-gateway/internal/gqlhttp"
	"github.com/acme/comments-gateway/internal/policy"
	"github.com/acme/comments-gateway/live"
	"github.com/acme/comments-gateway/live/livehttp"
	"github.com/acme/comments-gateway/store"
)

// subscribe validates a subscription's arguments exactly as the comments
// and stats fields do and checks the credential, then subscribes through
// the live transport (livehttp.Subscribe). It returns the channel the
// subscription resolver returns: the events of its group converted by
// conv.
func subscribe[T any](ctx context.Context, r *Resolver, pid string, topic live.Topic, language *string, ratings []int, conv func(live.Event) T) (<-chan T, error) {
	if !r.Live.Enabled() {
		return nil, store.Errorf(store.EUNAVAILABLE, "subscriptions are not enabled on this server")
	}
	if err := store.ValidateID("product id", pid); err != nil {
		return nil, err
	}
	f, err := commentFilter(language, ratings)
	if err != nil {
		return nil, err
	}
	if p, err := auth.FromContext(ctx); r.Live.RequiresAuth() && (p == nil || err != nil) {
		return nil, gqlhttp.Coded(policy.CodeUnauthenticated, "subscriptions need a credential: Authorization: Bearer <API key or token>, or X-API-Key (websocket: in the connection_init payload)")
	}
	return livehttp.Subscribe(ctx, r.Live, pid, topic, f, conv)
}
