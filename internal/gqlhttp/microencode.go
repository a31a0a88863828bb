package gqlhttp

import (
	"bytes"
	"context"
	"net/http"
	"strconv"
)

// Encoded copies. A reply is compressed outside the cache, by the chain's
// compression layer (MicroCacheConfig.Compress), when the client accepts
// an encoding. Rather than compress the same micro-cached reply again on
// every hit, the micro-cache keeps the copy the layer made of it the first
// time: one per entry and Accept-Encoding value, an entry of its own in
// the same byte budget, expiring with the reply it was made of. A hit
// writes that copy with its Content-Encoding, which the layer passes
// through untouched (package gzhttp leaves an encoded reply alone).

// encoded returns what to send for r of the entry e: the copy kept for
// r's Accept-Encoding, made on first use; e itself when there is no
// compression, r accepts no encoding, or the compression leaves e as it
// is (a small reply).
func (c *microCache) encoded(e *microEntry, r *http.Request) *microEntry {
	accept := r.Header.Get("Accept-Encoding")
	if c.compress == nil || accept == "" {
		return e
	}
	// The ETag names the body: a new reply under the same key has copies
	// of its own.
	key := e.key + "\x00" + e.etag + "\x00" + accept
	v, ok := c.store.Get(context.Background(), key)
	if !ok {
		v = c.encode(e, accept)
		v.key = key
		c.store.Add(context.Background(), key, v)
	}
	if v.encoding == "" {
		return e
	}
	return v
}

// encode runs e's reply through the compression for a request accepting
// accept, and returns what it wrote as an entry expiring with e: with the
// encoding, the encoded ETag and body; with no encoding and no body when
// the compression left the reply as it was.
func (c *microCache) encode(e *microEntry, accept string) *microEntry {
	req, _ := http.NewRequest(http.MethodGet, "/", nil)
	req.Header.Set("Accept-Encoding", accept)
	rec := &recordedResponse{header: http.Header{}}
	c.compress(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		h := w.Header()
		h.Set("Content-Type", e.contentType)
		h.Set("ETag", e.etag)
		h.Set("Content-Length", strconv.Itoa(len(e.body)))
		_, _ = w.Write(e.body)
	})).ServeHTTP(rec, req)
	v := &microEntry{contentType: e.contentType, cacheControl: e.cacheControl, expires: e.expires}
	if enc := rec.header.Get("Content-Encoding"); enc != "" && rec.status == http.StatusOK {
		v.encoding, v.etag, v.body = enc, rec.header.Get("ETag"), rec.body.Bytes()
	}
	return v
}

// recordedResponse keeps what a handler writes (encode's).
type recordedResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

// Header implements http.ResponseWriter.
func (r *recordedResponse) Header() http.Header { return r.header }

// WriteHeader implements http.ResponseWriter: the first status counts.
func (r *recordedResponse) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

// Write implements http.ResponseWriter.
func (r *recordedResponse) Write(b []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.body.Write(b)
}
