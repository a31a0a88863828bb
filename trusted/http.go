package trusted

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/acme/comments-gateway/internal/jsonmember"
)

// Middleware resolves the documentId or persisted-query hash of a POST
// (application/json, SSE included) or GET GraphQL request to its document,
// and with Only refuses every other operation with HTTP 400 and a coded
// error before GraphQL sees it. A WebSocket upgrade goes on: its operations
// come later, in messages, and Extension decides each. Put it after the
// body limit and the refusal of bodies with member names that differ only
// in case (jsonmember's Object.Duplicate). With no manifest (nil, or empty without
// Only) it is next itself.
func (m *Manifest) Middleware(next http.Handler) http.Handler {
	if m.Len() == 0 && (m == nil || !m.Only) {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Header.Get("Upgrade") != "":
			next.ServeHTTP(w, r)
		case r.Method == http.MethodGet:
			m.serveGET(w, r, next)
		case r.Method == http.MethodPost:
			m.servePOST(w, r, next)
		default:
			next.ServeHTTP(w, r)
		}
	})
}

// servePOST resolves a JSON body's documentId, extensions.persistedQuery
// and query, read from the body's members the edge parsed
// (jsonmember.FromContext), else from the body. A body that is not a JSON
// object goes on unchanged: the GraphQL transport answers it. A resolved
// document replaces the body and its members.
func (m *Manifest) servePOST(w http.ResponseWriter, r *http.Request, next http.Handler) {
	req, parsed := jsonmember.FromContext(r.Context())
	if !parsed {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), errReader{err}))
			next.ServeHTTP(w, r)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		req, _ = jsonmember.Parse(body)
	}
	if req == nil {
		next.ServeHTTP(w, r)
		return
	}
	// Member names match regardless of case, as the GraphQL transport
	// matches them (package jsonmember; a body with two names that differ
	// only in case was refused before).
	var documentID, query string
	_ = json.Unmarshal(req.Get("documentId"), &documentID)
	_ = json.Unmarshal(req.Get("query"), &query)
	var ext map[string]json.RawMessage
	_ = json.Unmarshal(req.Get("extensions"), &ext)
	doc, ref := m.resolve(documentID, persistedHash(ext), query)
	switch {
	case ref != nil:
		refuse(w, r, ref)
		return
	case doc != "":
		text, _ := json.Marshal(doc)
		delete(ext, "persistedQuery") // nested names match exactly, as everywhere
		extText, _ := json.Marshal(ext)
		req = req.Set("query", text).Delete("documentId").Set("extensions", extText)
		b, _ := json.Marshal(req)
		r = r.WithContext(jsonmember.NewContext(r.Context(), req))
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
	}
	next.ServeHTTP(w, r)
}

// serveGET resolves the documentId, extensions and query parameters.
func (m *Manifest) serveGET(w http.ResponseWriter, r *http.Request, next http.Handler) {
	q := r.URL.Query()
	var ext map[string]json.RawMessage
	_ = json.Unmarshal([]byte(q.Get("extensions")), &ext)
	doc, ref := m.resolve(q.Get("documentId"), persistedHash(ext), q.Get("query"))
	switch {
	case ref != nil:
		refuse(w, r, ref)
		return
	case doc != "":
		q.Set("query", doc)
		q.Del("documentId")
		if delete(ext, "persistedQuery"); len(ext) == 0 {
			q.Del("extensions")
		} else {
			b, _ := json.Marshal(ext)
			q.Set("extensions", string(b))
		}
		r = r.Clone(r.Context())
		r.URL.RawQuery = q.Encode()
	}
	next.ServeHTTP(w, r)
}

// refuse answers HTTP 400 with the refusal as a GraphQL error.
func refuse(w http.ResponseWriter, r *http.Request, ref *refusal) {
	b, _ := json.Marshal(map[string]any{"errors": []map[string]any{{
		"message": ref.message, "extensions": map[string]any{"code": ref.code},
	}}})
	ct := "application/json"
	if strings.Contains(r.Header.Get("Accept"), "application/graphql-response+json") {
		ct = "application/graphql-response+json"
	}
	w.Header().Set("Content-Type", ct)
	w.WriteHeader(http.StatusBadRequest)
	_, _ = w.Write(b)
}

// errReader returns err: a body whose reading failed stays failed.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
