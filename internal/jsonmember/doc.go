// Package jsonmember is the one rule by which a GraphQL-over-HTTP request
// body's member names are matched: regardless of case, as encoding/json
// matches a member to a struct field (gqlgen's transports and the
// gateway's decode the body so), so that every reader of a body — the
// trusted documents' check, the GraphQL transport — reads the same
// member. The body is read once (Parse, into an Object of raw member
// values) and its readers share that reading through the request's
// context (NewContext). A body with two names that fold together ("query"
// and "Query") is ambiguous and is refused before anything reads it
// (Object.Duplicate).
package jsonmember
