package command

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// Main runs the command args name (serve without a command word) and
// returns the process's exit code: 0, or 1 after printing the error on
// stderr. ctx ends the command (serve shuts down gracefully); getenv reads
// the COMMENTS_* variables.
func Main(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	err := Run(ctx, args, getenv, stdin, stdout, stderr)
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(stderr, "error:", err)
		return 1
	}
	return 0
}

// Run is the whole program but the exit code: it answers help and
// -version, else picks the command (serve, the default, or the first
// argument) and runs it with the rest of args.
func Run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	runCmd := func(args []string) error { return Run(ctx, args, getenv, stdin, stdout, stderr) }
	if handled, err := helpCommand(args, stdout, stderr, runCmd); handled {
		return err
	}
	cmd, named := "serve", false
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args, named = args[0], args[1:], true
	}
	switch cmd {
	case "serve":
		// Without a command word (`go run .`) the gateway runs in dev mode;
		// `serve` named explicitly defaults to production mode.
		return cmdServe(ctx, args, !named, getenv, stdout, stderr)
	case "import":
		return cmdImport(ctx, args, getenv, stdin, stdout, stderr)
	case "seed":
		return cmdSeed(ctx, args, getenv, stdout, stderr)
	case "create-table":
		return cmdCreateTable(ctx, args, getenv, stdout, stderr)
	case "rebuild-stats":
		return cmdRebuildStats(ctx, args, getenv, stdout, stderr)
	case "export":
		return cmdExport(ctx, args, getenv, stdout, stderr)
	case "backup":
		return cmdBackup(ctx, args, getenv, stdout, stderr)
	case "compact":
		return cmdCompact(args, getenv, stderr)
	default:
		return unknownCommand(cmd)
	}
}
