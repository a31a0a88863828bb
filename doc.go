// Command comments-gateway serves the product comments GraphQL API and runs
// its maintenance commands. Run `go run . help` for the list.
//
// This package is main only (server.go): it calls command.Main under
// signal.NotifyContext and exits with its code. The command line is package
// internal/command, one file a command — serve (the default), import,
// seed, create-table, rebuild-stats, export, backup, compact; each parses
// its flags with internal/flagenv (defaults < COMMENTS_* environment
// variables < the command line) and opens the table -store names with
// internal/storespec (bolt:PATH or dynamodb:TABLE: the one place where a
// backend is chosen).
// serve's wiring — its configuration, the app built from it, its routes,
// graceful shutdown on SIGINT or SIGTERM — is internal/serve, whose
// package comment walks through it. Without a command word the gateway
// runs in dev mode (mutations open with a warning, introspection and
// GraphiQL on, text logs); `serve` named explicitly is production mode,
// which refuses to start with open mutations unless told so.
//
// generate.go holds the go:generate steps (gqlgen, then the rewrite of
// internal/gqlexec, then schema/). The design the code follows is
// docs/design.md; the README and the documents under docs/ it links
// document every behaviour a user sees, and each package's doc.go says
// what it owns.
package main
