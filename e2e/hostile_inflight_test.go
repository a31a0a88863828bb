package e2e

// Slow readers in the hostile suite (issue 23): a client that asks for
// heavy replies and does not read them holds each reply in the server's
// memory until it is written; the cap on its requests in flight
// (-max-inflight-client) must bound what it holds.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The slow readers' attack and its budget. A reply must be larger than
// what the kernel's socket buffers take (up to net.ipv4.tcp_wmem's 4 MB
// on the server's side), else it is handed over whole and its slot freed
// at once. Each reply held costs the server about 20-25 MB of peak RSS
// (its data, the body built from it, the request's loaded comments, and
// the collector's headroom); without the cap, 150 such readers grew it by
// 3.3 GB (115 were served, 35 timed out), with it by 0.7-0.8 GB.
const (
	slowReaders     = 150
	slowReadersCap  = 32      // -max-inflight-client's default
	slowReadersRSS  = 1 << 30 // the server's peak RSS growth
	slowReaderBuf   = 4096    // each reader's socket receive buffer
	slowReplyAlias  = 6       // pages of 100 comments in one reply
	slowCommentBody = 10000   // bytes: a reply is about 6 MB
)

// slowQuery reads the hot product's 100 comments slowReplyAlias times
// over: a reply far larger than the sockets' buffers.
func slowQuery() []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "query Slow { product(id: %q) {", liveHot)
	for i := range slowReplyAlias {
		fmt.Fprintf(&b, " p%d: comments(first: 100) { nodes { id title body author } }", i)
	}
	b.WriteString(" } }")
	return gql(b.String(), nil)
}

// TestBudgetSlowReadersAreCapped: one client sends 150 requests for a
// 2.5 MB reply at once, each on its own connection with a 4 KB receive
// buffer, and reads no reply past its headers. The first 32 (the
// default -max-inflight-client) are served and keep their slots while
// their replies wait to be written; the other 118 get 429
// IN_FLIGHT_LIMIT_EXCEEDED at once. The server's peak RSS grows by at
// most slowReadersRSS. Meanwhile another client's query is answered;
// once the readers hang up, the client's slots are free again.
func TestBudgetSlowReadersAreCapped(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the binary")
	}
	s := MustStartBudgetServer(t, "-store", "bolt:budget-inflight.db")
	body := strings.Repeat("x", slowCommentBody)
	for i := range 100 {
		mustCreateComment(t, s, liveHot, fmt.Sprintf("seed %d", i), body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	query := slowQuery()
	pid := s.cmd.Process.Pid
	cpu0, rss0 := mustProcUsage(t, pid)

	var wg sync.WaitGroup
	readers := make([]slowReader, slowReaders)
	for i := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			readers[i] = sendSlowReader(ctx, s.URL, query)
		}()
	}
	wg.Wait()
	defer func() {
		for _, r := range readers {
			if r.conn != nil {
				r.conn.Close()
			}
		}
	}()
	cpu1, rss1 := mustProcUsage(t, pid)
	served, refused := 0, 0
	for i, r := range readers {
		switch {
		case r.err != nil:
			t.Errorf("reader %d: %v", i, r.err)
		case r.status == http.StatusOK:
			served++
		case r.status == http.StatusTooManyRequests && r.code == "IN_FLIGHT_LIMIT_EXCEEDED" && r.retryAfter != "":
			refused++
		default:
			t.Errorf("reader %d: HTTP %d, code %q, Retry-After %q", i, r.status, r.code, r.retryAfter)
		}
	}
	t.Logf("%d slow readers: %d served, %d refused; %s CPU, peak RSS +%d MiB", slowReaders, served, refused, cpu1-cpu0, (rss1-rss0)>>20)
	if served != slowReadersCap || refused != slowReaders-slowReadersCap {
		t.Errorf("%d served and %d refused; want %d and %d", served, refused, slowReadersCap, slowReaders-slowReadersCap)
	}
	if rss := rss1 - rss0; rss > slowReadersRSS {
		t.Errorf("the slow readers grew the server's peak RSS by %d MiB; the budget is %d MiB", rss>>20, slowReadersRSS>>20)
	}
	if _, err := otherClient(t, s).query(ctx); err != nil {
		t.Errorf("another client, while the slow readers hold their slots: %v", err)
	}

	for i := range readers {
		if readers[i].conn != nil {
			readers[i].conn.Close()
			readers[i].conn = nil
		}
	}
	// The handlers see the hang-ups on their next write: poll briefly.
	var last slowReader
	for range 50 {
		if last = sendSlowReader(ctx, s.URL, gql(`{ __typename }`, nil)); last.conn != nil {
			last.conn.Close()
		}
		if last.err == nil && last.status == http.StatusOK {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("after the slow readers hung up: HTTP %d, code %q, %v", last.status, last.code, last.err)
}

// slowReader is one request of the attack: its answer's status, and for
// a refusal its code and Retry-After; conn is open, its reply unread past
// the headers.
type slowReader struct {
	conn       net.Conn
	status     int
	code       string
	retryAfter string
	err        error
}

// sendSlowReader posts body on a new connection whose receive buffer is
// slowReaderBuf bytes, and reads the reply's headers; a refusal's body is
// read too (it is small), a reply's is not.
func sendSlowReader(ctx context.Context, base string, body []byte) (r slowReader) {
	u, err := url.Parse(base)
	if err != nil {
		return slowReader{err: err}
	}
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) {
			serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, slowReaderBuf)
		})
		if err != nil {
			return err
		}
		return serr
	}}
	conn, err := d.DialContext(ctx, "tcp", u.Host)
	if err != nil {
		return slowReader{err: err}
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	r.conn = conn
	fmt.Fprintf(conn, "POST /graphql HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", u.Host, len(body), body)
	res, err := http.ReadResponse(bufio.NewReaderSize(conn, slowReaderBuf), nil)
	if err != nil {
		r.err = err
		return r
	}
	r.status, r.retryAfter = res.StatusCode, res.Header.Get("Retry-After")
	if res.StatusCode != http.StatusOK {
		var out struct {
			Errors []struct {
				Extensions struct{ Code string }
			}
		}
		b, err := io.ReadAll(io.LimitReader(res.Body, 64<<10))
		if err == nil {
			err = json.Unmarshal(b, &out)
		}
		if err == nil && len(out.Errors) > 0 {
			r.code = out.Errors[0].Extensions.Code
		}
		r.err = err
	}
	return r
}
