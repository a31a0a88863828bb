package resolvers

import "sync"

// clientSlots bounds what each client holds at once — its live
// connections, its operations in flight — by counting a slot per thing
// held: the one rule of every per-client cap. A client is named by
// clientID; "" (an API key, a trusted service) is never counted nor
// refused. Each cap is its own clientSlots, with its own limit.
type clientSlots struct {
	limit int // at most this many slots per client; 0 or less: no bound
	mu    sync.Mutex
	held  map[string]int // only clients holding a slot
}

func newClientSlots(limit int) *clientSlots {
	return &clientSlots{limit: limit, held: map[string]int{}}
}

// take gives client a slot, or reports false when it holds limit already.
// release gives the slot back; calling it again does nothing.
func (s *clientSlots) take(client string) (release func(), ok bool) {
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

func (s *clientSlots) release(client string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.held[client]--; s.held[client] <= 0 {
		delete(s.held, client)
	}
}
