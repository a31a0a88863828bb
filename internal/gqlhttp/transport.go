package gqlhttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/acme/comments-gateway/internal/jsonmember"
	"github.com/acme/comments-gateway/internal/jsonvalue"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// The GraphQL-over-HTTP transports: gqlgen's POST and GET made strict.
// Compared with transport.POST and transport.GET they refuse a body that
// is not one JSON object (no echo of the body, no Go type names), answer a
// request refused before execution without a "data" entry, name the
// operation-selection and variable mistakes as graphql-js does, and answer
// a mutation over GET with 405 and "Allow: POST". The body itself (size,
// timeout, UTF-8) is checked earlier, by Edge.

// Response media types (GraphQL over HTTP).
const (
	mediaJSON            = "application/json"
	mediaGraphQLResponse = "application/graphql-response+json"
)

// postTransport answers POST requests with a JSON body.
type postTransport struct{ ops operations }

// getTransport answers GET requests (queries only).
type getTransport struct{ ops operations }

var (
	_ graphql.Transport = postTransport{}
	_ graphql.Transport = getTransport{}
)

// Transports are the GraphQL-over-HTTP transports of schema's operations,
// in the order gqlgen is to try them: OPTIONS, GET (queries only) and POST.
// Transports that answer a POST too (SSE) must be added before them.
func Transports(schema *ast.Schema) []graphql.Transport {
	ops := operations{schema: schema}
	return []graphql.Transport{transport.Options{}, getTransport{ops: ops}, postTransport{ops: ops}}
}

// Supports implements graphql.Transport.
func (postTransport) Supports(r *http.Request) bool {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return r.Method == http.MethodPost && r.Header.Get("Upgrade") == "" && mt == mediaJSON
}

// Do implements graphql.Transport.
// The body's members come from the request's context when Edge parsed it
// (jsonmember.FromContext), else from the body.
func (t postTransport) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	var params *graphql.RawParams
	var msg string
	if obj, _ := jsonmember.FromContext(r.Context()); obj != nil {
		params, msg = decodeMembers(obj)
	} else {
		body, err := io.ReadAll(r.Body) // already bounded and read by Edge
		if err != nil {
			WriteError(w, http.StatusBadRequest, CodeBadRequest, "the request body could not be read")
			return
		}
		params, msg = decodeRequest(body)
	}
	if msg != "" {
		WriteError(w, http.StatusBadRequest, CodeBadRequest, msg)
		return
	}
	params.Headers = r.Header
	t.ops.serve(w, r, exec, params, false)
}

// Supports implements graphql.Transport.
func (getTransport) Supports(r *http.Request) bool {
	return r.Method == http.MethodGet && r.Header.Get("Upgrade") == ""
}

// Do implements graphql.Transport.
func (t getTransport) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		WriteError(w, http.StatusBadRequest, CodeBadRequest, "the query string is malformed (bad %-escape or separator)")
		return
	}
	for k, vs := range q {
		for _, v := range vs {
			if !utf8.ValidString(k) || !utf8.ValidString(v) {
				WriteError(w, http.StatusBadRequest, CodeBadUserInput, "the query string is not valid UTF-8; percent-encode UTF-8 bytes")
				return
			}
			if hasLoneSurrogate([]byte(v)) {
				WriteError(w, http.StatusBadRequest, CodeBadUserInput, loneSurrogateMessage)
				return
			}
		}
	}
	params := &graphql.RawParams{Query: q.Get("query"), OperationName: q.Get("operationName"), Headers: r.Header}
	for _, p := range []struct {
		name string
		dst  *map[string]any
	}{{"variables", &params.Variables}, {"extensions", &params.Extensions}} {
		if s := q.Get(p.name); s != "" {
			if msg := decodeObject(p.name, []byte(s), p.dst); msg != "" {
				WriteError(w, http.StatusBadRequest, CodeBadRequest, msg)
				return
			}
		}
	}
	t.ops.serve(w, r, exec, params, true)
}

// operations runs a decoded request through gqlgen's executor; shared by
// both transports.
type operations struct{ schema *ast.Schema }

// serve creates the operation context, answers a refused request with its
// (presented, capped) errors and no data, refuses a mutation over GET, and
// otherwise executes the operation.
func (o operations) serve(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor, params *graphql.RawParams, queriesOnly bool) {
	ctx := r.Context()
	params.ReadTime = graphql.TraceTiming{Start: graphql.Now(), End: graphql.Now()}
	integralNumbers(params.Variables) // 5.0 and 1e2 are Ints, as in graphql-js
	ct := responseMediaType(r)
	oc, errs := o.createOperation(ctx, exec, params)
	if errs != nil {
		resp := exec.DispatchError(graphql.WithOperationContext(ctx, oc), errs)
		w.Header().Set("Content-Type", ct)
		w.WriteHeader(requestErrorStatus(errs, ct))
		writeJSON(w, requestErrorBody{Errors: resp.Errors, Extensions: resp.Extensions})
		return
	}
	if queriesOnly && oc.Operation.Operation != ast.Query {
		WriteError(w, http.StatusMethodNotAllowed, CodeMethodNotAllowed,
			fmt.Sprintf("a %s needs POST; GET runs queries only", oc.Operation.Operation), "Allow", "POST")
		return
	}
	w.Header().Set("Content-Type", ct)
	responses, ctx := exec.DispatchOperation(ctx, oc)
	writeResponse(ctx, w, responses(ctx))
}

// createOperation is exec.CreateOperationContext with graphql-js's messages
// for the operation-selection mistakes and every variable error at once
// (see checkVariables).
func (o operations) createOperation(ctx context.Context, exec graphql.GraphExecutor, params *graphql.RawParams) (*graphql.OperationContext, gqlerror.List) {
	oc, errs := exec.CreateOperationContext(ctx, params)
	switch {
	case errs == nil:
	case oc.Doc != nil && oc.Operation == nil:
		errs = gqlerror.List{operationNotFound(oc.Doc, params.OperationName)}
	case oc.Operation != nil:
		if list := checkVariables(o.schema, oc.Operation, params.Variables); len(list) > 0 {
			errs = list
		}
	}
	return oc, errs
}

// operationNotFound says why no operation of doc was chosen.
func operationNotFound(doc *ast.QueryDocument, name string) *gqlerror.Error {
	var err *gqlerror.Error
	switch {
	case name == "" && len(doc.Operations) > 1:
		err = gqlerror.Errorf("Must provide operation name if query contains multiple operations.")
	case name == "":
		err = gqlerror.Errorf("Must provide an operation.")
	default:
		err = gqlerror.Errorf("Unknown operation named %q.", truncate(name, 64))
	}
	errcode.Set(err, errcode.ValidationFailed)
	return err
}

// requestErrorStatus is the status of a request refused before execution:
// gqlgen's rule (a protocol error — parse, validation, limits — gets 400
// with Accept: application/graphql-response+json and 422 with
// application/json; other refusals, such as PERSISTED_QUERY_NOT_FOUND, 200).
func requestErrorStatus(errs gqlerror.List, mediaType string) int {
	if errcode.GetErrorKind(errs) != errcode.KindProtocol {
		return http.StatusOK
	}
	if mediaType == mediaGraphQLResponse {
		return http.StatusBadRequest
	}
	return http.StatusUnprocessableEntity
}

// responseMediaType picks the reply's media type from Accept, as gqlgen's
// transports do: application/json when the client takes it (or names no
// type, or */*), else application/graphql-response+json.
func responseMediaType(r *http.Request) string {
	accept := r.Header.Get("Accept")
	if accept == "" {
		return mediaJSON
	}
	for part := range strings.SplitSeq(accept, ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		switch mt {
		case "*/*", "application/*", mediaJSON:
			return mediaJSON
		case mediaGraphQLResponse:
			return mediaGraphQLResponse
		}
	}
	return mediaGraphQLResponse
}

// decodeRequest decodes a POST body: one JSON object with "query" and
// "operationName" (strings), "variables" and "extensions" (objects, their
// numbers kept as json.Number so that checkVariables sees what was sent),
// each optional or null; other members are ignored and, as gqlgen's own
// transports do, member names match regardless of case (the edge has
// refused two names that differ only in case: package jsonmember). The
// body is parsed once (jsonmember.Parse) and only the members above are
// decoded (decodeMembers). A message says what is wrong without echoing
// the body.
func decodeRequest(body []byte) (*graphql.RawParams, string) {
	if obj, ok := jsonmember.Parse(body); ok {
		return decodeMembers(obj)
	}
	return nil, notARequest(body)
}

// decodeMembers decodes a request from its body's members, in their order
// (the first mistake is reported, as encoding/json reports it; a later
// member of a name replaces an earlier one).
func decodeMembers(obj jsonmember.Object) (*graphql.RawParams, string) {
	p := &graphql.RawParams{}
	for _, m := range obj {
		var msg string
		switch {
		case jsonmember.Same(m.Name, "query"):
			msg = decodeString("query", m.Value, &p.Query)
		case jsonmember.Same(m.Name, "operationName"):
			msg = decodeString("operationName", m.Value, &p.OperationName)
		case jsonmember.Same(m.Name, "variables"):
			msg = decodeMember("variables", m.Value, &p.Variables)
		case jsonmember.Same(m.Name, "extensions"):
			msg = decodeMember("extensions", m.Value, &p.Extensions)
		}
		if msg != "" {
			return nil, msg
		}
	}
	return p, ""
}

// decodeString decodes the member name's value raw (valid JSON), a string
// or null, into dst.
func decodeString(name string, raw []byte, dst *string) string {
	switch raw[0] {
	case 'n':
		*dst = ""
		return ""
	case '"':
		*dst = jsonvalue.String(raw)
		return ""
	}
	return fmt.Sprintf("%q must be a string", name)
}

// decodeMember decodes the member name's value raw (valid JSON), an object
// or null, into dst, its numbers kept as json.Number.
func decodeMember(name string, raw []byte, dst *map[string]any) string {
	if raw[0] == 'n' {
		*dst = nil
		return ""
	}
	if raw[0] != '{' {
		return fmt.Sprintf("%q must be a JSON object", name)
	}
	setObject(dst, jsonvalue.Object(raw))
	return ""
}

// notARequest says why body, which is not one valid JSON object, is not a
// GraphQL-over-HTTP request.
func notARequest(body []byte) string {
	const notAnObject = `the request body must be a JSON object such as {"query": "{ __typename }"}`
	if string(bytes.TrimSpace(body)) == "null" {
		return notAnObject + ", not null"
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var req struct {
		Query         *string        `json:"query"`
		OperationName *string        `json:"operationName"`
		Variables     map[string]any `json:"variables"`
		Extensions    map[string]any `json:"extensions"`
	}
	if err := dec.Decode(&req); err != nil {
		var te *json.UnmarshalTypeError
		switch {
		case !errors.As(err, &te):
			return jsonSyntaxMessage("the request body", err)
		case te.Field == "query" || te.Field == "operationName":
			return fmt.Sprintf("%q must be a string", te.Field)
		case te.Field == "variables" || te.Field == "extensions":
			return fmt.Sprintf("%q must be a JSON object", te.Field)
		}
		return notAnObject + " (batched requests, a JSON array, are not supported)"
	}
	if _, err := dec.Token(); err != io.EOF {
		return "the request body has data after its JSON object; send exactly one JSON object"
	}
	return notAnObject
}

// decodeObject decodes raw, which must be a JSON object, into dst with
// numbers kept as json.Number (so that checkVariables sees what was sent):
// valid text with package jsonvalue, and anything else with encoding/json,
// which says what is wrong.
func decodeObject(name string, raw []byte, dst *map[string]any) string {
	b := bytes.TrimSpace(raw)
	if len(b) == 0 || b[0] != '{' {
		return fmt.Sprintf("%q must be a JSON object", name)
	}
	if json.Valid(b) {
		setObject(dst, jsonvalue.Object(b))
		return ""
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(dst); err != nil {
		return jsonSyntaxMessage(fmt.Sprintf("%q", name), err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Sprintf("%q has data after its JSON object", name)
	}
	return ""
}

// setObject stores a decoded object in *dst as encoding/json decodes an
// object into a map: into a new map, or added to the one already there
// (a second member of the same name).
func setObject(dst *map[string]any, obj map[string]any) {
	if *dst == nil {
		*dst = obj
		return
	}
	for k, v := range obj {
		(*dst)[k] = v
	}
}

// jsonSyntaxMessage describes a JSON decoding error by its position, never
// by the input or a Go type.
func jsonSyntaxMessage(what string, err error) string {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("%s is not valid JSON: %s (at byte %d)", what, se.Error(), se.Offset)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return what + " is not valid JSON: it ends before its JSON value does"
	default:
		return what + " is not valid JSON"
	}
}

// truncate cuts s to at most n bytes (on a rune boundary), marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
