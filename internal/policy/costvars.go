package policy

import "encoding/json"

// An operation with variables is measured per request: its complexity
// reads the variables. Its measure is a function of the document, the
// operation's name and the raw variables alone (coercion and the schema's
// complexity are deterministic), so CostLimit keeps the measures of
// recent variable sets in its cache beside the documents: a hot page (page
// 1 of a product, the same variables) is measured once, not on every
// request.

// maxCachedVariables is the longest JSON of a request's variables whose
// measure is kept (a longer one is measured each time).
const maxCachedVariables = 1 << 10

// variablesKey is the cache key of an operation's measure with these raw
// variables in the document of key docKey: the document's key, the
// operation's name and the variables as JSON (keys sorted); false when
// they are too long to keep.
func variablesKey(docKey, operationName string, vars map[string]any) (string, bool) {
	b, err := json.Marshal(vars)
	if err != nil || len(b) > maxCachedVariables {
		return "", false
	}
	return docKey + "\x00" + operationName + "\x00" + string(b), true
}
