package resolvers

import (
	"context"
	"maps"
	"slices"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/acme/comments-gateway/internal/gqlhttp"
	"github.com/acme/comments-gateway/internal/policy"
	"github.com/acme/comments-gateway/live/livehttp"
	"github.com/acme/comments-gateway/metrics"
	"github.com/acme/comments-gateway/origin"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/trusted"
)

// The error codes of the gateway (extensions.code) are all named in this
// file: the constants below for the codes decided in this package, and, in
// errorCodes, the codes the HTTP edge (package gqlhttp), the live
// transport (package livehttp), package trusted and gqlgen decide. errorCodes lists every code with where it is decided;
// storeCodes is the one translation of a store error.

// The codes of store errors, as a client sees them (also
// gqlhttp.CodeBadUserInput, gqlhttp.CodeNotFound, gqlhttp.CodeUnavailable
// and gqlhttp.CodeInternal).
const CodeConflict = "CONFLICT"

// storeCodes maps the domain's error codes (package store) to
// extensions.code: the one place a store error is translated.
var storeCodes = map[string]string{
	store.EINVALID:     gqlhttp.CodeBadUserInput,
	store.ENOTFOUND:    gqlhttp.CodeNotFound,
	store.ECONFLICT:    CodeConflict,
	store.EFORBIDDEN:   policy.CodeForbidden,
	store.EUNAVAILABLE: gqlhttp.CodeUnavailable,
	store.EINTERNAL:    gqlhttp.CodeInternal,
}

// errorCodes is every extensions.code a reply of the gateway may carry, with
// where it is decided. The table of error codes in docs/api.md lists
// exactly these (codes_test.go), so a new code cannot go undocumented.
var errorCodes = map[string]string{
	gqlhttp.CodeBadUserInput:         "a store EINVALID error, an argument check, or the request's encoding (gqlhttp/body.go)",
	gqlhttp.CodeNotFound:             "a store ENOTFOUND error, or a path under /graphql/",
	CodeConflict:                     "a store ECONFLICT error",
	gqlhttp.CodeUnavailable:          "a store EUNAVAILABLE error",
	gqlhttp.CodeInternal:             "anything without a code (ErrorPresenter), a panic",
	policy.CodeUnauthenticated:       "the mutation guard, an oversize credential (policy/access.go), X-Explain without a credential (policy/explain.go)",
	policy.CodeForbidden:             "a store EFORBIDDEN error: another author's comment (store.Owner, ChangeOwner in policy/access.go); X-Explain with a user's token (policy/explain.go)",
	policy.CodeThrottled:             "the rate limit (policy/ratelimit.go)",
	origin.Code:                      "the origin rule: a preflight, websocket or SSE request from an origin outside -cors-origins (package origin)",
	trusted.CodeNotFound:             "APQ or the trusted documents (package trusted)",
	trusted.CodeRequired:             "-only-trusted-documents (package trusted)",
	trusted.CodeMismatch:             "a trusted document id sent with another query (package trusted)",
	errcode.ParseFailed:              "gqlgen's parser, -max-tokens",
	errcode.ValidationFailed:         "gqlgen's validation, strict variables (gqlhttp/variables.go), operation choice (gqlhttp/transport.go)",
	policy.CodeDepth:                 "the cost analysis (policy/cost.go)",
	policy.CodeAliases:               "the cost analysis (policy/cost.go)",
	policy.CodeSelections:            "the cost analysis (policy/cost.go)",
	policy.CodeEntities:              "the cost analysis (policy/cost.go)",
	policy.CodeComplexity:            "the cost analysis (policy/cost.go)",
	gqlhttp.CodeBadRequest:           "the POST and GET transports (gqlhttp/transport.go)",
	gqlhttp.CodeUnsupportedMediaType: "the HTTP edge (gqlhttp/edge.go)",
	gqlhttp.CodeMethodNotAllowed:     "the HTTP edge (gqlhttp/edge.go), a mutation over GET (gqlhttp/transport.go)",
	gqlhttp.CodeRequestTooLarge:      "the body limit (gqlhttp/body.go)",
	gqlhttp.CodeRequestTimeout:       "the body read deadline (gqlhttp/body.go)",
	gqlhttp.CodeTooManyErrors:        "the error-list cap (gqlhttp/httperrors.go)",
	livehttp.CodeSlowConsumer:        "a subscription's event buffer overflowed (livehttp/fanout.go, package live)",
	livehttp.CodeLimitExceeded:       "too many subscriptions on one connection (livehttp/subscribe.go), too many live connections of one client (livehttp/conn.go)",
	livehttp.CodeInFlight:            "too many operations in flight on one websocket or of one client over websockets (livehttp/conn.go), too many HTTP requests in flight of one client (policy/inflight.go)",
	livehttp.CodeSubscriptionBudget:  "a client's subscriptions over their complexity budget (livehttp/budget.go)",
}

// countedErrors counts each error p presents in m by its extensions.code
// (comments_graphql_errors_total): every code of errorCodes has its series
// from the start, and a code outside errorCodes, which codes_test.go rules
// out, would count as INTERNAL, so the label stays the fixed set.
func countedErrors(p graphql.ErrorPresenterFunc, m *metrics.Collectors) graphql.ErrorPresenterFunc {
	if m == nil {
		return p
	}
	m.InitGraphQLErrorCodes(slices.Sorted(maps.Keys(errorCodes)))
	return func(ctx context.Context, err error) *gqlerror.Error {
		e := p(ctx, err)
		if e != nil {
			code, _ := e.Extensions["code"].(string)
			if _, ok := errorCodes[code]; !ok {
				code = gqlhttp.CodeInternal
			}
			m.ObserveGraphQLError(code)
		}
		return e
	}
}
