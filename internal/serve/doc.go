// Package serve is the serve command's wiring: it reads serve's flags,
// builds the server they describe and runs it. It owns no rule of its own;
// the rules are in the packages it assembles.
//
// Serving is three steps. ParseConfig (config.go) reads every flag and its
// COMMENTS_* variable once into a Config and validates it, so that a bad
// value stops the command before anything starts; the flags of access
// control, client addresses and subscriptions are in access.go,
// clientaddr.go and live.go. newApp (app.go) builds an app from the
// Config: the logger, the credentials, the trusted documents (trusted.go),
// tracing, the metrics registry, the table -store names (package
// storespec) wrapped for the metrics and upgraded or refused when an older
// gateway wrote it (upgrade.go), subscriptions, the admin listener
// (admin.go) and the GraphQL handler's configuration. routes (routes.go)
// mounts /graphql (resolvers.NewHandler, whose one chain holds every layer
// of the endpoint), GraphiQL and /demo (package web), /healthz,
// /readyz and, in dev mode, /metrics; Run (server.go) serves them behind
// the request logger (package obs) with /metrics on its own listener
// (metrics.go), until its context ends, then shuts down gracefully:
// in-flight requests finish, live connections close.
//
// What is started is released in reverse order by app.close: a failed
// start releases what it had started. The process-wide tuning of the
// garbage collector (TuneGC, gc.go) and of heap profiling (profile.go)
// is serve's alone; the other commands leave them as Go sets them.
package serve
