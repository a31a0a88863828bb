package gqlhttp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/acme/comments-gateway/internal/bytecache"
	"github.com/acme/comments-gateway/obs"
)

// varyHeaders are the request headers a GET /graphql response depends on:
// the content type negotiated from Accept, the scope (private with a
// credential) and extensions.plan (X-Explain).
const varyHeaders = "Accept, Authorization, X-API-Key, X-Explain"

// Cache gives /graphql responses their HTTP caching headers and, when
// configured, serves hot GET responses from the micro-cache:
//
//   - a GET query answered with HTTP 200 and no errors gets Cache-Control
//     from its operation's CachePolicy (private when the request carries
//     Authorization or X-API-Key), a strong ETag (a hash of the body) and
//     Vary; If-None-Match with that ETag gets 304 without the body. Its
//     body has no extensions.cost (unless X-Explain asked for the plan):
//     what a read cost differs between a cold and a warm read of the same
//     data, and the same data must get the same ETag (and a cached copy
//     must not claim a cost it did not incur). The cost is on the
//     request's log line, and in every POST reply;
//   - any other GET /graphql response (errors, a refused or invalid request)
//     and every POST response get Cache-Control: no-store;
//   - GET requests that upgrade (websocket) or ask for text/event-stream are
//     passed through untouched.
//
// Install Middleware among the HTTP layers and RecordOutcome among gqlgen's
// response middleware.
type Cache struct {
	policies *policyCache
	micro    *microCache // nil: off
}

// NewCache returns the HTTP cache of schema's operations (their
// @cacheControl policy, see PolicyOf) with the micro-cache micro describes;
// what the micro-cache does is told to obs (nil: nothing).
func NewCache(schema *ast.Schema, micro MicroCacheConfig, obs bytecache.Observer) *Cache {
	return &Cache{policies: newPolicyCache(schema), micro: newMicroCache(micro, obs)}
}

// cacheOutcome is what the operation tells the HTTP layer: set by
// recordOutcome, read by serveGET after the response is written.
type cacheOutcome struct {
	keepCost  bool // an EXPLAIN request (X-Explain: 1): its cost stays with its plan
	cacheable bool // a query answered without errors
	policy    CachePolicy
}

type cacheOutcomeKey struct{}

// RecordOutcome is a gqlgen response middleware: it notes whether the
// response is an error-free query and, if so, its operation's policy.
func (c *Cache) RecordOutcome(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	resp := next(ctx)
	out, _ := ctx.Value(cacheOutcomeKey{}).(*cacheOutcome)
	if out == nil || resp == nil || !graphql.HasOperationContext(ctx) {
		return resp
	}
	oc := graphql.GetOperationContext(ctx)
	if len(resp.Errors) > 0 || oc.Operation == nil || oc.Operation.Operation != ast.Query {
		out.cacheable = false
		return resp
	}
	out.cacheable, out.policy = true, c.policies.of(ctx, oc)
	if !out.keepCost {
		delete(resp.Extensions, "cost") // see the ETag rule in Cache's comment
	}
	return resp
}

// Middleware puts the caching headers on next's responses (see Cache).
func (c *Cache) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Method == http.MethodGet && r.Header.Get("Upgrade") == "" &&
			!strings.Contains(r.Header.Get("Accept"), "text/event-stream"):
			c.serveGET(w, r, next)
		case r.Method == http.MethodPost:
			w.Header().Set("Cache-Control", "no-store")
			next.ServeHTTP(w, r)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// authenticated reports whether r carries a credential: its response is
// then private, whatever the fields' scopes.
func authenticated(r *http.Request) bool {
	return r.Header.Get("Authorization") != "" || r.Header.Get("X-API-Key") != ""
}

// serveGET runs next with its response buffered, then writes it with its
// caching headers (or 304), through the micro-cache when it is on.
func (c *Cache) serveGET(w http.ResponseWriter, r *http.Request, next http.Handler) {
	authed := authenticated(r)
	if c.micro == nil || authed || r.Header.Get("X-Explain") != "" {
		c.run(w, r, next, authed, "")
		return
	}
	key := r.URL.RawQuery + "\x00" + r.Header.Get("Accept")
	e, wait, lead := c.micro.getOrJoin(key)
	if wait != nil {
		select {
		case <-wait.done:
			e = wait.entry
			c.micro.countJoined(e != nil)
		case <-r.Context().Done():
			return // the client is gone
		}
	}
	if e != nil {
		obs.Set(r.Context(), slog.Bool("microCacheHit", true))
		c.writeHit(w, r, e)
		return
	}
	if lead == nil { // the flight's response was not cacheable: run our own
		c.run(w, r, next, false, "")
		return
	}
	var stored *microEntry
	maxAge := 0
	// Deferred: the waiting requests are released even if next panics.
	defer func() { c.micro.land(key, lead, stored, maxAge) }()
	stored, maxAge = c.run(w, r, next, false, key)
}

// writeHit writes the micro-cache's entry e, or 304 when the request's
// If-None-Match names it; encoded as the request accepts when the
// compression outside makes it so (microCache.encoded).
func (c *Cache) writeHit(w http.ResponseWriter, r *http.Request, e *microEntry) {
	w.Header().Set("Content-Type", e.contentType)
	if !etagMatches(r.Header.Values("If-None-Match"), e.etag) {
		if v := c.micro.encoded(e, r); v != e {
			w.Header().Set("Content-Encoding", v.encoding)
			writeValidated(w, r, e.cacheControl, v.etag, v.body)
			return
		}
	}
	writeValidated(w, r, e.cacheControl, e.etag, e.body)
}

// run runs next with its response buffered and writes it with its caching
// headers. When key is set and the response may go in the micro-cache
// (public, error-free, with a max-age), run returns it as an entry of key,
// with its max-age.
func (c *Cache) run(w http.ResponseWriter, r *http.Request, next http.Handler, authed bool, key string) (*microEntry, int) {
	out := &cacheOutcome{keepCost: r.Header.Get("X-Explain") == "1"}
	buf := newBufferedResponse(w)
	defer buf.free()
	next.ServeHTTP(buf, r.WithContext(context.WithValue(r.Context(), cacheOutcomeKey{}, out)))
	if buf.status != http.StatusOK || !out.cacheable {
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Add("Vary", varyHeaders)
		w.Header().Set("Content-Length", strconv.Itoa(buf.body.Len()))
		w.WriteHeader(buf.status)
		writeWhole(r.Context(), w, buf.body.Bytes())
		return nil, 0
	}
	p := out.policy
	p.Private = p.Private || authed
	body := buf.body.Bytes()
	etag := strongETag(body)
	var e *microEntry
	if key != "" && !p.Private && p.MaxAge > 0 {
		e = &microEntry{key: key, body: bytes.Clone(body), contentType: w.Header().Get("Content-Type"),
			cacheControl: p.Header(), etag: etag}
	}
	writeValidated(w, r, p.Header(), etag, body)
	return e, p.MaxAge
}

// writeValidated writes a cacheable 200 response, or 304 (no body) when
// the request's If-None-Match names its ETag.
func writeValidated(w http.ResponseWriter, r *http.Request, cacheControl, etag string, body []byte) {
	h := w.Header()
	h.Set("Cache-Control", cacheControl)
	h.Set("ETag", etag)
	h.Add("Vary", varyHeaders)
	if etagMatches(r.Header.Values("If-None-Match"), etag) {
		h.Del("Content-Type")
		h.Del("Content-Length")
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	writeWhole(r.Context(), w, body)
}

// strongETag is a strong entity tag of body: its SHA-256, base64url, quoted.
func strongETag(body []byte) string {
	sum := sha256.Sum256(body)
	return `"` + base64.RawURLEncoding.EncodeToString(sum[:]) + `"`
}

// etagMatches reports whether an If-None-Match field (possibly several
// lines, each a comma-separated list) names etag or is "*", with the weak
// comparison RFC 9110 §13.1.2 prescribes for If-None-Match.
func etagMatches(fields []string, etag string) bool {
	for _, f := range fields {
		for _, t := range strings.Split(f, ",") {
			t = strings.TrimSpace(t)
			if t == "*" || strings.TrimPrefix(t, "W/") == etag {
				return true
			}
		}
	}
	return false
}

// bufferedResponse holds a response's status and body until the caching
// headers are known; headers go straight to the underlying writer's map.
// Its body's buffer comes from a pool (free returns it): a page's reply
// would otherwise be a new buffer of about 10 KB a request.
type bufferedResponse struct {
	http.ResponseWriter
	status int
	body   *bytes.Buffer
}

// maxPooledBody bounds the buffer a bufferedResponse returns to the pool:
// a rare large reply's buffer is left to the garbage collector.
const maxPooledBody = 64 << 10

var responseBodies = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func newBufferedResponse(w http.ResponseWriter) *bufferedResponse {
	return &bufferedResponse{ResponseWriter: w, status: http.StatusOK, body: responseBodies.Get().(*bytes.Buffer)}
}

// free returns the body's buffer to the pool; the response is not used
// after (what was written from it was copied by the writer, and a
// micro-cache entry holds a copy of its own).
func (b *bufferedResponse) free() {
	if b.body.Cap() <= maxPooledBody {
		b.body.Reset()
		responseBodies.Put(b.body)
	}
	b.body = nil
}

// WriteHeader records the status.
func (b *bufferedResponse) WriteHeader(code int) { b.status = code }

// Write buffers the body.
func (b *bufferedResponse) Write(p []byte) (int, error) { return b.body.Write(p) }
