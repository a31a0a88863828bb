package clientslots

import "sync"

// Slots is one per-client cap: the slots each client holds, at most limit.
type Slots struct {
	limit int // at most this many slots per client; 0 or less: no bound
	mu    sync.Mutex
	held  map[string]int // only clients holding a slot
}

// New returns the slots of a cap of limit per client (0 or less: no bound).
func New(limit int) *Slots {
	return &Slots{limit: limit, held: map[string]int{}}
}

// Take gives client a slot, or reports false when it holds limit already.
// release gives the slot back; calling it again does nothing.
func (s *Slots) Take(client string) (release func(), ok bool) {
	if client == "" {
		return func() {}, true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.limit > 0 && s.held[client] >= s.limit {
		return nil, false
	}
	s.held[client]++
	var once sync.Once
	return func() { once.Do(func() { s.release(client) }) }, true
}

func (s *Slots) release(client string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held[client]--; s.held[client] <= 0 {
		delete(s.held, client)
	}
}
