package livehttp

import (
	"bytes"
	"fmt"
	"io"
	"net"
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
	c := newBatchConn(raw, time.Second)
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
