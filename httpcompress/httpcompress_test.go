package httpcompress_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/klauspost/compress/zstd"

	"github.com/acme/comments-gateway/httpcompress"
)

// page answers with a cacheable body and its strong ETag, or 304 when
// If-None-Match names it (as the GraphQL handler's HTTP cache does).
func page(body []byte) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		const etag = `"abc"`
		w.Header().Set("ETag", etag)
		w.Header().Set("Content-Type", "application/json")
		if strings.Contains(r.Header.Get("If-None-Match"), etag) {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		_, _ = w.Write(body)
	})
}

func mustNew(t *testing.T) func(http.Handler) http.Handler {
	t.Helper()
	c, err := httpcompress.New(httpcompress.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestEncodingsETagsAndNotModified: gzip and zstd as asked, smaller, with
// Vary and an ETag per encoding; If-None-Match with the encoded tag gets
// 304 carrying it; a small reply and a client asking for nothing are sent
// as they are.
func TestEncodingsETagsAndNotModified(t *testing.T) {
	body := bytes.Repeat([]byte(`{"id":"c1","rating":5,"author":"Ann","title":"Good"},`), 100)
	h := mustNew(t)(page(body))
	decode := map[string]func(io.Reader) ([]byte, error){
		"gzip": func(r io.Reader) ([]byte, error) {
			zr, err := gzip.NewReader(r)
			if err != nil {
				return nil, err
			}
			return io.ReadAll(zr)
		},
		"zstd": func(r io.Reader) ([]byte, error) {
			zr, err := zstd.NewReader(r)
			if err != nil {
				return nil, err
			}
			defer zr.Close()
			return io.ReadAll(zr)
		},
	}
	for enc, dec := range decode {
		r := httptest.NewRequest(http.MethodGet, "/graphql", nil)
		r.Header.Set("Accept-Encoding", enc)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		tag := w.Header().Get("ETag")
		if w.Header().Get("Content-Encoding") != enc || tag != `"abc-`+enc+`"` || !strings.Contains(w.Header().Get("Vary"), "Accept-Encoding") {
			t.Fatalf("%s: %v", enc, w.Header())
		}
		got, err := dec(w.Body)
		if err != nil || !bytes.Equal(got, body) || w.Body.Len() >= len(body) {
			t.Errorf("%s: %d bytes decode to %d (%v)", enc, w.Body.Len(), len(got), err)
		}
		r = httptest.NewRequest(http.MethodGet, "/graphql", nil)
		r.Header.Set("Accept-Encoding", enc)
		r.Header.Set("If-None-Match", `"zzz", `+tag)
		w = httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusNotModified || w.Header().Get("ETag") != tag || w.Body.Len() != 0 {
			t.Errorf("%s: If-None-Match %s: %d %v", enc, tag, w.Code, w.Header())
		}
	}
	for _, tc := range []struct {
		body   []byte
		accept string
	}{{body, ""}, {body[:500], "gzip, zstd"}} {
		r := httptest.NewRequest(http.MethodGet, "/graphql", nil)
		r.Header.Set("Accept-Encoding", tc.accept)
		w := httptest.NewRecorder()
		mustNew(t)(page(tc.body)).ServeHTTP(w, r)
		if w.Header().Get("Content-Encoding") != "" || w.Header().Get("ETag") != `"abc"` || !bytes.Equal(w.Body.Bytes(), tc.body) {
			t.Errorf("%d bytes, Accept-Encoding %q: %v", len(tc.body), tc.accept, w.Header())
		}
	}
}

// TestStreamsPassUntouched: an SSE stream reaches the client event by
// event, uncompressed, and a websocket upgrade (hijack) works.
func TestStreamsPassUntouched(t *testing.T) {
	next := make(chan struct{})
	h := mustNew(t)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Upgrade") != "" {
			c, err := websocket.Accept(w, r, nil)
			if err != nil {
				return
			}
			_ = c.Write(r.Context(), websocket.MessageText, []byte("hello"))
			c.Close(websocket.StatusNormalClosure, "")
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for i := 0; i < 2; i++ {
			_, _ = io.WriteString(w, "event: next\ndata: "+strings.Repeat("x", 2000)+"\n\n")
			http.NewResponseController(w).Flush()
			select {
			case <-next:
			case <-r.Context().Done():
				return
			}
		}
	}))
	srv := httptest.NewServer(h)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Accept-Encoding", "gzip, zstd")
	resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ce := resp.Header.Get("Content-Encoding"); ce != "" {
		t.Fatalf("SSE compressed: %q", ce)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<16)
	for i := 0; i < 2; i++ { // the first event arrives while the handler waits
		if !sc.Scan() || sc.Text() != "event: next" {
			t.Fatalf("event %d: %q %v", i, sc.Text(), sc.Err())
		}
		sc.Scan()
		sc.Scan()
		next <- struct{}{}
	}

	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http"), &websocket.DialOptions{HTTPHeader: http.Header{"Accept-Encoding": {"gzip"}}})
	if err != nil {
		t.Fatalf("websocket through the compressor: %v", err)
	}
	defer c.CloseNow()
	if _, msg, err := c.Read(ctx); err != nil || string(msg) != "hello" {
		t.Errorf("websocket read %q %v", msg, err)
	}
}
