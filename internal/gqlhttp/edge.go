package gqlhttp

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/acme/comments-gateway/internal/jsonmember"
)

// Edge refuses, with a coded JSON error, what is not a GraphQL-over-HTTP
// request before gqlgen sees it: methods other than GET, POST and OPTIONS
// (405), a POST whose Content-Type is not application/json (415), and a
// POST body that is too large (413), stalls (408), breaks off (400), is
// not UTF-8 (400) or has two member names that differ only in case (400,
// package jsonmember). A POST reaches next with its body read into memory
// and parsed once: its members are in the request's context
// (jsonmember.NewContext; a nil Object when the body is not one JSON
// object, which the transport then explains), for every reader after.
func Edge(maxBody int64) Middleware {
	return func(next http.Handler) http.Handler { return edge(maxBody, next) }
}

func edge(maxBody int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w = forUpgrade(w, r)
		switch r.Method {
		case http.MethodGet, http.MethodOptions:
		case http.MethodPost:
			if msg := checkContentType(r.Header.Get("Content-Type")); msg != "" {
				WriteError(w, http.StatusUnsupportedMediaType, CodeUnsupportedMediaType, msg)
				return
			}
			body, ok := readBody(w, r, maxBody)
			if !ok {
				return
			}
			obj, _ := jsonmember.Parse(body)
			if first, second, dup := obj.Duplicate(); dup {
				WriteError(w, http.StatusBadRequest, CodeBadRequest, fmt.Sprintf(
					"the request body has the members %q and %q: member names match regardless of case, so send each member once",
					truncate(first, 40), truncate(second, 40)))
				return
			}
			r = r.WithContext(jsonmember.NewContext(r.Context(), obj))
			r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		default:
			WriteError(w, http.StatusMethodNotAllowed, CodeMethodNotAllowed,
				fmt.Sprintf("method %.20s is not allowed: send queries with GET or POST, mutations with POST", r.Method),
				"Allow", "GET, POST, OPTIONS")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// checkContentType says what is wrong with a POST's Content-Type, or "".
func checkContentType(ct string) string {
	const want = `send the request as JSON with "Content-Type: application/json"`
	if ct == "" {
		return "the request has no Content-Type; " + want
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil || mt != "application/json" {
		return fmt.Sprintf("Content-Type %.60q is not supported; %s", ct, want)
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		return fmt.Sprintf("charset %.30q is not supported; the body must be UTF-8 (Content-Type: application/json or application/json; charset=utf-8)", cs)
	}
	return ""
}
