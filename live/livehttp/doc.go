// Package livehttp serves GraphQL subscriptions, and queries and mutations
// on the same connections, over websocket (graphql-transport-ws and the
// legacy graphql-ws) and SSE (graphql-sse), from the events of a live.Hub.
//
// # Connections
//
// A Live is the registry of one handler's live connections: made with New
// from a Config (its limits; a nil Hub turns subscriptions off), put in
// the handler's chain with Middleware (which registers each websocket or
// SSE request as a connection, counted against its client's cap), and
// given gqlgen's server with Install, which adds the transports and the
// operation middleware. Shutdown closes every connection so that clients
// reconnect, and waits for them to go.
//
// A websocket's messages pass a protocol guard (proto.go) before gqlgen
// reads them: malformed or out-of-order messages close the socket with
// the protocol's codes, and a client whose rate budget is spent is
// refused before its subscribe is read. Each write is bounded by
// Config.WriteTimeout (a websocket's by a socket deadline at most 1.25
// times that away), so a client that stops reading costs a goroutine for
// that long at most. A websocket's writes are sent by the writer that
// finds it idle, and the frames a subscriber finds queued leave in one
// system call (batch.go).
//
// # Subscriptions
//
// A subscription resolver validates its arguments and calls Subscribe. The
// subscribers of the same data (the same canonical selection, whatever
// their names and aliases: shape.go) form one group with one hub
// subscription; each event is executed once for the group and its reply
// written to every member, re-keyed to each member's shape and encoded
// once (fanout.go, frame.go). A slow member is ended with SLOW_CONSUMER
// and holds no one up. A client's subscriptions together cost at most
// Config.SubscriptionBudget complexity points, and each event costs the
// client its subscription's complexity from the rate limit (budget.go).
//
// # What the gateway gives it
//
// The package knows connections, operations and events, not the gateway's
// policy: the credential check, the naming of clients, the complexity the
// cost analysis measured, the dataloaders each event's execution gets
// afresh and the rate limit come in one Deps value (deps.go), which
// package resolvers builds in NewHandler. It imports live and store (for
// events and their filters) and auth, never resolvers or graph
// (TestDependencyDirection).
//
// docs/live.md explains the design and its costs.
package livehttp
