package trusted

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// The codes of the refusals (extensions.code).
const (
	// CodeNotFound: the id names no document of the manifest (and, for a
	// persisted-query hash, the APQ cache may not be asked: Only is set).
	CodeNotFound = "PERSISTED_QUERY_NOT_FOUND"
	// CodeRequired: Only is set and the request carries a document that is
	// not in the manifest, or none.
	CodeRequired = "TRUSTED_DOCUMENT_REQUIRED"
	// CodeMismatch: the request carries both an id and a different document.
	CodeMismatch = "TRUSTED_DOCUMENT_MISMATCH"
)

// refusal is why a request is refused.
type refusal struct {
	code, message string
}

// resolve decides one request that names documentID (GraphQL over HTTP's
// documentId), apqHash (extensions.persistedQuery.sha256Hash) and query
// (its document text; each "" when absent). It returns the document to run
// instead of the request's ("" to leave the request alone) or a refusal.
func (m *Manifest) resolve(documentID, apqHash, query string) (string, *refusal) {
	if m == nil {
		return "", nil
	}
	id, isDocumentID := documentID, true
	if id == "" {
		id, isDocumentID = apqHash, false
	}
	if id != "" {
		doc, ok := m.Lookup(id)
		switch {
		case ok && query != "" && query != doc:
			return "", &refusal{CodeMismatch, fmt.Sprintf("the query differs from trusted document %s: send the id alone", quote(id))}
		case ok:
			return doc, nil
		case isDocumentID || m.Only:
			return "", &refusal{CodeNotFound, fmt.Sprintf("no trusted document has the id %s: the client's documents and the server's manifest (-trusted-documents) differ", quote(id))}
		}
		return "", nil // an APQ hash the APQ cache may know
	}
	if m.Only && !m.Trusted(query) {
		return "", &refusal{CodeRequired, "this server runs only trusted documents (-only-trusted-documents): send the documentId (or extensions.persistedQuery.sha256Hash) of a document in its manifest instead of the query"}
	}
	return "", nil
}

// quote quotes a client's id for a message, at most 80 characters of it.
func quote(id string) string {
	if utf8.RuneCountInString(id) > 80 {
		id = string([]rune(id)[:80]) + "…"
	}
	return fmt.Sprintf("%q", id)
}

// persistedHash returns extensions.persistedQuery.sha256Hash ("" when
// absent or not a string).
func persistedHash(ext map[string]json.RawMessage) string {
	var pq struct {
		Sha256Hash any `json:"sha256Hash"`
	}
	if raw, ok := ext["persistedQuery"]; !ok || json.Unmarshal(raw, &pq) != nil {
		return ""
	}
	s, _ := pq.Sha256Hash.(string)
	return s
}
