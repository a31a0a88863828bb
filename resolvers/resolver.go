package resolvers

import (
	"log/slog"

	"github.com/acme/comments-gateway/live/livehttp"
	"github.com/acme/comments-gateway/store"
)

// Resolver is the one injection point of the GraphQL layer: the store and
// the logger. Resolvers stay thin: they parse arguments, call a loader or
// the store, and return store errors for the presenter to map.
type Resolver struct {
	Store  *store.Store
	Logger *slog.Logger
	Live   *livehttp.Live // subscriptions (nil: off)
}
