package command

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/acme/comments-gateway/jsonl"
	"github.com/acme/comments-gateway/store"
)

// The output of export and backup: a file written whole or not at all (or
// standard output), the progress bar on stderr, the download from a
// running server's admin listener.

// writeOutput runs fn, which writes to out, the file name ("-": stdout),
// with a progress bar on stderr; the file appears complete or not at all.
// It ends with the summary fn returns and the time taken.
func writeOutput(cmd, name string, stdout, stderr io.Writer, fn func(out io.Writer, bar *jsonl.Bar) (string, error)) error {
	start := time.Now()
	out, commit, err := createOutput(name, stdout)
	if err != nil {
		return fmt.Errorf("%s: %w", cmd, err)
	}
	defer commit(false)
	bar := jsonl.NewBar(stderr)
	summary, err := fn(out, bar)
	bar.Clear()
	if err == nil {
		err = commit(true)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", cmd, err)
	}
	fmt.Fprintf(stderr, "%s in %s\n", summary, time.Since(start).Round(time.Millisecond))
	return nil
}

// heldHint adds to the error of opening a bolt file that another process
// holds how to reach that file through the server.
func heldHint(err error) error {
	if store.ErrorCode(err) == store.EUNAVAILABLE {
		return fmt.Errorf("%w (if a server has it open, pass -from http://ADMIN_ADDR, the server's -admin-addr)", err)
	}
	return err
}

// createOutput opens name for writing ("-": stdout). A file is written
// under a temporary name in the same directory; commit(true) syncs it and
// renames it into place, commit(false) (after a failure) removes it.
func createOutput(name string, stdout io.Writer) (io.Writer, func(ok bool) error, error) {
	if name == "-" {
		return stdout, func(bool) error { return nil }, nil
	}
	f, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".*.tmp")
	if err != nil {
		return nil, nil, err
	}
	done := false
	return f, func(ok bool) error {
		if done {
			return nil
		}
		done = true
		if !ok {
			f.Close()
			os.Remove(f.Name())
			return nil
		}
		err := f.Sync()
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(f.Name(), name)
		}
		if err != nil {
			os.Remove(f.Name())
		}
		return err
	}, nil
}

// download copies the body of a GET of u to out, showing progress in
// phase, and returns the bytes copied.
func download(ctx context.Context, u string, out io.Writer, phase jsonl.Phase, bar *jsonl.Bar) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		return 0, fmt.Errorf("GET %s: %s: %s", u, resp.Status, msg)
	}
	pw := &progressWriter{w: out, bar: bar, phase: phase, total: resp.ContentLength}
	n, err := io.Copy(pw, resp.Body)
	if err == nil && resp.ContentLength >= 0 && n != resp.ContentLength {
		err = fmt.Errorf("GET %s: got %d of %d bytes", u, n, resp.ContentLength)
	}
	return n, err
}

// progressWriter shows on a Bar the bytes (and lines) written through it,
// of total (-1: unknown).
type progressWriter struct {
	w     io.Writer
	bar   *jsonl.Bar
	phase jsonl.Phase
	n     int64
	lines int
	total int64
}

// Write writes b to the output and updates the bar.
func (p *progressWriter) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	p.n += int64(n)
	p.lines += bytes.Count(b[:n], []byte{'\n'})
	p.bar.Update(jsonl.Progress{Phase: p.phase, Lines: p.lines, Comments: p.lines, Bytes: p.n, TotalBytes: p.total, TotalComments: -1})
	return n, err
}
