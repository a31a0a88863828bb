// Package e2e holds the end-to-end tests of the gateway binary; it has no
// code of its own.
//
// The tests build the binary from the module's root once per test process
// (`go build -race` for every suite, and a plain `go build` for the budget
// suite, which measures CPU and memory as deployed) and drive it as a real
// process: `import`, `seed`, `rebuild-stats`, `export` and `backup` run to
// completion; `serve` listens on 127.0.0.1:0 and is stopped by its pid
// (SIGTERM, or SIGKILL in the crash tests). Every answer is checked against
// a recount done in the test, never against the gateway's own code.
//
// The suites: e2e_test.go (the whole API on bolt and on DynamoDB Local),
// hostile_*_test.go (malformed, oversized and expensive requests), crash_test.go
// (kill -9 during writes), export_test.go, httpcache_test.go,
// metrics_listener_test.go, serve_test.go (serve's modes, access control and
// refusals), cli_test.go (help, version and argument errors) and
// readme_test.go (the flag table of docs/operations.md and the curl
// examples of README.md and docs/).
package e2e
