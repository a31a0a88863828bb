package trusted

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
)

// Manifest is a set of trusted documents. The zero value and nil hold none.
type Manifest struct {
	byID   map[string]string // manifest key → document
	byHash map[string]string // SHA-256 hex of a document → the document
	// Only refuses every operation that is not one of the documents.
	Only bool
}

// Load reads a manifest file (see Parse).
func Load(path string) (*Manifest, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// Parse reads a manifest: one JSON object of id → document text. Every id
// and document must be non-empty, and every document must parse as GraphQL
// (it is checked against the schema when it runs, like any operation).
func Parse(b []byte) (*Manifest, error) {
	var raw map[string]string
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("a trusted documents manifest is a JSON object of id → GraphQL document: %v", err)
	}
	m := &Manifest{byID: make(map[string]string, len(raw)), byHash: make(map[string]string, len(raw))}
	ids := make([]string, 0, len(raw))
	for id := range raw {
		ids = append(ids, id)
	}
	sort.Strings(ids) // the first bad id in order, whatever the map's
	for _, id := range ids {
		doc := raw[id]
		if strings.TrimSpace(id) == "" || strings.TrimSpace(doc) == "" {
			return nil, fmt.Errorf("document %q: id and document must not be empty", id)
		}
		if _, err := parser.ParseQuery(&ast.Source{Input: doc}); err != nil {
			return nil, fmt.Errorf("document %q does not parse: %v", id, err)
		}
		m.byID[id] = doc
		m.byHash[Hash(doc)] = doc
	}
	return m, nil
}

// Hash is the SHA-256 hex of a document, as APQ and GraphQL Codegen compute it.
func Hash(doc string) string {
	h := sha256.Sum256([]byte(doc))
	return hex.EncodeToString(h[:])
}

// Len is the number of documents.
func (m *Manifest) Len() int {
	if m == nil {
		return 0
	}
	return len(m.byID)
}

// Lookup returns the document an id names: a manifest key, "sha256:" and
// the SHA-256 hex of a document, or that hex alone.
func (m *Manifest) Lookup(id string) (string, bool) {
	if m == nil {
		return "", false
	}
	if doc, ok := m.byID[id]; ok {
		return doc, true
	}
	h, _ := strings.CutPrefix(id, "sha256:")
	doc, ok := m.byHash[strings.ToLower(h)]
	return doc, ok
}

// Trusted reports whether a document's text is one of the manifest's.
func (m *Manifest) Trusted(doc string) bool {
	if m == nil {
		return false
	}
	_, ok := m.byHash[Hash(doc)]
	return ok
}
