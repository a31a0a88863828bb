package store

import (
	"context"
	"slices"
	"sync"

	"github.com/acme/comments-gateway/store/table"
)

// Settles in groups (group commit). Every writer that changed a product's
// 5-star count must see the leaderboard entries count its write before it
// returns, but one settle whose read follows the commits of several
// writers counts them all. So the writers of one Store that settle the same
// entries (the same product and languages: the same marker language list)
// queue up: one at a time settles the entries for every marker queued when
// its settle starts, deleting them all in its Write, and hands the next
// round to the first writer queued after. A hot product's writers then
// take one settle a round instead of one each, and no longer race each
// other for the entries (each lost race cost a read and a write more);
// settles of other Stores (other gateway instances) still meet on the
// entries' conditions as before. A writer still returns only once its
// marker is settled, or its settle failed.

// maxSettleGroup bounds the markers one settle deletes: its Write holds
// them and the entries of up to three languages (an update's all, old and
// new).
const maxSettleGroup = table.MaxWriteOps - 3

// settleQueue holds, per product and marker languages, the writers waiting
// for a settle (zero value ready).
type settleQueue struct {
	mu     sync.Mutex
	groups map[string]*settleGroup
}

// settleGroup is the queue of one product and language list: running while
// a round is in flight (its settler hands over to waiting[0] when done).
type settleGroup struct {
	running bool
	waiting []*settleWaiter
}

// settleWaiter is one writer's marker in a queue. turn receives nil when
// the writer is to run the next round, or the outcome of the round that
// settled its marker.
type settleWaiter struct {
	marker table.Item
	turn   chan *settleOutcome
}

// settleOutcome is the result of the round that took a marker.
type settleOutcome struct{ err error }

// settleQueued settles marker with the other markers of the same entries
// queued on s: it runs the round itself when none is in flight, or waits
// for the round that takes it (and runs one when handed the turn). After a
// round that failed (say its settler's request was cancelled), it settles
// its own marker alone. A writer cancelled while still queued leaves,
// its marker in place (the next topProducts settles it).
func (s *Store) settleQueued(ctx context.Context, marker table.Item) error {
	key := marker.S(table.AttrProductID) + "\x00" + marker.S(table.AttrLanguage)
	w := &settleWaiter{marker: marker, turn: make(chan *settleOutcome, 1)}
	s.settles.mu.Lock()
	if s.settles.groups == nil {
		s.settles.groups = map[string]*settleGroup{}
	}
	g := s.settles.groups[key]
	if g == nil {
		g = &settleGroup{}
		s.settles.groups[key] = g
	}
	g.waiting = append(g.waiting, w)
	lead := !g.running
	g.running = true
	s.settles.mu.Unlock()
	if !lead {
		out, err := s.awaitTurn(ctx, g, w)
		if err != nil {
			return err
		}
		if out != nil {
			if out.err == nil {
				return nil
			}
			return s.settle(ctx, []table.Item{marker})
		}
	}
	return s.settleRound(ctx, key, g)
}

// awaitTurn waits until w's round is done (its outcome) or w is to run the
// next round (nil). Cancelled while still queued, w leaves the queue (an
// error); once taken by a round or handed the turn, it waits for that.
func (s *Store) awaitTurn(ctx context.Context, g *settleGroup, w *settleWaiter) (*settleOutcome, error) {
	select {
	case out := <-w.turn:
		return out, nil
	case <-ctx.Done():
	}
	s.settles.mu.Lock() // the turn and outcomes are sent under it
	select {
	case out := <-w.turn:
		s.settles.mu.Unlock()
		return out, nil
	default:
	}
	if i := slices.Index(g.waiting, w); i >= 0 {
		g.waiting = slices.Delete(g.waiting, i, i+1)
		s.settles.mu.Unlock()
		return nil, Wrap(EUNAVAILABLE, ctx.Err(), "request cancelled")
	}
	s.settles.mu.Unlock()
	return <-w.turn, nil // taken by the round in flight
}

// settleRound takes the markers queued in g (up to maxSettleGroup), settles
// them in one settle, tells their writers the outcome, and hands the turn
// to the next writer queued, or retires g when none is. It returns the
// outcome for the caller's own marker (the first taken).
func (s *Store) settleRound(ctx context.Context, key string, g *settleGroup) error {
	s.settles.mu.Lock()
	batch := g.waiting[:min(len(g.waiting), maxSettleGroup)]
	g.waiting = g.waiting[len(batch):]
	s.settles.mu.Unlock()
	markers := make([]table.Item, len(batch))
	for i, w := range batch {
		markers[i] = w.marker
	}
	err := s.settle(ctx, markers)
	s.settles.mu.Lock()
	for _, w := range batch[1:] {
		w.turn <- &settleOutcome{err: err}
	}
	if len(g.waiting) > 0 {
		g.waiting[0].turn <- nil
	} else {
		g.running = false
		delete(s.settles.groups, key)
	}
	s.settles.mu.Unlock()
	return err
}
