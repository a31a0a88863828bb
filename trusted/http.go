package trusted

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// Middleware resolves the documentId or persisted-query hash of a POST
// (application/json, SSE included) or GET GraphQL request to its document,
// and with Only refuses every other operation with HTTP 400 and a coded
// error before GraphQL sees it. A WebSocket upgrade goes on: its operations
// come later, in messages, and Extension decides each. Put it after the
// body limit. With no manifest (nil, or empty without Only) it is next
// itself.
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
// and query. A body that is not a JSON object goes on unchanged: the
// GraphQL transport answers it.
func (m *Manifest) servePOST(w http.ResponseWriter, r *http.Request, next http.Handler) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), errReader{err}))
		next.ServeHTTP(w, r)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	var req map[string]json.RawMessage
	if json.Unmarshal(body, &req) != nil {
		next.ServeHTTP(w, r)
		return
	}
	var documentID, query string
	_ = json.Unmarshal(req["documentId"], &documentID)
	_ = json.Unmarshal(req["query"], &query)
	var ext map[string]json.RawMessage
	_ = json.Unmarshal(req["extensions"], &ext)
	doc, ref := m.resolve(documentID, persistedHash(ext), query)
	switch {
	case ref != nil:
		refuse(w, r, ref)
		return
	case doc != "":
		req["query"], _ = json.Marshal(doc)
		delete(req, "documentId")
		delete(ext, "persistedQuery")
		req["extensions"], _ = json.Marshal(ext)
		b, _ := json.Marshal(req)
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
