// Command comments-gateway serves the product comments GraphQL API and runs
// its maintenance commands. Run `go run . help` for the list.
//
// This package is wiring, and owns no rule of its own. main calls run under
// signal.NotifyContext; run picks the command — serve (the default), import,
// seed, create-table, rebuild-stats — and each command parses its flags
// (defaults < COMMENTS_* environment variables < the command line), opens
// the table that -store names (bolt:PATH or dynamodb:TABLE: the one place
// where a backend is chosen), and calls the store.
//
// serve is three steps: parseServeConfig (config.go) reads every flag and
// variable once into a serveConfig and validates it; newApp (app.go) opens
// the table, wraps it in the metrics decorator, builds the store.Store and
// the GraphQL handler (package resolvers); routes (routes.go) mounts
// /graphql, GraphiQL and /demo (package web), /healthz, /readyz and /metrics,
// which serve (server.go) runs behind the request logger (package obs); on
// SIGINT or SIGTERM it stops accepting and lets in-flight requests finish. Without a command word it runs in dev mode
// (mutations open with a warning, introspection and GraphiQL on, text
// logs); `serve` named explicitly is production mode, which refuses to start
// with open mutations unless told so.
//
// The design the code follows is docs/design.md; the README documents every
// behaviour a user sees, and its Layout section lists every package.
package main
