package obs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"sync"
	"time"
)

// Header is the request id header, read from requests and set on responses.
const Header = "X-Request-Id"

// maxIDLen bounds a client's request id.
const maxIDLen = 128

type ctxKey struct{}

// entry is what one request's log line says besides method, path, status
// and duration; other layers add to it with Set.
type entry struct {
	id    string
	mu    sync.Mutex
	attrs []slog.Attr
	room  [6]slog.Attr // attrs' first backing array: a request's Sets allocate nothing
}

// RequestID returns the request id ctx carries, or "".
func RequestID(ctx context.Context) string {
	if e, _ := ctx.Value(ctxKey{}).(*entry); e != nil {
		return e.id
	}
	return ""
}

// Set adds attributes to the request's log line (a later value of the same
// key replaces an earlier one). It does nothing outside a request.
func Set(ctx context.Context, attrs ...slog.Attr) {
	e, _ := ctx.Value(ctxKey{}).(*entry)
	if e == nil {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
next:
	for _, a := range attrs {
		for i := range e.attrs {
			if e.attrs[i].Key == a.Key {
				e.attrs[i] = a
				continue next
			}
		}
		e.attrs = append(e.attrs, a)
	}
}

// SaneID reports whether a client's request id may be kept: 1–128
// characters of letters, digits and `-_.:`. Anything else (empty, long,
// spaces, control characters, quotes) is replaced, so ids are safe to log
// and echo.
func SaneID(id string) bool {
	if len(id) == 0 || len(id) > maxIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_', c == '.', c == ':':
		default:
			return false
		}
	}
	return true
}

// NewID returns a random request id (32 hex digits).
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Quiet reports whether a request is a probe or a scrape, logged at debug
// level rather than info.
func Quiet(r *http.Request) bool {
	switch r.URL.Path {
	case "/healthz", "/readyz", "/metrics":
		return true
	}
	return false
}

// Middleware gives every request an id (its X-Request-Id when sane, else a
// new one), echoes it in the response's X-Request-Id, and logs one line per
// request when it ends: method, path, status, bytes, duration, the id, and
// whatever the handlers added with Set (operation, cost, …). Inside
// another Middleware it passes the request on: the outer one logs it.
func Middleware(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, logged := r.Context().Value(ctxKey{}).(*entry); logged {
			next.ServeHTTP(w, r)
			return
		}
		start := time.Now()
		id := r.Header.Get(Header)
		if !SaneID(id) {
			id = NewID()
		}
		e := &entry{id: id}
		e.attrs = e.room[:0]
		w.Header().Set(Header, id)
		rw := &statusWriter{ResponseWriter: w}
		ctx := context.WithValue(r.Context(), ctxKey{}, e)
		defer func() {
			level := slog.LevelInfo
			if Quiet(r) {
				level = slog.LevelDebug
			}
			if rw.status == 0 {
				rw.status = http.StatusOK
			}
			if rw.status >= 500 {
				level = slog.LevelWarn
			}
			e.mu.Lock()
			attrs := append(make([]slog.Attr, 0, 7+len(e.attrs)),
				slog.String("requestId", id),
				slog.String("method", r.Method),
				slog.String("path", r.URL.Path),
				slog.Int("status", rw.status),
				slog.Int64("bytes", rw.bytes),
				slog.Float64("durationMs", float64(time.Since(start).Microseconds())/1000),
				slog.String("remote", r.RemoteAddr))
			attrs = append(attrs, e.attrs...)
			e.mu.Unlock()
			// The parent context: the id is already an attribute. The
			// record has no caller (pc 0): the access line is always this
			// one, and Logger.LogAttrs would walk the stack for it on
			// every request.
			if h := log.Handler(); h.Enabled(r.Context(), level) {
				rec := slog.NewRecord(time.Now(), level, "request", 0)
				rec.AddAttrs(attrs...)
				_ = h.Handle(r.Context(), rec)
			}
		}()
		next.ServeHTTP(rw, r.WithContext(ctx))
	})
}

// statusWriter records the status and size of a response.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the underlying writer
// (Flush, deadlines).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush implements http.Flusher when the underlying writer does.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Handler wraps a slog.Handler so that every record logged with a request's
// context carries its requestId.
type Handler struct{ slog.Handler }

// NewHandler wraps h.
func NewHandler(h slog.Handler) *Handler { return &Handler{h} }

// Handle adds requestId from ctx.
func (h *Handler) Handle(ctx context.Context, r slog.Record) error {
	if id := RequestID(ctx); id != "" {
		r = r.Clone()
		r.AddAttrs(slog.String("requestId", id))
	}
	return h.Handler.Handle(ctx, r)
}

// WithAttrs keeps the wrapper.
func (h *Handler) WithAttrs(as []slog.Attr) slog.Handler { return &Handler{h.Handler.WithAttrs(as)} }

// WithGroup keeps the wrapper.
func (h *Handler) WithGroup(name string) slog.Handler { return &Handler{h.Handler.WithGroup(name)} }
