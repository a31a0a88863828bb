package serve

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/acme/comments-gateway/jsonl"
	"github.com/acme/comments-gateway/store"
	"github.com/acme/comments-gateway/store/bolt"
	"github.com/acme/comments-gateway/store/table"
)

// The admin listener (-admin-addr): GET /backup and GET /export, through
// which the backup and export commands reach the file of a running server.
// bbolt locks its file, so while a server has it open no other process can
// open it, and the copy must come from the server's own read transaction.

// WriteExport writes the comments of s (of product, or all) to w.
func WriteExport(ctx context.Context, s *store.Store, product string, w *jsonl.Writer, progress func(jsonl.Progress)) error {
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

// serveAdmin serves the admin endpoints on addr until ctx ends: GET /backup
// (a consistent copy of the bolt file, from a read transaction) and GET
// /export[?product=ID] (the comments as JSON lines). They are not
// authenticated: bind addr to loopback or a private network. It returns
// the address it listens on.
func serveAdmin(ctx context.Context, addr string, tbl table.Table, s *store.Store, log *slog.Logger) (net.Addr, error) {
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
		if err := WriteExport(r.Context(), s, product, jw, nil); err != nil {
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
