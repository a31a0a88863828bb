package policy

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/acme/comments-gateway/auth"
	"github.com/acme/comments-gateway/live/livehttp"
)

// TestLimitInFlight: with a cap of 1 and one request of a client held in
// its handler, the client's next request gets 429 IN_FLIGHT_LIMIT_EXCEEDED
// without reaching the handler or reading its body; another client, an
// API key and the first client once its request is done are served.
func TestLimitInFlight(t *testing.T) {
	entered, hold := make(chan struct{}), make(chan struct{})
	h := LimitInFlight(1)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Hold") != "" {
			entered <- struct{}{}
			<-hold
		}
	}))
	req := func(addr string, apiKey bool, holds bool) *http.Request {
		r := httptest.NewRequest(http.MethodPost, "/graphql", strings.NewReader(`{"query":"{ __typename }"}`))
		r.RemoteAddr = addr + ":1234"
		if apiKey {
			r = r.WithContext(auth.WithPrincipal(r.Context(), &auth.Principal{Kind: auth.KindAPIKey}, nil))
		}
		if holds {
			r.Header.Set("X-Hold", "1")
		}
		return r
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.ServeHTTP(httptest.NewRecorder(), req("192.0.2.1", false, true))
	}()
	<-entered

	refused := req("192.0.2.1", false, false)
	body := &watchedBody{Reader: strings.NewReader("{}")}
	refused.Body = body
	w := httptest.NewRecorder()
	h.ServeHTTP(w, refused)
	var out struct {
		Errors []struct{ Extensions struct{ Code string } }
	}
	_ = json.Unmarshal(w.Body.Bytes(), &out)
	if w.Code != http.StatusTooManyRequests || len(out.Errors) != 1 || out.Errors[0].Extensions.Code != livehttp.CodeInFlight || w.Header().Get("Retry-After") == "" {
		t.Errorf("over the cap: HTTP %d, Retry-After %q, %s", w.Code, w.Header().Get("Retry-After"), w.Body)
	}
	if body.read {
		t.Error("the refused request's body was read")
	}
	for name, r := range map[string]*http.Request{"another client": req("192.0.2.2", false, false), "an API key": req("192.0.2.1", true, false)} {
		if code := statusOf(h, r); code != http.StatusOK {
			t.Errorf("%s: HTTP %d", name, code)
		}
	}
	close(hold)
	<-done
	if code := statusOf(h, req("192.0.2.1", false, false)); code != http.StatusOK {
		t.Errorf("after its request ended: HTTP %d", code)
	}
}

// statusOf is the status h answers r with.
func statusOf(h http.Handler, r *http.Request) int {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w.Code
}

// watchedBody is a request body that records whether it was read.
type watchedBody struct {
	*strings.Reader
	read bool
}

func (b *watchedBody) Read(p []byte) (int, error) {
	b.read = true
	return b.Reader.Read(p)
}

func (b *watchedBody) Close() error { return nil }
