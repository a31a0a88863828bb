package resolvers

import (
	"context"

	"github.com/99designs/gqlgen/graphql"

	"github.com/acme/comments-gateway/internal/policy"
	"github.com/acme/comments-gateway/live/livehttp"
)

// liveDeps is what the live transport gets of this handler: its
// credentials, client naming, request timeout, the cost analysis's
// complexity, fresh dataloaders per event, the delivery metric and the
// rate limit (nil rl: none).
func liveDeps(cfg Config, rl *policy.RateLimiter) livehttp.Deps {
	d := livehttp.Deps{
		Auth:           cfg.Auth,
		ClientOf:       policy.ClientID,
		RequestTimeout: cfg.RequestTimeout,
		Complexity:     policy.MeasuredComplexity,
		PerEvent: func(ctx context.Context) context.Context {
			op := graphql.GetOperationContext(ctx).Operation
			return context.WithValue(ctx, loadersKey{}, newLoaders(cfg.Store, cfg.LoaderWait, planLoads(op)))
		},
	}
	if cfg.Metrics != nil {
		d.ObserveDelivery = cfg.Metrics.ObserveLiveDelivery
	}
	if rl != nil {
		d.Rate = rl
	}
	return d
}
