package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/acme/comments-gateway/jsonl"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/bolt"
)

// The export and backup commands, and the admin listener of serve through
// which they reach the file of a running server: bbolt locks its file, so
// while a server has it open no other process can open it, and the copy
// must come from the server's own read transaction.

func cmdExport(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlags("export", stderr)
	spec := fs.String("store", defaultStore, "store: bolt:PATH or dynamodb:TABLE")
	from := fs.String("from", "", "admin URL of a running server (serve -admin-addr) to export from, instead of -store")
	product := fs.String("product", "", "export only this product's comments (newest first)")
	if err := parse(fs, args, getenv); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("export: want one FILE (or - for standard output), got %d arguments", fs.NArg())
	}
	return writeOutput("export", fs.Arg(0), stdout, stderr, func(out io.Writer, bar *jsonl.Bar) (string, error) {
		if *from == "" {
			n, err := exportLocal(ctx, *spec, *product, out, bar)
			return fmt.Sprintf("exported %d comments", n), err
		}
		q := url.Values{}
		if *product != "" {
			q.Set("product", *product)
		}
		n, err := download(ctx, *from+"/export?"+q.Encode(), out, jsonl.Exporting, bar)
		return fmt.Sprintf("exported %.1f MB", float64(n)/1e6), err
	})
}

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

// exportLocal writes the comments of the store spec (of product, or all)
// to out as JSON lines and returns how many.
func exportLocal(ctx context.Context, spec, product string, out io.Writer, bar *jsonl.Bar) (int, error) {
	tbl, err := openTable(ctx, spec)
	if err != nil {
		return 0, heldHint(err)
	}
	defer tbl.Close()
	w := jsonl.NewWriter(out)
	err = writeExport(ctx, store.New(tbl), product, w, bar.Update)
	return w.Progress().Comments, err
}

// writeExport writes the comments of s (of product, or all) to w.
func writeExport(ctx context.Context, s *store.Store, product string, w *jsonl.Writer, progress func(jsonl.Progress)) error {
	err := s.ExportComments(ctx, product, func(c *store.Comment) error {
		if err := w.Write(c); err != nil {
			return err
		}
		if progress != nil && w.Progress().Comments%1024 == 0 {
			progress(w.Progress())
		}
		return nil
	})
	if err != nil {
		return err
	}
	return w.Flush()
}

func cmdBackup(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := newFlags("backup", stderr)
	spec := fs.String("store", defaultStore, "the file to copy: bolt:PATH (not held open by a server)")
	from := fs.String("from", "", "admin URL of a running server (serve -admin-addr) to copy its file from, instead of -store")
	wait := fs.Duration("lock-timeout", bolt.DefaultLockTimeout, "how long to wait for a file that another process holds")
	if err := parse(fs, args, getenv); err != nil {
		return err
	}
	if fs.NArg() != 1 || fs.Arg(0) == "-" {
		return fmt.Errorf("backup: want one output FILE, got %d arguments", fs.NArg())
	}
	var path string
	if *from == "" {
		ss, err := parseStoreSpec(*spec)
		if err != nil {
			return err
		}
		if ss.kind != "bolt" {
			return errors.New("backup: copies a bolt file; for DynamoDB use its point-in-time recovery or on-demand backups (or export)")
		}
		path = ss.arg
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

func (p *progressWriter) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	p.n += int64(n)
	p.lines += bytes.Count(b[:n], []byte{'\n'})
	p.bar.Update(jsonl.Progress{Phase: p.phase, Lines: p.lines, Comments: p.lines, Bytes: p.n, TotalBytes: p.total, TotalComments: -1})
	return n, err
}

// serveAdmin serves the admin endpoints on addr until ctx ends: GET /backup
// (a consistent copy of the bolt file, from a read transaction) and GET
// /export[?product=ID] (the comments as JSON lines). They are not
// authenticated: bind addr to loopback or a private network. It returns
// the address it listens on.
func serveAdmin(ctx context.Context, addr string, tbl store.Table, s *store.Store, log *slog.Logger) (net.Addr, error) {
	if err := checkAdminAddr(addr); err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /backup", func(w http.ResponseWriter, r *http.Request) {
		bt, ok := tbl.(*bolt.Table)
		if !ok {
			http.Error(w, "backup copies the embedded store's file; this server runs on DynamoDB (use its backups, or /export)", http.StatusNotImplemented)
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Disposition", `attachment; filename="comments.db"`)
		n, err := bt.WriteTo(w, func(size int64) { w.Header().Set("Content-Length", strconv.FormatInt(size, 10)) })
		if err != nil {
			log.ErrorContext(r.Context(), "backup failed", "err", err, "bytes", n)
			return
		}
		log.InfoContext(r.Context(), "backup", "bytes", n)
	})
	mux.HandleFunc("GET /export", func(w http.ResponseWriter, r *http.Request) {
		product := r.URL.Query().Get("product")
		if product != "" {
			if err := store.ValidateID("product", product); err != nil {
				http.Error(w, store.ErrorMessage(err), http.StatusBadRequest)
				return
			}
		}
		w.Header().Set("Content-Type", "application/x-ndjson")
		jw := jsonl.NewWriter(w)
		if err := writeExport(r.Context(), s, product, jw, nil); err != nil {
			// The status is sent: cut the body short so that the client
			// sees an error rather than a complete-looking file.
			log.ErrorContext(r.Context(), "export failed", "err", err, "comments", jw.Progress().Comments)
			panic(http.ErrAbortHandler)
		}
	})
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("-admin-addr: %w", err)
	}
	srv := &http.Server{
		Handler: mux, ErrorLog: httpErrorLog(log), ReadHeaderTimeout: 5 * time.Second,
		// The requests' store calls count as the server's: ctx's accountant,
		// not its cancellation.
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	go srv.Serve(ln)
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	return ln.Addr(), nil
}

// checkAdminAddr refuses an admin address that could be reached from the
// internet: /backup and /export are unauthenticated.
func checkAdminAddr(addr string) error {
	return checkPrivateAddr("-admin-addr", addr, "its /backup and /export are unauthenticated", "e.g. 127.0.0.1:9091")
}

// checkPrivateAddr refuses a listen address (of the flag named flag) that
// could be reached from the internet, saying why and what to do instead:
// the host must be a loopback or private address (or localhost), never
// empty (every interface) or public.
func checkPrivateAddr(flag, addr, why, instead string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%s %q: %v", flag, addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && (ip.IsLoopback() || ip.IsPrivate()) {
		return nil
	}
	return fmt.Errorf("%s %q: %s, so it must listen on a loopback or private address (%s), not %q", flag, addr, why, instead, host)
}
