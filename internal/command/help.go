package command

import (
	"flag"
	"fmt"
	"io"
	"maps"
	"runtime/debug"
	"slices"

	"github.com/vektah/gqlparser/v2/validator/core"

	"github.com/acme/comments-gateway/internal/flagenv"
	"github.com/acme/comments-gateway/internal/serve"
)

// This file is the command line's help: the command list (gw -h, gw help),
// each command's description above its flags (gw COMMAND -h), the build's
// version (gw -version).

const usage = `comments-gateway: the product comments GraphQL gateway.

Usage:
  comments-gateway [flags]                  serve GraphQL in dev mode (-dev=true)
  comments-gateway serve [flags]            serve GraphQL in production mode
  comments-gateway import [flags] FILE|-    bulk-load comments from JSON lines
  comments-gateway seed [flags]             load synthetic comments
  comments-gateway create-table -store dynamodb:TABLE
                                            create the DynamoDB table and its GSIs
  comments-gateway rebuild-stats [flags]    recount every product's stats
  comments-gateway export [flags] FILE|-    write the comments as JSON lines
  comments-gateway backup [flags] FILE      copy the bolt file, also while served
  comments-gateway compact [flags]          rewrite the bolt file with full pages
  comments-gateway help [COMMAND]           this list, or a command's flags
  comments-gateway -version                 the build's version

Run "comments-gateway COMMAND -h" for a command's flags. Every flag can also
be set by an environment variable: -store is COMMENTS_STORE, -addr is
COMMENTS_ADDR, -rand-seed is COMMENTS_RAND_SEED, and so on; a flag on the
command line wins over the variable.
`

// commandHelp is what COMMAND -h prints above the command's flags.
var commandHelp = map[string]string{
	"serve": serve.Help,
	"import": `Usage: comments-gateway import [flags] FILE|-

Bulk-loads comments from FILE, or from standard input with "-": JSON lines,
one comment object a line, e.g.

  {"id":"01J9Z3Q8YV5T2K7M4N6P8R0S2T","productId":"espresso-machine","language":"de","rating":5,
   "author":"Jonas","title":"Top","body":"Macht hervorragenden Espresso.","createdAt":"2025-06-01T09:30:00Z"}

Fields (all required but id and authorId):
  id         1-64 of [A-Za-z0-9_-]; omitted: a ULID made from createdAt
  productId  1-64 of [A-Za-z0-9_-]
  language   a BCP 47 tag ("en", "pt-BR"), stored canonical ("EN-gb" -> "en-GB")
  rating     an integer from 1 to 5
  author     1-100 characters     title  1-200 characters     body  1-10,000 characters
  createdAt  an RFC 3339 time with a zone ("2025-06-01T09:30:00Z")
  authorId   the comment's owner (a JWT subject), 1-1,024 characters; omitted: no owner

The whole input is checked before anything is written: the first 10 bad
lines are reported with their numbers and reasons, then how many there are,
and nothing is loaded (a bolt file the import created is removed). Then the
stats are written: counted during the load into a bolt file that held nothing
(whose writes are synced once, at the end), else recounted. Flags:
`,
	"seed": `Usage: comments-gateway seed [flags]

Loads synthetic comments (the demo data generator), then recounts the stats.
Flags:
`,
	"create-table": `Usage: comments-gateway create-table -store dynamodb:TABLE

Creates the DynamoDB table, its four GSIs and (unless -stream=false) its
stream, and waits until it is ACTIVE. Running it again is safe: an existing
table is checked (keys and indexes) and kept, with its data; an index it
lacks is added, and one whose projection lacks attributes a page shows is
rebuilt (deleted and created again, one at a time: the reads it serves fail
until it is ACTIVE again); its stream is turned on if it has none and
-stream is true (-stream=false never removes one). Flags:
`,
	"rebuild-stats": `Usage: comments-gateway rebuild-stats [flags]

Recounts every product's stats from its comments (a parallel scan). Flags:
`,
	"export": `Usage: comments-gateway export [flags] FILE|-

Writes the comments (of the whole store, or of one -product) to FILE, or to
standard output with "-", as JSON lines that import reads back identically.
With -from it asks a running server's admin listener (serve -admin-addr),
so it works while the server holds the bolt file. Flags:
`,
	"backup": `Usage: comments-gateway backup [flags] FILE

Writes a consistent copy of a bolt store to FILE: from the file itself
(-store bolt:PATH, when no server holds it), or with -from from a running
server's admin listener (serve -admin-addr). Flags:
`,
	"compact": `Usage: comments-gateway compact [flags]

Rewrites a bolt store (-store bolt:PATH) with every page full: a copy in
key order, synced, renamed over the file. For a file that grew by writes
(import leaves its file compact). No server may hold the file. Flags:
`,
}

// helpCommand answers "help", "-h", "help COMMAND" and "-version" before
// any command runs; handled reports whether args were such a request.
func helpCommand(args []string, stdout, stderr io.Writer, runCmd func([]string) error) (handled bool, err error) {
	if len(args) == 0 {
		return false, nil
	}
	switch args[0] {
	case "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return true, nil
	case "help":
		if len(args) > 1 {
			return true, runCmd([]string{args[1], "-h"})
		}
		fmt.Fprint(stdout, usage)
		return true, nil
	case "-version", "--version", "version":
		fmt.Fprintln(stdout, version())
		return true, nil
	}
	return false, nil
}

// newFlags returns the flag set of the command name: its -h prints the
// command's description (commandHelp) above its flags, and flagenv.Parse
// gives each flag its COMMENTS_<FLAG> environment variable.
func newFlags(name string, stderr io.Writer) *flag.FlagSet {
	return flagenv.New(name, commandHelp[name], stderr)
}

// unknownCommand is the error of an unknown command word: the nearest
// command, and a hint at -h instead of the whole usage.
func unknownCommand(cmd string) error {
	names := slices.Sorted(maps.Keys(commandHelp))
	err := fmt.Errorf("unknown command %q", cmd)
	if s := core.SuggestionList(cmd, names); len(s) > 0 {
		err = fmt.Errorf("%w; did you mean %s?", err, s[0])
	}
	return flagenv.WithHint(err, `Run "comments-gateway -h" for the commands.`)
}

// version describes the build, from the information the Go toolchain
// stamps into the binary: the module version, the VCS revision and time
// (and "modified" for a dirty tree), and the Go version.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "comments-gateway (no build information)"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, at, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = ", modified"
			}
		}
	}
	out := "comments-gateway " + v + " (" + bi.GoVersion
	if rev != "" {
		out += ", revision " + rev
		if at != "" {
			out += " of " + at
		}
		out += modified
	}
	return out + ")"
}
