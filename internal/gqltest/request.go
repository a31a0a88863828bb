package gqltest

import (
	"encoding/json"
	"net/http"
	"net/url"
)

// request is what Do sends.
type request struct {
	method string
	body   map[string]any // query, variables, operationName, extensions
	header http.Header
}

// Option shapes a request.
type Option func(*request)

// Var sets the variable name to value (beside the vars given to Do).
func Var(name string, value any) Option {
	return func(r *request) {
		vars, _ := r.body["variables"].(map[string]any)
		if vars == nil {
			vars = map[string]any{}
			r.body["variables"] = vars
		}
		vars[name] = value
	}
}

// Operation sets operationName.
func Operation(name string) Option { return Param("operationName", name) }

// Extensions sets the request's extensions (persistedQuery, …).
func Extensions(ext map[string]any) Option { return Param("extensions", ext) }

// Param sets the request parameter name to value, for the parameters the
// other options do not name (documentId) and for values of the wrong type.
func Param(name string, value any) Option {
	return func(r *request) { r.body[name] = value }
}

// Header sets the request header key to value.
func Header(key, value string) Option {
	return func(r *request) { r.header.Set(key, value) }
}

// Headers sets each header of pairs (key, value, key, value, …).
func Headers(pairs ...string) Option {
	return func(r *request) {
		for i := 0; i+1 < len(pairs); i += 2 {
			r.header.Set(pairs[i], pairs[i+1])
		}
	}
}

// GET sends the request as GET with the query string (query, variables,
// operationName, extensions), as a cacheable read is sent.
func GET() Option {
	return func(r *request) { r.method = http.MethodGet }
}

// newRequest applies opts to a POST of query with vars.
func newRequest(query string, vars map[string]any, opts []Option) *request {
	r := &request{method: http.MethodPost, body: map[string]any{}, header: http.Header{}}
	if query != "" {
		r.body["query"] = query
	}
	if vars != nil {
		r.body["variables"] = vars
	}
	for _, o := range opts {
		o(r)
	}
	return r
}

// encode returns the path suffix and body that send r: a JSON body for a
// POST, the query string for a GET.
func (r *request) encode() (suffix string, body []byte, err error) {
	if r.method == http.MethodPost {
		if r.header.Get("Content-Type") == "" {
			r.header.Set("Content-Type", "application/json")
		}
		body, err = json.Marshal(r.body)
		return "", body, err
	}
	q := url.Values{}
	for k, v := range r.body {
		if s, ok := v.(string); ok {
			q.Set(k, s)
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			return "", nil, err
		}
		q.Set(k, string(b))
	}
	return "?" + q.Encode(), nil, nil
}
