package livehttp

import "time"

// DefaultLiveWriteInterval is Config.WriteInterval's default.
const DefaultLiveWriteInterval = 100 * time.Millisecond

// pacer spaces the sends of one live connection at least an interval
// apart. A send that finds the connection quiet for the interval goes at
// once; one that comes sooner waits for the interval's end, and what is
// written meanwhile leaves with it, in one write. Most of a delivery's CPU
// is the kernel's part of a send (the system call, TCP, the receiver's
// wake-up), so a burst of events to a connection costs one send per
// interval instead of one per event, and the CPU of a product's fan-out
// is bounded by its subscribers and the interval, not by how fast its
// comments are written. An event after a quiet spell is not delayed.
// Interval 0: every send at once.
//
// A pacer is used under its connection's lock; the function its timer
// calls takes that lock.
type pacer struct {
	interval time.Duration
	last     time.Time   // the last paced send
	timer    *time.Timer // calls flush when the interval ends
	armed    bool        // the timer is set
	stopped  bool
}

// ready reports whether a send may go now (and counts it as the last).
// When not, it sets the timer, once, to call flush when the interval
// ends; flush takes the connection's lock and calls ready again.
func (p *pacer) ready(flush func()) bool {
	if p.interval <= 0 {
		return true
	}
	if p.armed || p.stopped {
		return false
	}
	now := time.Now()
	wait := p.last.Add(p.interval).Sub(now)
	if wait <= 0 {
		p.last = now
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
	return p.last.Add(p.interval)
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
