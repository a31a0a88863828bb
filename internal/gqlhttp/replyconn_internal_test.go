package gqlhttp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
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

// TestReplyInOneWrite: over a ReplyListener a reply leaves in one write
// call whatever its size up to maxHeld (without it, net/http sends what
// passes its 4 KB buffer in two: 6 KB, a typical page, as well as 9 KB),
// on one kept-alive connection, the bytes unchanged; a file is still sent
// whole, and a stream's flushed parts still leave as they are flushed.
func TestReplyInOneWrite(t *testing.T) {
	sizes := []int{1 << 10, 6 << 10, 9 << 10, 40 << 10} // of the reply's data
	without := []int64{1, 2, 2, 2}                      // write calls without a ReplyListener
	file := filepath.Join(t.TempDir(), "f.txt")
	if err := os.WriteFile(file, bytes.Repeat([]byte("file "), 20_000), 0o600); err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/reply", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		writeResponse(r.Context(), w, &graphql.Response{Data: pageOf(n)})
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
		for i, n := range sizes {
			want, _ := json.Marshal(map[string]json.RawMessage{"data": pageOf(n)})
			before := writes.Load()
			for range 3 {
				resp, err := client.Get(fmt.Sprintf("%s/reply?n=%d", url, n))
				if err != nil {
					t.Fatal(err)
				}
				got, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if !bytes.Equal(got, want) {
					t.Fatalf("%d-byte data: reply %d bytes, want %d", n, len(got), len(want))
				}
			}
			perReply := without[i]
			if reply {
				perReply = 1
			}
			if got := writes.Load() - before; got != 3*perReply {
				t.Errorf("reply listener %v, %d-byte data: %d write calls for 3 replies, want %d", reply, n, got, 3*perReply)
			}
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

// pageOf is a reply's data of n bytes.
func pageOf(n int) json.RawMessage {
	data, _ := json.Marshal(map[string]string{"page": strings.Repeat("c", n-len(`{"page":""}`))})
	return data
}

// TestReplyWriteError: a held reply that fails to leave fails every later
// write of the connection, so that net/http closes it.
func TestReplyWriteError(t *testing.T) {
	a, b := net.Pipe()
	b.Close()
	c := newReplyConn(a)
	c.hold()
	if n, err := c.Write([]byte("hello")); n != 5 || err != nil {
		t.Fatalf("held write: %d, %v", n, err)
	}
	c.release()
	if _, err := c.Write([]byte("x")); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("write after a failed release: %v, want %v", err, io.ErrClosedPipe)
	}
}

// BenchmarkReplyWrite serves a reply of 6 KB (a page of short comments)
// and one of 9 KB over loopback, kept alive, to one client in the same
// process, with and without a ReplyListener: cpu-ns/op is the process's
// CPU (server and client) a reply.
//
//	go test -run '^$' -bench ReplyWrite -count 5 ./internal/gqlhttp/
func BenchmarkReplyWrite(b *testing.B) {
	for _, size := range []int{6 << 10, 9 << 10} {
		data := pageOf(size)
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			writeResponse(r.Context(), w, &graphql.Response{Data: data})
		})
		for _, reply := range []bool{false, true} {
			name := fmt.Sprintf("%dKB/%s", size>>10, map[bool]string{false: "net-http", true: "reply-listener"}[reply])
			b.Run(name, func(b *testing.B) {
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
}

// flushCounter counts the flushes it is asked for.
type flushCounter struct {
	http.ResponseWriter
	flushes int
}

func (w *flushCounter) Flush() { w.flushes++ }

// encodingWriter stands for a compressor outside the edge: it marks the
// reply as encoded on its first write.
type encodingWriter struct{ *flushCounter }

func (w encodingWriter) Write(p []byte) (int, error) {
	w.Header().Set("Content-Encoding", "gzip")
	return w.ResponseWriter.Write(p)
}

// TestWriteWholeLeavesEncodedBodiesToTheEncoder: a body being encoded is
// not flushed (the compressor writes it when the handler returns; a flush
// would end its block early); a plain one is, into the held bytes; one
// whose length is not declared is not (a flush would make it chunked).
func TestWriteWholeLeavesEncodedBodiesToTheEncoder(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	go func() { _, _ = io.Copy(io.Discard, b) }()
	ctx := context.WithValue(context.Background(), replyConnKey{}, newReplyConn(a))
	declared := func() *flushCounter {
		w := &flushCounter{ResponseWriter: httptest.NewRecorder()}
		w.Header().Set("Content-Length", "4")
		return w
	}
	encoded := encodingWriter{declared()}
	writeWhole(ctx, encoded, []byte("page"))
	plain := declared()
	writeWhole(ctx, plain, []byte("page"))
	undeclared := &flushCounter{ResponseWriter: httptest.NewRecorder()}
	writeWhole(ctx, undeclared, []byte("page"))
	if encoded.flushes != 0 || plain.flushes != 1 || undeclared.flushes != 0 {
		t.Errorf("flushes: encoded %d, want 0; plain %d, want 1; undeclared %d, want 0", encoded.flushes, plain.flushes, undeclared.flushes)
	}
}
