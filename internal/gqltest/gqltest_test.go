package gqltest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/acme/comments-gateway/internal/gqltest"
)

// seen is what the endpoint received.
type seen struct {
	method, path, contentType, header, body string
	params                                  map[string]any // from a JSON body and the query string
}

// mustEndpoint serves a fixed GraphQL answer with status 400 and records
// each request.
func mustEndpoint(t *testing.T, got *seen) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		*got = seen{method: r.Method, path: r.URL.Path, contentType: r.Header.Get("Content-Type"), header: r.Header.Get("X-Test"), params: map[string]any{}}
		if r.Method == http.MethodPost {
			b, _ := io.ReadAll(r.Body)
			got.body = string(b)
			_ = json.Unmarshal(b, &got.params)
		}
		for k, v := range r.URL.Query() {
			got.params[k] = v[0]
		}
		w.Header().Set("X-Reply", "yes")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"data":{"a":1},"errors":[{"message":"m","path":["a",0],"extensions":{"code":"BAD_USER_INPUT"}}],"extensions":{"cost":{"itemsRead":2}}}`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestDoSendsTheRequestAndDecodesEveryPart: a POST carries query,
// variables, operationName and extensions as a JSON body, a GET as the
// query string (JSON values encoded); the answer's status, headers, data,
// coded errors with their path, and extensions all reach the test, and a
// 4xx is no error of Do's.
func TestDoSendsTheRequestAndDecodesEveryPart(t *testing.T) {
	var got seen
	srv := mustEndpoint(t, &got)
	c := gqltest.New(srv.URL + "/graphql")
	opts := []gqltest.Option{gqltest.Var("b", 2), gqltest.Operation("Q"), gqltest.Extensions(map[string]any{"e": true}), gqltest.Header("X-Test", "h")}
	want := map[string]any{"query": "query Q { a }", "variables": map[string]any{"a": "x", "b": float64(2)}, "operationName": "Q", "extensions": map[string]any{"e": true}}

	r := c.MustDo(t, "query Q { a }", map[string]any{"a": "x"}, opts...)
	if got.method != http.MethodPost || got.path != "/graphql" || got.contentType != "application/json" || got.header != "h" || !reflect.DeepEqual(got.params, want) {
		t.Errorf("POST sent %+v", got)
	}
	if r.Status != http.StatusBadRequest || r.Header.Get("X-Reply") != "yes" || string(r.Data) != `{"a":1}` {
		t.Errorf("answer: %d %v %s", r.Status, r.Header, r.Data)
	}
	if len(r.Errors) != 1 || r.Code() != "BAD_USER_INPUT" || r.Errors[0].PathString() != "a/0" || r.Errors[0].Message != "m" {
		t.Errorf("errors: %+v", r.Errors)
	}
	if cost, _ := r.Extensions["cost"].(map[string]any); cost["itemsRead"] != float64(2) {
		t.Errorf("extensions: %v", r.Extensions)
	}

	c.MustDo(t, "query Q { a }", map[string]any{"a": "x"}, append(opts, gqltest.GET())...)
	wantGET := map[string]any{"query": "query Q { a }", "variables": `{"a":"x","b":2}`, "operationName": "Q", "extensions": `{"e":true}`}
	if got.method != http.MethodGet || got.contentType != "" || !reflect.DeepEqual(got.params, wantGET) {
		t.Errorf("GET sent %+v", got)
	}
}

// TestSendPassesAnyBody: Send delivers a body as it is, to the URL plus a
// suffix, and returns the answer even when it is no GraphQL response.
func TestSendPassesAnyBody(t *testing.T) {
	var got seen
	srv := mustEndpoint(t, &got)
	c := gqltest.New(srv.URL)
	r := c.MustSend(t, http.MethodPost, "/x?y=1", []byte(`{"query":`), gqltest.Headers("X-Test", "h"))
	if got.path != "/x" || got.body != `{"query":` || got.params["y"] != "1" || got.header != "h" || got.contentType != "application/json" || r.Status != http.StatusBadRequest {
		t.Errorf("sent %+v, got %d", got, r.Status)
	}
}
