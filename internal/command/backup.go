package command

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/acme/comments-gateway/internal/flagenv"
	"github.com/acme/comments-gateway/internal/storespec"
	"github.com/acme/comments-gateway/jsonl"
	"github.com/acme/comments-gateway/store/bolt"
)

// cmdBackup is the backup command: a consistent copy of a bolt file, read
// from the file itself or, with -from, from a running server's admin
// listener.
func cmdBackup(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlags("backup", stderr)
	spec := fs.String("store", storespec.Default, "the file to copy: bolt:PATH (not held open by a server)")
	from := fs.String("from", "", "admin URL of a running server (serve -admin-addr) to copy its file from, instead of -store")
	wait := fs.Duration("lock-timeout", bolt.DefaultLockTimeout, "how long to wait for a file that another process holds")
	if err := flagenv.Parse(fs, args, getenv); err != nil {
		return err
	}
	if fs.NArg() != 1 || fs.Arg(0) == "-" {
		return fmt.Errorf("backup: want one output FILE, got %d arguments", fs.NArg())
	}
	var path string
	if *from == "" {
		ss, err := storespec.Parse(*spec)
		if err != nil {
			return err
		}
		if ss.Kind != storespec.Bolt {
			return errors.New("backup: copies a bolt file; for DynamoDB use its point-in-time recovery or on-demand backups (or export)")
		}
		path = ss.Arg
	}
	return writeOutput("backup", fs.Arg(0), stdout, stderr, func(out io.Writer, bar *jsonl.Bar) (string, error) {
		var n int64
		var err error
		if *from != "" {
			n, err = download(ctx, *from+"/backup", out, jsonl.Copying, bar)
		} else {
			pw := &progressWriter{w: out, bar: bar, phase: jsonl.Copying, total: -1}
			n, err = bolt.BackupFile(path, pw, *wait, func(size int64) { pw.total = size })
			err = heldHint(err)
		}
		return fmt.Sprintf("backed up %.1f MB to %s", float64(n)/1e6, fs.Arg(0)), err
	})
}
