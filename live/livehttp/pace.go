package livehttp

import "time"

// DefaultLiveWriteInterval is Config.WriteInterval's default.
const DefaultLiveWriteInterval = 100 * time.Millisecond

// pacedBurst is how many sends a quiet connection makes at once before
// the pacer spaces them: enough for the few subscriptions of one page that
// an event reaches together.
const pacedBurst = 4

// pacer spaces the sends of one live connection: one per interval on
// average, with up to pacedBurst at once from a quiet connection (the
// generic cell rate algorithm: a token bucket kept as one time). A send
// that finds a token goes at once; one that does not waits for the next,
// and what is written meanwhile leaves with it, in one write. Most of a
// delivery's CPU is the kernel's part of a send (the system call, TCP, the
// receiver's wake-up), so a burst of events to a connection costs one
// send per interval instead of one per event, and the CPU of a product's
// fan-out is bounded by its subscribers and the interval, not by how fast
// its comments are written. An event after a quiet spell is not delayed.
// Interval 0: every send at once.
//
// A pacer is used under its connection's lock; the function its timer
// calls takes that lock.
type pacer struct {
	interval time.Duration
	tat      time.Time   // when the bucket is full again (theoretical arrival time)
	timer    *time.Timer // calls flush when the next token comes
	armed    bool        // the timer is set
	stopped  bool
}

// ready reports whether a send may go now (and takes its token). When
// not, it sets the timer, once, to call flush when the next token comes;
// flush takes the connection's lock and calls ready again.
func (p *pacer) ready(flush func()) bool {
	if p.interval <= 0 {
		return true
	}
	if p.armed || p.stopped {
		return false
	}
	now := time.Now()
	wait := p.next().Sub(now)
	if wait <= 0 {
		p.tat = later(p.tat, now).Add(p.interval)
		return true
	}
	p.armed = true
	if p.timer == nil {
		p.timer = time.AfterFunc(wait, flush)
	} else {
		p.timer.Reset(wait)
	}
	return false
}

// next returns when the next send may go: the zero time or a past one
// for now.
func (p *pacer) next() time.Time {
	if p.interval <= 0 || p.stopped {
		return time.Time{}
	}
	return p.tat.Add(-(pacedBurst - 1) * p.interval)
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// fired is the timer's first step, under the connection's lock: the
// interval has ended (the next ready says so). It reports false when the
// pacer was stopped meanwhile: the call must then do nothing.
func (p *pacer) fired() bool {
	p.armed = false
	return !p.stopped
}

// stop ends the pacing: ready reports false from then on (the connection
// sends what is left itself, or nothing), and a timer call that was under
// way finds it stopped.
func (p *pacer) stop() {
	p.stopped = true
	if p.timer != nil {
		p.timer.Stop()
	}
}
