package resolvers

import (
	"encoding/json"

	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/vektah/gqlparser/v2/ast"
)

// An operation with variables is measured per request: its complexity
// reads the variables. Its measure is a function of the document, the
// operation's name and the raw variables alone (coercion and the schema's
// complexity are deterministic), so costLimit keeps the measures of the
// last few variable sets of each document: a hot page (page 1 of a
// product, the same variables) is measured once, not on every request.

// The bounds of the measures kept by variables: per document, and the
// longest JSON of a request's variables that is kept (a longer one is
// measured each time).
const (
	maxMeasuresPerDocument = 64
	maxCachedVariables     = 1 << 10
)

// newVariableMeasures is the cache of a document with an operation that
// has variables; nil when it has none.
func newVariableMeasures(doc *ast.QueryDocument) *lru.LRU[operationCost] {
	for _, op := range doc.Operations {
		if len(op.VariableDefinitions) > 0 {
			return lru.New[operationCost](maxMeasuresPerDocument)
		}
	}
	return nil
}

// variablesKey is the key of an operation's measure with these raw
// variables: the operation's name and the variables as JSON (keys
// sorted); false when they are too long to keep.
func variablesKey(operationName string, vars map[string]any) (string, bool) {
	b, err := json.Marshal(vars)
	if err != nil || len(b) > maxCachedVariables {
		return "", false
	}
	return operationName + "\x00" + string(b), true
}
