// Package command is the comments-gateway binary's command line: main
// calls Main, which picks the command and runs it. One file a command,
// named after it: serve.go (package serve does the work), import.go,
// seed.go, create_table.go, rebuild_stats.go, export.go, backup.go and
// compact.go; help.go holds the command list, each command's -h text and
// -version.
//
// A command is a function of its arguments, the environment (getenv),
// stdin, stdout and stderr, and returns an error; Main prints the error
// and turns it into the exit code, so that tests run commands in-process
// with Run. Each command parses its flags with package flagenv (defaults <
// COMMENTS_* environment variables < the command line) and opens the
// table -store names with package storespec, the one place where a
// backend is chosen; the rules are the store's.
//
// Without a command word the binary serves in dev mode; "serve" named
// explicitly is production mode.
package command
