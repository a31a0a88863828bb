// Command generate is the one way to regenerate graph/ and the resolver
// stubs (`go generate ./...` runs it, see the root's generate.go): it runs
// gqlgen through its API with gqlgen.yml, then makes gqlgen's generated
// execution call package gqlexec where gqlgen's own code is slower than it
// needs to be: gqlexec.MarshalSlice instead of
// graphql.MarshalSliceConcurrently, and gqlexec.CommentConnection around
// the generated marshaller of a page of comments. Running gqlgen alone
// would give a build without them; TestGeneratedIsRewritten fails on one.
package main
