// Package gqlexec holds what gqlgen's generated execution calls instead of
// some of gqlgen's own code. graph/generated.go calls MarshalSlice where
// gqlgen writes graphql.MarshalSliceConcurrently, and CommentConnection
// around the generated marshaller of a page of comments (a one-pass writer
// for pages whose selection reads only struct fields): `go generate`
// rewrites the calls (internal/gqlexec/generate, the one way to
// regenerate).
//
// The one pass skips gqlgen's field middleware, so it turns itself off in
// an operation that has any: its ResolverMiddleware is then other code than
// gqlgen's pass-through (middleware.go). With tracing on, whose extension
// intercepts fields, pages take the generated marshalling.
//
// PageQuery wraps the executable schema and runs the most common
// operation, a query of one product's page of comments
// (`product(id) { comments(…) { … } }`, the product's __typename and id
// at most beside it, as client libraries add them), without the
// generated code above the page: it resolves the two fields through
// gqlgen's graphql.ResolveField, as the generated code does, and writes
// the two objects around the one-pass page itself (page.go). Any other
// operation runs the generated code.
//
// Upstream (gqlgen's tracker, read for v0.17.95): no hook can replace the
// rewrite yet. A per-type @concurrent directive (#3202, PR #3203) shipped in
// v0.17.50 and was reverted (#3287) because it broke dataloaders (#3285);
// the maintainers asked for an opt-in @sequential instead, which nobody has
// written. The open @disableConcurrency proposal (#4321, PR #4322) resolves
// a field inline at codegen time but leaves list elements on
// MarshalSliceConcurrently, and a per-request worker_limit (#4269) still
// starts a goroutine per element. A custom exec template (PR #3375) was
// closed. Nothing proposes a per-object marshaller hook that
// CommentConnection could plug into.
package gqlexec
