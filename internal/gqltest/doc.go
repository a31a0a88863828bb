// Package gqltest is the GraphQL client of the module's tests: it sends an
// operation (POST with a JSON body, or GET with the query string) to an
// endpoint — an httptest.Server around the handler or the built binary on
// 127.0.0.1 — and decodes the answer into data, errors (with their
// extensions) and extensions, keeping the HTTP status, headers and body.
//
// A Client never judges an answer: every status and every error comes back
// to the test, which asserts what it pins. Send is the raw form, for the
// bodies a GraphQL client would never send (malformed JSON, oversized or
// hostile requests).
package gqltest
