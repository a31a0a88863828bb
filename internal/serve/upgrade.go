package serve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/acme/comments-gateway/internal/storespec"
	"github.com/acme/comments-gateway/store"
)

// upgradeEvery is how many scanned items a migration logs its progress at.
const upgradeEvery = 100_000

// upgradeStore makes sure the table is of the logical design this gateway
// reads (store.DesignVersion) before it serves: a table that holds the
// leaderboard of an older gateway (store.Design.Legacy) is migrated in
// place when it is an embedded file (the stats recounted by
// RebuildStats, progress in the log), and refused with the command that
// migrates it when it is a DynamoDB table (a full scan and rewrite of a
// shared table is an operator's decision, made with the older gateways
// stopped). Any other table has its design recorded.
func (a *app) upgradeStore(ctx context.Context) error {
	d, err := a.store.CheckDesign(ctx)
	if err != nil {
		return fmt.Errorf("reading the logical design of %s: %w", a.cfg.store, err)
	}
	if !d.Legacy {
		return nil
	}
	if a.cfg.store.Kind != storespec.Bolt {
		return errors.New(LegacyMessage(a.cfg.store))
	}
	return migrateLegacy(ctx, a.store, a.cfg.store, a.log)
}

// projectionChecker is a table whose indexes may project fewer attributes
// than a page shows (a DynamoDB table created before helpful votes,
// verified purchases and replies; see dynamo.Table.CheckProjections). The
// embedded store rebuilds its indexes on open and has no such check.
type projectionChecker interface {
	CheckProjections(ctx context.Context) error
}

// checkProjections refuses to serve a table whose indexes lack attributes
// a page shows: its pages would show no reply, no verified badge and zero
// helpful counts. The refusal names the command that replaces them.
func checkProjections(ctx context.Context, tbl any, spec storespec.Spec) error {
	pc, ok := tbl.(projectionChecker)
	if !ok {
		return nil
	}
	if err := pc.CheckProjections(ctx); err != nil {
		return fmt.Errorf("%w; %s", err, ProjectionMessage(spec))
	}
	return nil
}

// ProjectionMessage is the command that upgrades the indexes of spec's
// table to the projection this gateway reads.
func ProjectionMessage(spec storespec.Spec) string {
	return fmt.Sprintf("run `comments-gateway create-table -store %s` once (it rebuilds those indexes one at a time), then start this one", spec)
}

// LegacyMessage says why a table of logical design 1 is not served and
// the command that upgrades it (serve refuses such a DynamoDB table with
// it; create-table notes it).
func LegacyMessage(spec storespec.Spec) string {
	return fmt.Sprintf("%s holds a leaderboard written by an older comments-gateway (logical design 1), "+
		"which this one does not read (topProducts would leave those products out): stop the older gateways, "+
		"run `comments-gateway rebuild-stats -store %s` once, then start this one", spec, spec)
}

// migrateLegacy upgrades the table of s to store.DesignVersion with the
// stats rebuild (a parallel scan), logging its progress.
func migrateLegacy(ctx context.Context, s *store.Store, spec storespec.Spec, log *slog.Logger) error {
	start := time.Now()
	log.Info("upgrading the store to logical design "+fmt.Sprint(store.DesignVersion)+": recounting the stats and moving the leaderboard",
		"store", spec.String())
	var next int64 = upgradeEvery
	res, err := s.RebuildStatsWith(ctx, store.RebuildOptions{Segments: 4, Progress: func(n int64) {
		if n >= next {
			log.Info("upgrading the store", "store", spec.String(), "scanned", n)
			next = (n/upgradeEvery + 1) * upgradeEvery
		}
	}})
	if err != nil {
		return fmt.Errorf("upgrading %s to logical design %d (starting serve again, or `comments-gateway rebuild-stats -store %s`, finishes it): %w",
			spec, store.DesignVersion, spec, err)
	}
	log.Info("upgraded the store", "store", spec.String(), "design", store.DesignVersion, "comments", res.Comments,
		"products", res.Products, "took", time.Since(start).Round(time.Millisecond).String())
	return nil
}
