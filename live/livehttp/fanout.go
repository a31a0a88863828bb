package livehttp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/acme/comments-gateway/internal/gqlhttp"
	"github.com/acme/comments-gateway/live"
	"github.com/acme/comments-gateway/store"
)

// Shared execution of subscriptions ("fan-out").
//
// Subscribers of the same data (the same canonical selection, whatever
// their operation names, aliases and variable names: shape.go; hence
// the same product, topic and filter) receive the same payload for each
// event, each in its own shape. A fanout groups them: the group holds one
// hub subscription, runs the operation's selection set once per event
// (through the gqlgen execution of one of its members, with every
// middleware of a normal delivery, under the event timeout) and hands the
// response, re-keyed once per distinct shape and encoded once per
// response (frame.go), to each member's bounded queue. Each member
// then only writes those bytes. Before each
// execution every member pays for the event (budget.go).
//
// A subscription operation goes through two steps:
//   - fanout.around (an operation middleware) gives the resolver a
//     fanSlot; the resolver validates its arguments and limits as before and
//     joins the group of its key (Subscribe), subscribing to the
//     hub when it is the first;
//   - the member's ResponseHandler, returned by around in place of gqlgen's,
//     takes its deliveries from its queue. On its first call it lends the
//     group gqlgen's handler and the context the transport runs it with, so
//     the group can execute events through it.
//
// A member whose queue is full (Hub.Buffer deliveries) is ended with
// SLOW_CONSUMER exactly as a hub subscriber is, one whose client's rate
// budget is spent with THROTTLED; the others are not held up.

// fanout is the registry of subscription groups of one handler.
type fanout struct {
	hub     *live.Hub
	observe func(time.Duration) // delivery latency, from Event.Published; may be nil
	// perEvent gives one execution what it needs afresh (its dataloaders:
	// a subscription lives long, and its events must not be answered from
	// the reads of earlier ones); may be nil.
	perEvent func(context.Context) context.Context
	// eventTimeout bounds each event's execution (none when 0).
	eventTimeout time.Duration
	budget       liveBudget // the complexity of each client's subscriptions (budget.go)
	rate         RateLimit  // charged for each event; nil: no rate limit
	// complexity is what a subscription costs (at least 1); nil: 1.
	complexity func(*graphql.OperationContext) int
	mu         sync.Mutex
	groups     map[string]*fanGroup
	members    int
}

func newFanout(hub *live.Hub, observe func(time.Duration)) *fanout {
	return &fanout{hub: hub, observe: observe, groups: map[string]*fanGroup{}, budget: liveBudget{used: map[string]int{}}}
}

// fanGroup is the subscribers of one operation key. Its fields are guarded
// by fanout.mu.
type fanGroup struct {
	f       *fanout
	key     string
	sub     *live.Subscription
	members []*fanMember // in order of joining; the first ready one executes
	started bool
}

// fanMember is one subscriber in a group.
type fanMember struct {
	g    *fanGroup
	conn *liveConn
	// feed hands an event to the member's resolver channel (buffered, so
	// that exec finds it at once); exec is gqlgen's ResponseHandler of the
	// member's operation, run with ctx (both set by the first call of next).
	feed  func(live.Event)
	exec  graphql.ResponseHandler
	ctx   context.Context
	ready bool
	queue chan delivery
	// nudge cuts awaitSend short: the queue is half full, or closed.
	nudge chan struct{}
	wait  *time.Timer // awaitSend's, made on its first wait
	once  sync.Once
	shape *shape // the member's response keys (nil: its group is by exact text)
	// out writes each delivery's shared payload (frame.go); nil: the
	// member's transport encodes the response.
	out nextWriter
	// client and cost: whom each event is charged to, and how much.
	client string
	cost   int
	// Guarded by fanout.mu:
	gone     bool
	ended    *gqlerror.Error // why the server ended it (nil: it left)
	stopDone func() bool     // stops the context.AfterFunc that leaves the group
}

// delivery is one response in a member's queue, and its encoding, shared
// by the members that receive the same response (frame.go).
type delivery struct {
	resp      *graphql.Response
	payload   []byte
	published time.Time
}

// fanSlot carries a subscription operation's key, shape and cost from
// fanout.around to the resolver, and back the member the resolver made or
// the refusal of the budget.
type fanSlot struct {
	opKey   string
	shape   *shape
	cost    int
	member  *fanMember
	refused *gqlerror.Error
}

type fanSlotKey struct{}

// around is the operation middleware of subscriptions: it lets the resolver
// join its group and returns the member's handler; when the budget refused
// it, a handler that ends it with that error (websocket: the protocol's
// `error` message); when the resolver failed otherwise, gqlgen's own
// handler (its error response).
func (f *fanout) around(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	oc := graphql.GetOperationContext(ctx)
	if oc.Operation == nil || oc.Operation.Operation != ast.Subscription {
		return next(ctx)
	}
	slot := &fanSlot{cost: 1}
	if f.complexity != nil {
		slot.cost = max(f.complexity(oc), 1)
	}
	if key, s, err := normalize(oc); err == nil {
		slot.opKey, slot.shape = "n:"+key, s
	} else {
		slot.opKey = "x:" + operationKey(oc)
	}
	h := next(context.WithValue(ctx, fanSlotKey{}, slot))
	m := slot.member
	if slot.refused != nil {
		c := liveConnFrom(ctx)
		return func(ctx context.Context) *graphql.Response {
			c.endSubscription(ctx, slot.refused)
			return nil
		}
	}
	if m == nil {
		return h
	}
	m.exec = h
	m.out = memberWriter(liveConnFrom(ctx), oc)
	return m.next
}

// operationKey identifies what the responses of a subscription that does
// not normalise depend on: the document, the operation name and the
// variables.
func operationKey(oc *graphql.OperationContext) string {
	vars, _ := json.Marshal(oc.Variables) // map keys sorted: equal variables, equal bytes
	sum := sha256.New()
	fmt.Fprintf(sum, "%d:%s%d:%s", len(oc.RawQuery), oc.RawQuery, len(oc.OperationName), oc.OperationName)
	sum.Write(vars)
	return hex.EncodeToString(sum.Sum(nil))
}

// join adds a member fed by feed to the group of the operation in ctx's
// slot for (pid, topic, filter), subscribing to the hub when the group is
// new; it returns false when ctx has no slot (not a subscription
// operation). A subscription over its client's budget is refused with a
// *gqlerror.Error, also left in the slot.
func (f *fanout) join(ctx context.Context, c *liveConn, pid string, topic live.Topic, flt store.Filter, feed func(live.Event)) (bool, error) {
	slot, _ := ctx.Value(fanSlotKey{}).(*fanSlot)
	if slot == nil {
		return false, nil
	}
	key := fmt.Sprintf("%s\x00%d\x00%s\x00%q\x00%v", slot.opKey, topic, pid, flt.Language, flt.Ratings)
	client := ""
	if c != nil {
		client = c.client
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.budget.take(client, slot.cost); err != nil {
		slot.refused = err
		return false, err
	}
	g := f.groups[key]
	if g == nil {
		sub, err := f.hub.Subscribe(pid, topic, flt)
		if err != nil {
			f.budget.give(client, slot.cost)
			return false, err
		}
		g = &fanGroup{f: f, key: key, sub: sub}
		f.groups[key] = g
	}
	m := &fanMember{g: g, conn: c, feed: feed, queue: make(chan delivery, f.hub.Buffer()), nudge: make(chan struct{}, 1), shape: slot.shape, client: client, cost: slot.cost}
	g.members = append(g.members, m)
	f.members++
	m.stopDone = context.AfterFunc(ctx, func() { f.leave(m) })
	slot.member = m
	return true, nil
}

// next is the member's ResponseHandler: its next delivery, or nil when the
// subscription ends (a member the server ended is told why first). A
// member that writes its deliveries' shared frames itself (m.out) writes
// each one and waits for the next, returning only at the end (or when its
// write fails).
func (m *fanMember) next(ctx context.Context) *graphql.Response {
	m.once.Do(func() { m.g.f.ready(m, ctx) })
	for {
		select {
		case d, ok := <-m.queue:
			if resp, done := m.deliver(ctx, d, ok); done {
				return resp
			}
			if !m.awaitSend(ctx) {
				return nil
			}
		case <-ctx.Done():
			return nil
		}
	}
}

// awaitSend waits, when the member's connection paces its next send to a
// later time (pace.go), until then: the deliveries that arrive meanwhile
// are taken in one wake-up and leave in that send, instead of waking the
// member once each only to be queued. A nudge (the queue half full or
// closed) cuts the wait short. It reports false when ctx is done.
func (m *fanMember) awaitSend(ctx context.Context) bool {
	if m.out == nil {
		return true
	}
	wait := time.Until(m.out.nextSend())
	if wait <= 0 {
		return true
	}
	if m.wait == nil {
		m.wait = time.NewTimer(wait)
	} else {
		m.wait.Reset(wait)
	}
	select {
	case <-m.wait.C:
	case <-m.nudge:
		m.wait.Stop()
	case <-ctx.Done():
		m.wait.Stop()
		return false
	}
	return true
}

// poke nudges m out of awaitSend (at most one nudge is pending).
func (m *fanMember) poke() {
	select {
	case m.nudge <- struct{}{}:
	default:
	}
}

// deliver handles d, taken from the queue (ok false: the queue is closed),
// and then every delivery queued behind it, their frames gathered into as
// few writes as the connection takes (nextWriter.hold, from the first
// delivery found waiting behind another): what arrived together leaves
// together, and nothing waits for what has not arrived. done reports that
// next returns resp.
func (m *fanMember) deliver(ctx context.Context, d delivery, ok bool) (resp *graphql.Response, done bool) {
	held := false
	defer func() {
		if held {
			if err := m.out.release(); err != nil {
				resp, done = nil, true
			}
		}
	}()
	for {
		if m.out != nil && !held && len(m.queue) > 0 {
			m.out.hold()
			held = true
		}
		if !ok {
			if err := m.g.f.endedWith(m); err != nil {
				m.conn.endSubscription(ctx, err)
			}
			return nil, true
		}
		if obs := m.g.f.observe; obs != nil && !d.published.IsZero() {
			obs(time.Since(d.published))
		}
		if m.out == nil || d.payload == nil {
			return d.resp, true
		}
		if err := m.out.writeNext(d.payload); err != nil {
			return nil, true
		}
		select {
		case d, ok = <-m.queue:
		default:
			return nil, false
		}
	}
}

// ready makes m able to execute its group's events, with the context its
// transport runs it with, and starts the group's delivery loop.
func (f *fanout) ready(m *fanMember, ctx context.Context) {
	f.mu.Lock()
	defer f.mu.Unlock()
	m.ctx, m.ready = ctx, true
	if g := m.g; !g.started && !m.gone {
		g.started = true
		go g.run()
	}
}

// subscriptions returns the number of members of all groups.
func (f *fanout) subscriptions() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.members
}

func (f *fanout) endedWith(m *fanMember) *gqlerror.Error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return m.ended
}

// leave removes m from its group (a no-op when it has left), and ends the
// group's hub subscription when m was the last member.
func (f *fanout) leave(m *fanMember) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.remove(m, nil)
}

// remove takes m out of its group, closing its queue (ended: the error it
// is ended with; nil when it left); f.mu is held.
func (f *fanout) remove(m *fanMember, ended *gqlerror.Error) {
	if m.gone {
		return
	}
	m.gone, m.ended = true, ended
	f.members--
	m.stopDone()
	close(m.queue)
	m.poke()
	f.budget.give(m.client, m.cost)
	if m.conn != nil {
		m.conn.subs.Add(-1)
	}
	g := m.g
	for i, o := range g.members {
		if o == m {
			g.members = append(g.members[:i], g.members[i+1:]...)
			break
		}
	}
	if len(g.members) == 0 {
		if f.groups[g.key] == g {
			delete(f.groups, g.key)
		}
		f.hub.Unsubscribe(g.sub) // ends run
	}
}

// run executes each event of the group's hub subscription once, when a
// member paid for it, and delivers the response to every member, until the
// subscription ends: the last member left, or the hub ended it (then every
// member ends likewise).
func (g *fanGroup) run() {
	for ev := range g.sub.Events() {
		if !g.f.charge(g) {
			continue
		}
		if resp, from := g.execute(ev); resp != nil {
			views := g.views(resp, from)
			enc := payloads{}
			enc.of(resp)
			for _, v := range views {
				enc.of(v)
			}
			g.deliver(delivery{resp: resp, published: ev.Published}, from, views, enc)
		}
	}
	var ended *gqlerror.Error
	if errors.Is(g.sub.Err(), live.ErrSlowConsumer) {
		ended = errSlowConsumer()
	}
	g.f.mu.Lock()
	defer g.f.mu.Unlock()
	for len(g.members) > 0 {
		g.f.remove(g.members[0], ended)
	}
}

// execute runs the operation's selection set on ev through the first ready
// member's gqlgen handler, under the event timeout; when that member's
// operation ends meanwhile, the next one runs it. It returns the response
// and the shape it is in, or nil when no member is left.
func (g *fanGroup) execute(ev live.Event) (*graphql.Response, *shape) {
	for {
		m := g.executor()
		if m == nil {
			return nil, nil
		}
		m.feed(ev)
		ctx := m.ctx
		if g.f.perEvent != nil {
			ctx = g.f.perEvent(ctx)
		}
		cancel := func() {}
		if g.f.eventTimeout > 0 {
			ctx, cancel = context.WithTimeout(ctx, g.f.eventTimeout)
		}
		resp := m.exec(ctx)
		cancel()
		if resp != nil {
			// gqlgen reuses one buffer for a subscription's data: the
			// members read this one while the next event is executed.
			resp.Data = bytes.Clone(resp.Data)
			encodeExtensions(resp)
			return resp, m.shape
		}
		g.f.leave(m)
	}
}

// views re-keys resp, in the shape from, into each other shape of the
// group's members (outside the lock: the members read it only once it is
// queued).
func (g *fanGroup) views(resp *graphql.Response, from *shape) map[any]*graphql.Response {
	g.f.mu.Lock()
	var shapes []*shape
	for _, m := range g.members {
		if viewKey(resp, from, m.shape) != nil {
			shapes = append(shapes, m.shape)
		}
	}
	g.f.mu.Unlock()
	views := map[any]*graphql.Response{}
	for _, s := range shapes {
		viewFor(views, resp, from, s)
	}
	return views
}

// executor returns the first ready member, or nil when none is left.
func (g *fanGroup) executor() *fanMember {
	g.f.mu.Lock()
	defer g.f.mu.Unlock()
	for _, m := range g.members {
		if m.ready {
			return m
		}
	}
	return nil
}

// deliver queues d, in the shape from, for every member: as it is, or
// re-keyed into the member's shape (views; a member that joined since
// views were made gets its own now), with its encoding (enc). A member
// whose queue is full is ended as a slow consumer.
func (g *fanGroup) deliver(d delivery, from *shape, views map[any]*graphql.Response, enc payloads) {
	g.f.mu.Lock()
	defer g.f.mu.Unlock()
	for i := 0; i < len(g.members); {
		m := g.members[i]
		md := d
		md.resp = viewFor(views, d.resp, from, m.shape)
		md.payload = enc.of(md.resp)
		select {
		case m.queue <- md:
			if len(m.queue) >= cap(m.queue)/2 {
				m.poke()
			}
			i++
		default:
			g.f.remove(m, errSlowConsumer()) // removes members[i]
		}
	}
}

// errSlowConsumer is the error a member whose queue overflowed is ended with.
func errSlowConsumer() *gqlerror.Error {
	return gqlhttp.Coded(CodeSlowConsumer, "subscription ended: the client did not read its events fast enough; resubscribe and catch up with comments(before: <newest cursor>)")
}

// encodeExtensions replaces each value of resp.Extensions by its JSON, so
// that each member's transport, which encodes the response again, copies
// it instead of walking its maps.
func encodeExtensions(resp *graphql.Response) {
	for k, v := range resp.Extensions {
		if _, done := v.(json.RawMessage); done {
			continue
		}
		if b, err := json.Marshal(v); err == nil {
			resp.Extensions[k] = json.RawMessage(b)
		}
	}
}
