package live

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/acme/comments-gateway/store"
)

// Topic is what a subscriber receives.
type Topic int

// Topics.
const (
	// TopicAdded: each new comment that matches the filter.
	TopicAdded Topic = iota + 1
	// TopicChanged: every change of the filtered list (see Hub.Publish).
	TopicChanged
	// TopicStats: the statistics of the filter's language ("" for all)
	// after a change that moved them.
	TopicStats
)

// Event is one delivery to a subscriber.
type Event struct {
	// Kind is relative to the subscriber's filter (TopicAdded and
	// TopicChanged): ADDED when the comment entered the list, UPDATED when
	// it changed in it, DELETED when it left it.
	Kind    store.ChangeKind
	Comment *store.Comment
	Stats   *store.Stats // TopicStats
	// Published is when the hub received the change (Publish), right after
	// the write's commit in one process; for TopicStats, when the
	// statistics were read.
	Published time.Time
}

// Why a Hub ends a subscription (Subscription.Err).
var (
	ErrSlowConsumer = errors.New("live: the subscriber did not read its events fast enough")
	ErrClosed       = errors.New("live: the server is shutting down")
)

// StatsReader reads statistics, aligned with ids (store.Store.GetStats).
type StatsReader func(ctx context.Context, ids []store.StatsID) ([]*store.Stats, error)

// DefaultBuffer is how many undelivered events a subscriber may have.
const DefaultBuffer = 64

// statsTimeout bounds one statistics read; statsRetry is the pause before
// a failed read is tried again.
const (
	statsTimeout = 5 * time.Second
	statsRetry   = time.Second
)

// Config configures a Hub.
type Config struct {
	// Buffer is how many undelivered events a subscriber may have before it
	// is ended with ErrSlowConsumer (DefaultBuffer when 0).
	Buffer int
	// Stats reads the statistics that TopicStats subscribers receive.
	Stats  StatsReader
	Logger *slog.Logger
}

// Hub fans committed changes out to subscribers. It is safe for concurrent
// use; Publish never blocks on a subscriber.
type Hub struct {
	cfg     Config
	mu      sync.Mutex
	subs    map[string]map[*Subscription]struct{} // by product id
	n       int
	closed  bool
	dirty   map[store.StatsID]bool // statistics to read and send
	wake    chan struct{}
	done    chan struct{}
	stopped chan struct{}
}

// Subscription is one subscriber of a Hub.
type Subscription struct {
	productID string
	topic     Topic
	filter    store.Filter
	ch        chan Event
	err       error // why the hub ended it; guarded by Hub.mu
	ended     bool  // guarded by Hub.mu
	hub       *Hub
}

// NewHub returns a running Hub; Close stops it.
func NewHub(cfg Config) *Hub {
	if cfg.Buffer <= 0 {
		cfg.Buffer = DefaultBuffer
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	h := &Hub{
		cfg: cfg, subs: map[string]map[*Subscription]struct{}{}, dirty: map[store.StatsID]bool{},
		wake: make(chan struct{}, 1), done: make(chan struct{}), stopped: make(chan struct{}),
	}
	go h.statsLoop()
	return h
}

// Subscribe adds a subscriber to product pid's topic, with filter f (for
// TopicStats only f.Language counts). It fails with ErrClosed once the hub
// is closed.
func (h *Hub) Subscribe(pid string, topic Topic, f store.Filter) (*Subscription, error) {
	s := &Subscription{productID: pid, topic: topic, filter: f, ch: make(chan Event, h.cfg.Buffer), hub: h}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, ErrClosed
	}
	if h.subs[pid] == nil {
		h.subs[pid] = map[*Subscription]struct{}{}
	}
	h.subs[pid][s] = struct{}{}
	h.n++
	return s, nil
}

// Events returns the subscriber's events; it is closed when the
// subscription ends (Unsubscribe, or the hub ended it: see Err).
func (s *Subscription) Events() <-chan Event { return s.ch }

// Err returns why the hub ended the subscription (ErrSlowConsumer,
// ErrClosed), or nil.
func (s *Subscription) Err() error {
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	return s.err
}

// Unsubscribe ends s (a no-op when it has ended).
func (h *Hub) Unsubscribe(s *Subscription) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.end(s, nil)
}

// end removes s and closes its events; h.mu is held.
func (h *Hub) end(s *Subscription, err error) {
	if s.ended {
		return
	}
	s.ended, s.err = true, err
	close(s.ch)
	delete(h.subs[s.productID], s)
	if len(h.subs[s.productID]) == 0 {
		delete(h.subs, s.productID)
	}
	h.n--
}

// Buffer returns how many undelivered events a subscriber may have.
func (h *Hub) Buffer() int { return h.cfg.Buffer }

// Subscribers returns the number of subscribers.
func (h *Hub) Subscribers() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.n
}

// Products returns the products that have subscribers, in no order.
func (h *Hub) Products() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Collect(maps.Keys(h.subs))
}

// Publish delivers a committed change to the product's subscribers. A
// subscriber whose buffer is full is ended with ErrSlowConsumer. It
// implements store.Publisher.
func (h *Hub) Publish(ch store.Change) {
	pid := ch.Comment.ProductID
	now := time.Now()
	h.mu.Lock()
	defer h.mu.Unlock()
	statsWanted := false
	for s := range h.subs[pid] {
		switch s.topic {
		case TopicAdded:
			if ch.Kind == store.ChangeAdded && s.filter.Matches(ch.Comment) {
				h.deliver(s, Event{Kind: store.ChangeAdded, Comment: ch.Comment, Published: now})
			}
		case TopicChanged:
			if kind, ok := listChange(ch, s.filter); ok {
				h.deliver(s, Event{Kind: kind, Comment: ch.Comment, Published: now})
			}
		case TopicStats:
			if statsMoved(ch, s.filter.Language) {
				h.dirty[store.StatsID{ProductID: pid, Language: s.filter.Language}] = true
				statsWanted = true
			}
		}
	}
	if statsWanted {
		select {
		case h.wake <- struct{}{}:
		default:
		}
	}
}

// deliver queues ev for s, or ends s when its buffer is full; h.mu is held.
func (h *Hub) deliver(s *Subscription, ev Event) {
	select {
	case s.ch <- ev:
	default:
		h.end(s, ErrSlowConsumer)
	}
}

// listChange returns how ch changed the list of comments that match f, and
// whether it changed it at all.
func listChange(ch store.Change, f store.Filter) (store.ChangeKind, bool) {
	in := ch.Kind != store.ChangeDeleted && f.Matches(ch.Comment)
	var was bool
	switch ch.Kind {
	case store.ChangeUpdated:
		was = ch.Old != nil && f.Matches(ch.Old)
	case store.ChangeDeleted:
		was = f.Matches(ch.Comment)
	}
	switch {
	case in && was:
		return store.ChangeUpdated, true
	case in:
		return store.ChangeAdded, true
	case was:
		return store.ChangeDeleted, true
	}
	return "", false
}

// statsMoved reports whether ch changed the statistics of language lang
// ("" for all languages).
func statsMoved(ch store.Change, lang string) bool {
	c, old := ch.Comment, ch.Old
	if ch.Kind == store.ChangeUpdated {
		if old == nil || (old.Language == c.Language && old.Rating == c.Rating) {
			return false
		}
		return lang == "" || lang == c.Language || lang == old.Language
	}
	return lang == "" || lang == c.Language
}

// statsLoop reads the statistics that changes marked dirty, one batch per
// wake-up, and sends them to their subscribers, until Close.
func (h *Hub) statsLoop() {
	defer close(h.stopped)
	for {
		select {
		case <-h.done:
			return
		case <-h.wake:
		}
		h.mu.Lock()
		ids := make([]store.StatsID, 0, len(h.dirty))
		for id := range h.dirty {
			ids = append(ids, id)
		}
		clear(h.dirty)
		h.mu.Unlock()
		if len(ids) == 0 || h.cfg.Stats == nil {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), statsTimeout)
		sts, err := h.cfg.Stats(ctx, ids)
		cancel()
		if err != nil {
			h.cfg.Logger.Warn("live: read statistics", "err", err.Error(), "retryIn", statsRetry.String())
			h.retryStats(ids)
			continue
		}
		h.sendStats(sts)
	}
}

// retryStats marks ids dirty again and wakes the loop after statsRetry.
func (h *Hub) retryStats(ids []store.StatsID) {
	h.mu.Lock()
	for _, id := range ids {
		h.dirty[id] = true
	}
	h.mu.Unlock()
	select {
	case <-h.done:
	case <-time.After(statsRetry):
		select {
		case h.wake <- struct{}{}:
		default:
		}
	}
}

func (h *Hub) sendStats(sts []*store.Stats) {
	now := time.Now()
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, st := range sts {
		for s := range h.subs[st.ProductID] {
			if s.topic == TopicStats && s.filter.Language == st.Language {
				h.deliver(s, Event{Stats: st, Published: now})
			}
		}
	}
}

// Close ends every subscription with ErrClosed, refuses new ones, and
// stops the statistics loop.
func (h *Hub) Close() {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return
	}
	h.closed = true
	for _, subs := range h.subs {
		for s := range subs {
			h.end(s, ErrClosed)
		}
	}
	h.mu.Unlock()
	close(h.done)
	<-h.stopped
}
