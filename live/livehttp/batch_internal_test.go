package livehttp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"
)

// TestBatchConnSendsAllInOrder: what is written through a batchConn reaches
// the peer complete and in order, including what was queued when Close was
// called; later writes fail.
func TestBatchConnSendsAllInOrder(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan []byte)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			got <- nil
			return
		}
		defer c.Close()
		b, _ := io.ReadAll(c)
		got <- b
	}()
	raw, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c := newBatchConn(raw, time.Second, 0)
	var want bytes.Buffer
	for i := range 5000 { // more than maxPendingWrite: writers wait for the sender
		msg := fmt.Sprintf("message %d;", i)
		want.WriteString(msg)
		if _, err := c.Write([]byte(msg)); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write([]byte("late")); err == nil {
		t.Error("a write after Close succeeded")
	}
	if b := <-got; !bytes.Equal(b, want.Bytes()) {
		t.Errorf("the peer got %d bytes, want the %d written, in order", len(b), want.Len())
	}
}

// countingConn counts the write calls that reach the socket.
type countingConn struct {
	net.Conn
	writes atomic.Int32
}

func (c *countingConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

// loopbackPair returns both ends of a TCP connection on 127.0.0.1.
func loopbackPair(t *testing.T) (client, server net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	client, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server = <-accepted
	if server == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { client.Close(); server.Close() })
	return client, server
}

// TestBatchConnHeldWritesLeaveInOneSend: writes between hold and release
// are sent by release in one write call, in order; a write outside a hold
// is sent at once.
func TestBatchConnHeldWritesLeaveInOneSend(t *testing.T) {
	client, server := loopbackPair(t)
	cc := &countingConn{Conn: server}
	c := newBatchConn(cc, time.Second, 0)
	c.hold()
	for _, m := range []string{"one;", "two;", "three;"} {
		if _, err := c.Write([]byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	if n := cc.writes.Load(); n != 0 {
		t.Fatalf("%d sends while held, want 0", n)
	}
	if err := c.release(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write([]byte("four;")); err != nil {
		t.Fatal(err)
	}
	if n := cc.writes.Load(); n != 2 {
		t.Errorf("%d sends, want 2 (the held writes together, then the last)", n)
	}
	want := "one;two;three;four;"
	got := make([]byte, len(want))
	if _, err := io.ReadFull(client, got); err != nil || string(got) != want {
		t.Errorf("the peer got %q (%v), want %q", got, err, want)
	}
}

// TestBatchConnStalledPeerIsClosed: when the peer stops reading, a write
// the socket cannot take is left to a sender goroutine (the writer does
// not wait for the socket), whose send fails after the write timeout; the
// connection is then closed (its reader ends too) and every later write
// fails.
func TestBatchConnStalledPeerIsClosed(t *testing.T) {
	_, server := loopbackPair(t) // the client never reads
	c := newBatchConn(server, 100*time.Millisecond, 0)
	if c.raw == nil {
		t.Skip("no writes that never wait on this platform")
	}
	if _, err := c.Write(make([]byte, 16<<20)); err != nil { // more than the socket's buffers
		t.Fatalf("a write the socket cannot take whole: %v, want it queued", err)
	}
	// The sender takes the whole queue while it sends, and a slow machine
	// may see its send time out already: either way a sender has it.
	c.mu.Lock()
	handed := c.sending || c.err != nil
	c.mu.Unlock()
	if !handed {
		t.Fatal("16 MiB to a peer that reads nothing: nothing left for the sender")
	}
	chunk := bytes.Repeat([]byte("x"), 64<<10)
	done := make(chan error, 1)
	go func() {
		for {
			if _, err := c.Write(chunk); err != nil {
				done <- err
				return
			}
		}
	}()
	select {
	case err := <-done:
		var ne net.Error
		if !errors.As(err, &ne) || !ne.Timeout() {
			t.Errorf("the write failed with %v, want a timeout", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("writes to a peer that reads nothing did not fail")
	}
	if _, err := server.Read(make([]byte, 1)); !errors.Is(err, net.ErrClosed) {
		t.Errorf("read after the failed send: %v, want net.ErrClosed", err)
	}
	if _, err := c.Write([]byte("late")); err == nil {
		t.Error("a write after the failed send succeeded")
	}
}
