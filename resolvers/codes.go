package resolvers

import (
	"github.com/99designs/gqlgen/graphql/errcode"

	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/trusted"
)

// The codes of store errors, as a client sees them.
const (
	CodeConflict    = "CONFLICT"
	CodeUnavailable = "UNAVAILABLE"
	CodeInternal    = "INTERNAL"
)

// storeCodes maps the domain's error codes (package store) to
// extensions.code: the one place a store error is translated.
var storeCodes = map[string]string{
	store.EINVALID:     CodeBadUserInput,
	store.ENOTFOUND:    CodeNotFound,
	store.ECONFLICT:    CodeConflict,
	store.EUNAVAILABLE: CodeUnavailable,
	store.EINTERNAL:    CodeInternal,
}

// errorCodes is every extensions.code a reply of the gateway may carry, with
// where it is decided. The README's table of error codes lists exactly
// these (codes_test.go), so a new code cannot go undocumented.
var errorCodes = map[string]string{
	CodeBadUserInput:         "a store EINVALID error, an argument check, or the request's encoding (edge.go)",
	CodeNotFound:             "a store ENOTFOUND error, or a path under /graphql/",
	CodeConflict:             "a store ECONFLICT error",
	CodeUnavailable:          "a store EUNAVAILABLE error",
	CodeInternal:             "anything without a code (ErrorPresenter), a panic",
	CodeUnauthenticated:      "guardMutations (access.go)",
	CodeForbidden:            "guardMutations (access.go)",
	CodeThrottled:            "the rate limit (ratelimit.go)",
	trusted.CodeNotFound:     "APQ or the trusted documents (package trusted)",
	trusted.CodeRequired:     "-only-trusted-documents (package trusted)",
	trusted.CodeMismatch:     "a trusted document id sent with another query (package trusted)",
	errcode.ParseFailed:      "gqlgen's parser, -max-tokens",
	errcode.ValidationFailed: "gqlgen's validation, strict variables (variables.go), operation choice (transport.go)",
	CodeDepth:                "the cost analysis (cost.go)",
	CodeAliases:              "the cost analysis (cost.go)",
	CodeSelections:           "the cost analysis (cost.go)",
	CodeEntities:             "the cost analysis (cost.go)",
	CodeComplexity:           "the cost analysis (cost.go)",
	CodeBadRequest:           "the POST and GET transports (transport.go)",
	CodeUnsupportedMediaType: "the HTTP edge (edge.go)",
	CodeMethodNotAllowed:     "the HTTP edge (edge.go), a mutation over GET (transport.go)",
	CodeRequestTooLarge:      "the body limit (body.go)",
	CodeRequestTimeout:       "the body read deadline (body.go)",
	CodeTooManyErrors:        "the error-list cap (httperrors.go)",
}
