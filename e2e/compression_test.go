package e2e

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

// rawGET sends GET path with header pairs, without Go's transparent gzip,
// and returns the reply with its body as sent.
func rawGET(ctx context.Context, t *testing.T, s *Server, path string, hdr ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

// TestCompressionAndStableETags: on the built binary, a filtered page of
// 20 comments gets the same ETag cold and warm (no extensions.cost in a
// cacheable GET reply); gzip and zstd replies are smaller, decode to the
// same body, say Vary: Accept-Encoding and carry the ETag with the
// encoding's suffix; If-None-Match with an encoded or a plain tag gets 304;
// an SSE stream asked with Accept-Encoding is not compressed.
func TestCompressionAndStableETags(t *testing.T) {
	s := MustServe(t, nil, "serve", "-open-mutations")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for i := range 25 {
		q := fmt.Sprintf(`mutation { createComment(input: {productId: "cz-p", language: "en", rating: %d, author: "Author %d", title: "Title number %d", body: "A body long enough to make the page worth compressing, number %d."}) { comment { id } } }`, 1+i%5, i, i, i)
		if r := s.MustRequest(t, "POST", "/graphql", accQuery(q), "Content-Type", "application/json"); r.Status != 200 || strings.Contains(string(r.Body), "errors") {
			t.Fatalf("createComment: %d %s", r.Status, r.Body)
		}
	}
	page := "/graphql?query=" + url.QueryEscape(`{ product(id: "cz-p") { comments(language: "en", ratings: [2, 3, 5], first: 20) {
  totalCount pageInfo { hasNextPage endCursor } edges { cursor node { id rating author title body createdAt } } } } }`)

	cold, body := rawGET(ctx, t, s, page)
	warm, body2 := rawGET(ctx, t, s, page)
	etag := cold.Header.Get("ETag")
	if cold.StatusCode != 200 || etag == "" || warm.Header.Get("ETag") != etag || !bytes.Equal(body, body2) {
		t.Fatalf("cold %d %q, warm %q:\n%s\n%s", cold.StatusCode, etag, warm.Header.Get("ETag"), body, body2)
	}
	if bytes.Contains(body, []byte(`"cost"`)) || len(body) < 2000 {
		t.Errorf("cacheable GET reply (%d bytes): %s", len(body), body)
	}
	decode := map[string]func(io.Reader) (io.Reader, error){
		"gzip": func(r io.Reader) (io.Reader, error) { return gzip.NewReader(r) },
		"zstd": func(r io.Reader) (io.Reader, error) { return zstd.NewReader(r) },
	}
	for enc, dec := range decode {
		resp, z := rawGET(ctx, t, s, page, "Accept-Encoding", enc)
		tag := resp.Header.Get("ETag")
		if resp.Header.Get("Content-Encoding") != enc || !strings.Contains(resp.Header.Get("Vary"), "Accept-Encoding") ||
			tag != strings.TrimSuffix(etag, `"`)+"-"+enc+`"` || len(z) >= len(body)/2 {
			t.Errorf("%s: %d bytes (identity %d), %v", enc, len(z), len(body), resp.Header)
			continue
		}
		zr, err := dec(bytes.NewReader(z))
		if err != nil {
			t.Fatal(err)
		}
		if plain, err := io.ReadAll(zr); err != nil || !bytes.Equal(plain, body) {
			t.Errorf("%s decodes to another body (%v)", enc, err)
		}
		nm, b := rawGET(ctx, t, s, page, "Accept-Encoding", enc, "If-None-Match", tag)
		if nm.StatusCode != 304 || len(b) != 0 || nm.Header.Get("ETag") != tag {
			t.Errorf("%s: If-None-Match %s: %d %v", enc, tag, nm.StatusCode, nm.Header)
		}
	}
	if nm, _ := rawGET(ctx, t, s, page, "If-None-Match", etag); nm.StatusCode != 304 || nm.Header.Get("ETag") != etag {
		t.Errorf("If-None-Match %s: %d %v", etag, nm.StatusCode, nm.Header)
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/graphql", strings.NewReader(accQuery(`subscription { commentAdded(productId: "cz-p") { id } }`)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Accept-Encoding", "gzip, zstd")
	resp, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != "" {
		t.Errorf("SSE: %d %v", resp.StatusCode, resp.Header)
	}
}
