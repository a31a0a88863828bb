package gqlhttp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql"
)

// countingListener counts the write calls its connections make.
type countingListener struct {
	net.Listener
	writes *atomic.Int64
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return countingConn{c, l.writes}, nil
}

type countingConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c countingConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

// serveCounting serves h on 127.0.0.1 through a ReplyListener (with its
// ConnContext when reply) over a counting listener, until the test ends.
func serveCounting(t testing.TB, h http.Handler, reply bool) (url string, writes *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	writes = new(atomic.Int64)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	var l net.Listener = countingListener{ln, writes}
	if reply {
		l, srv.ConnContext = ReplyListener(l), ReplyConnContext
	}
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(l) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-done
	})
	return "http://" + ln.Addr().String(), writes
}

// TestReplyInOneWrite: over a ReplyListener a 9 KB reply leaves in one
// write call (two without it: net/http's 4 KB buffer), on one kept-alive
// connection, the bytes unchanged; a file is still sent whole, and a
// stream's flushed parts still leave as they are flushed.
func TestReplyInOneWrite(t *testing.T) {
	data, _ := json.Marshal(map[string]string{"page": strings.Repeat("comment ", 1150)})
	want, _ := json.Marshal(map[string]json.RawMessage{"data": data})
	file := filepath.Join(t.TempDir(), "f.txt")
	if err := os.WriteFile(file, bytes.Repeat([]byte("file "), 20_000), 0o600); err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/reply", func(w http.ResponseWriter, r *http.Request) {
		writeResponse(r.Context(), w, &graphql.Response{Data: data})
	})
	mux.HandleFunc("/file", func(w http.ResponseWriter, r *http.Request) { http.ServeFile(w, r, file) })
	mux.HandleFunc("/stream", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "first\n")
		http.NewResponseController(w).Flush()
		<-r.Context().Done() // the client read the first part, then left
	})
	for _, reply := range []bool{false, true} {
		url, writes := serveCounting(t, mux, reply)
		client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 1}, Timeout: 10 * time.Second}
		for range 3 {
			resp, err := client.Get(url + "/reply")
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !bytes.Equal(got, want) {
				t.Fatalf("reply %d bytes, want %d", len(got), len(want))
			}
		}
		if n, perReply := writes.Load(), map[bool]int64{false: 2, true: 1}[reply]; n != 3*perReply {
			t.Errorf("reply listener %v: %d write calls for 3 replies, want %d", reply, n, 3*perReply)
		}
		resp, err := client.Get(url + "/file")
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if len(got) != 100_000 {
			t.Errorf("file: %d bytes, want 100000", len(got))
		}
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url+"/stream", nil)
		resp, err = client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		line, err := bufio.NewReader(resp.Body).ReadString('\n')
		if line != "first\n" || err != nil {
			t.Errorf("stream: %q, %v", line, err)
		}
		cancel()
		resp.Body.Close()
	}
}

// TestReplyWriteError: a held reply that fails to leave fails every later
// write of the connection, so that net/http closes it.
func TestReplyWriteError(t *testing.T) {
	a, b := net.Pipe()
	b.Close()
	c := newReplyConn(a)
	ctx := context.WithValue(context.Background(), replyConnKey{}, c)
	release := holdWrites(ctx, 5)
	if n, err := c.Write([]byte("hello")); n != 5 || err != nil {
		t.Fatalf("held write: %d, %v", n, err)
	}
	release()
	if _, err := c.Write([]byte("x")); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("write after a failed release: %v, want %v", err, io.ErrClosedPipe)
	}
}

// BenchmarkReplyWrite serves a 9 KB reply over loopback, kept alive, to
// one client in the same process, with and without a ReplyListener:
// cpu-ns/op is the process's CPU (server and client) a reply.
//
//	go test -run '^$' -bench ReplyWrite -count 5 ./internal/gqlhttp/
func BenchmarkReplyWrite(b *testing.B) {
	data, _ := json.Marshal(map[string]string{"page": strings.Repeat("comment ", 1150)})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeResponse(r.Context(), w, &graphql.Response{Data: data})
	})
	for _, reply := range []bool{false, true} {
		b.Run(map[bool]string{false: "net-http", true: "reply-listener"}[reply], func(b *testing.B) {
			url, writes := serveCounting(b, h, reply)
			client := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 1}}
			var ru0, ru1 syscall.Rusage
			_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
			writes.Store(0)
			for b.Loop() {
				resp, err := client.Get(url)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
			cpu := ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano()
			b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(writes.Load())/float64(b.N), "writes/op")
		})
	}
}
