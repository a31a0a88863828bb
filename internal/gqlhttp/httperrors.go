package gqlhttp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"strconv"
	"unicode/utf8"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// MaxErrors is how many errors a reply lists at most; one more entry
// (TOO_MANY_ERRORS) says how many were left out.
const MaxErrors = 20

// requestErrorBody is the reply to a request refused before execution:
// errors (and extensions) but no "data" entry, as GraphQL over HTTP asks.
type requestErrorBody struct {
	Errors     gqlerror.List  `json:"errors"`
	Extensions map[string]any `json:"extensions,omitempty"`
}

// WriteError answers with status and one coded error. Headers given
// as name, value pairs are set first (Allow, Connection).
func WriteError(w http.ResponseWriter, status int, code, msg string, header ...string) {
	for i := 0; i+1 < len(header); i += 2 {
		w.Header().Set(header[i], header[i+1])
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	writeJSON(w, requestErrorBody{Errors: gqlerror.List{Coded(code, msg)}})
}

// Coded is an error with message msg and extensions.code code.
func Coded(code, msg string) *gqlerror.Error {
	e := &gqlerror.Error{Message: msg}
	SetCode(e, code)
	return e
}

// SetCode sets e's extensions.code.
func SetCode(e *gqlerror.Error, code string) {
	if e.Extensions == nil {
		e.Extensions = map[string]any{}
	}
	e.Extensions["code"] = code
}

// writeJSON writes v; a value that cannot be marshalled is a bug, answered
// as a coded INTERNAL error rather than a panic.
func writeJSON(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		b = []byte(`{"errors":[{"message":"internal error","extensions":{"code":"INTERNAL"}}]}`)
	}
	writeBody(w, b)
}

// writeBody writes a whole reply body in one Write, with its
// Content-Length: without it, net/http sends a body over 2 KB chunked, in
// three writes to the connection (headers and first chunk, the rest, the
// last chunk) where one or two do. A status already written keeps its
// headers; the length is then not sent, and nothing else changes.
func writeBody(w http.ResponseWriter, b []byte) {
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	_, _ = w.Write(b)
}

// NotFoundHandler answers every request with 404 and a coded JSON error
// naming the GraphQL endpoint (for paths under it that do not exist).
func NotFoundHandler(endpoint string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		WriteError(w, http.StatusNotFound, CodeNotFound, fmt.Sprintf("no endpoint at %s; GraphQL is served at %s", r.URL.Path, endpoint))
	})
}

// CapErrors is a response middleware that cuts a reply's error list to
// MaxErrors entries plus one TOO_MANY_ERRORS entry counting the rest, so
// that a request with thousands of mistakes gets a small reply.
func CapErrors(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	resp := next(ctx)
	if resp != nil {
		resp.Errors = capErrorList(resp.Errors)
	}
	return resp
}

func capErrorList(errs gqlerror.List) gqlerror.List {
	if len(errs) <= MaxErrors {
		return errs
	}
	more := &gqlerror.Error{Message: fmt.Sprintf("%d more errors not shown (a reply lists at most %d); fix the ones above and send the request again", len(errs)-MaxErrors, MaxErrors)}
	SetCode(more, CodeTooManyErrors)
	more.Extensions["omitted"] = len(errs) - MaxErrors
	return append(errs[:MaxErrors:MaxErrors], more)
}

// suggestion matches gqlparser's "Did you mean …?" suffixes (fields,
// arguments, input fields, types, enum values, inline fragments).
var suggestion = regexp.MustCompile(` Did you mean [^?]*\?`)

// goTypeError matches gqlgen's scalar unmarshallers' messages, which name
// the Go type of the value ("json.Number is not a map").
var goTypeError = regexp.MustCompile(`^.+ is not an? (map|int|int32|int64|uint|uint64|float|float64|string|bool)$`)

// goKinds names, for a client, what an unmarshaller wanted.
var goKinds = map[string]string{
	"map": "a JSON object", "string": "a string", "bool": "true or false",
	"int": "an integer", "int32": "an integer", "int64": "an integer", "uint": "an integer", "uint64": "an integer",
	"float": "a number", "float64": "a number",
}

// EdgePresenter makes what p presents fit to show: a message is cut to
// maxMessageBytes (one that quotes a name the client wrote, such as an
// unknown field, may otherwise echo most of a 1 MB document), messages
// that name a Go type say what was expected instead, and with
// hideSuggestions every "Did you mean …?" is cut (with introspection off no
// error may name schema members the client did not write; gqlgen's
// SetDisableSuggestion covers only unknown fields).
func EdgePresenter(p graphql.ErrorPresenterFunc, hideSuggestions bool) graphql.ErrorPresenterFunc {
	return func(ctx context.Context, err error) *gqlerror.Error {
		e := p(ctx, err)
		if e == nil {
			return nil
		}
		e.Message = Clip(e.Message, maxMessageBytes)
		if m := goTypeError.FindStringSubmatch(e.Message); m != nil {
			e.Message = "expected " + goKinds[m[1]]
		}
		if hideSuggestions {
			e.Message = suggestion.ReplaceAllString(e.Message, "")
		}
		return e
	}
}

// maxMessageBytes bounds an error message's length in a reply.
const maxMessageBytes = 1 << 10

// Clip cuts s to at most n bytes (on a character boundary) and marks the
// cut with "…"; a shorter s is returned as is. The text a client wrote
// (a name, a document) reaches replies and log lines only through it.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) { // s[n] continues the rune before it
		n--
	}
	return s[:n] + "…"
}

// LogLevel is the level at which a failed request's error is logged: a
// client that went away (the request's context cancelled, which is not its
// deadline passing) is routine, not an ERROR.
func LogLevel(ctx context.Context, err error) slog.Level {
	if errors.Is(err, context.Canceled) || errors.Is(ctx.Err(), context.Canceled) {
		return slog.LevelInfo
	}
	return slog.LevelError
}
