package obs_test

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/acme/comments-gateway/internal/testutil"
	"github.com/acme/comments-gateway/obs"
)

// logBuffer collects JSON log lines; lines returns those written since its
// last call.
type logBuffer struct {
	testutil.SyncBuffer
	read int
}

func (l *logBuffer) lines(tb testing.TB) []map[string]any {
	tb.Helper()
	all := l.String()
	fresh := all[l.read:]
	l.read = len(all)
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(fresh), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			tb.Fatalf("%q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

func TestMiddleware(t *testing.T) {
	var buf logBuffer
	log := slog.New(obs.NewHandler(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	h := obs.Middleware(log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		obs.Set(r.Context(), slog.String("operation", "query A"), slog.Int("itemsRead", 1))
		obs.Set(r.Context(), slog.Int("itemsRead", 7)) // replaces
		log.InfoContext(r.Context(), "inner")
		if r.URL.Path == "/teapot" {
			w.WriteHeader(http.StatusTeapot)
		}
		w.Write([]byte("hello"))
	}))
	for _, tc := range []struct {
		path, id string
		keep     bool
	}{
		{"/graphql", "abc-123_X.y:z", true},
		{"/graphql", "", false},
		{"/graphql", "has space", false},
		{"/graphql", strings.Repeat("a", 129), false},
		{"/graphql", "quote\"", false},
		{"/teapot", "t1", true},
	} {
		r := httptest.NewRequest(http.MethodPost, tc.path, nil)
		if tc.id != "" {
			r.Header.Set(obs.Header, tc.id)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		got := w.Header().Get(obs.Header)
		if tc.keep && got != tc.id || !tc.keep && (got == tc.id || !obs.SaneID(got) || len(got) != 32) {
			t.Errorf("%q: echoed %q", tc.id, got)
		}
		lines := buf.lines(t)
		if len(lines) != 2 {
			t.Fatalf("%d log lines, want the inner one and the request's: %v", len(lines), lines)
		}
		inner, req := lines[0], lines[1]
		if inner["requestId"] != got || req["requestId"] != got {
			t.Errorf("request ids %v %v, want %s", inner["requestId"], req["requestId"], got)
		}
		status := 200
		if tc.path == "/teapot" {
			status = 418
		}
		if req["msg"] != "request" || req["status"] != float64(status) || req["operation"] != "query A" || req["itemsRead"] != float64(7) ||
			req["bytes"] != float64(5) || req["path"] != tc.path || req["method"] != "POST" || req["durationMs"] == nil {
			t.Errorf("request line %v", req)
		}
	}
	// Probes log at debug level.
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/healthz", nil))
	if ls := buf.lines(t); len(ls) != 2 || ls[1]["level"] != "DEBUG" {
		t.Errorf("probe: %v", ls)
	}
	// Outside a request Set and RequestID do nothing.
	obs.Set(t.Context(), slog.Int("x", 1))
	if obs.RequestID(t.Context()) != "" {
		t.Error("RequestID outside a request")
	}
}
