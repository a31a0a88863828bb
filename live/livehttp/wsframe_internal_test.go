package livehttp

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"
)

// TestBatchConnTextFramesGoBetweenLibraryFrames: the gateway's own frames
// are refused while the library's frame is incomplete or after its close
// frame, and otherwise reach the peer whole, between the library's
// frames, in order, with headers for each payload length class.
func TestBatchConnTextFramesGoBetweenLibraryFrames(t *testing.T) {
	client, server := loopbackPair(t)
	c := newBatchConn(server, time.Second, 0)
	long := []byte(strings.Repeat("y", 300))
	libFrame := appendTextFrame(nil, long) // as the library would write it
	huge := []byte(strings.Repeat("z", 70000))
	var want []byte
	write := func(p []byte) {
		t.Helper()
		if _, err := c.Write(p); err != nil {
			t.Fatal(err)
		}
		want = append(want, p...)
	}
	text := func(msg []byte, wantSent bool) {
		t.Helper()
		sent, err := c.writeText(msg)
		if err != nil || sent != wantSent {
			t.Fatalf("writeText(%d bytes) = %v, %v; want %v", len(msg), sent, err, wantSent)
		}
		if sent {
			want = appendTextFrame(want, msg)
		}
	}
	text([]byte("a"), true)
	write(libFrame[:1]) // amid the header
	text([]byte("refused"), false)
	write(libFrame[1:100]) // amid the payload
	text([]byte("refused"), false)
	write(libFrame[100:])
	text(long, true)
	text(huge, true)
	closeFrame := []byte{0x88, 2, 0x03, 0xe8} // close, 1000
	write(closeFrame)
	text([]byte("after close"), false)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(client)
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("the peer got %d bytes (%v), want the %d written, in order", len(got), err, len(want))
	}
}

// TestTextFrameHeaders: RFC 6455 5.2 headers of a final, unmasked text
// frame for each payload length class.
func TestTextFrameHeaders(t *testing.T) {
	for _, tc := range []struct {
		n    int
		head []byte
	}{
		{0, []byte{0x81, 0}},
		{125, []byte{0x81, 125}},
		{126, []byte{0x81, 126, 0, 126}},
		{65535, []byte{0x81, 126, 0xff, 0xff}},
		{70000, []byte{0x81, 127, 0, 0, 0, 0, 0, 1, 0x11, 0x70}},
	} {
		f := appendTextFrame(nil, make([]byte, tc.n))
		if !bytes.Equal(f[:len(tc.head)], tc.head) || len(f) != len(tc.head)+tc.n {
			t.Errorf("%d bytes: header % x, length %d; want % x and %d", tc.n, f[:len(tc.head)], len(f), tc.head, len(tc.head)+tc.n)
		}
		var s frameStream
		if s.advance(f); !s.between() {
			t.Errorf("%d bytes: the frame does not end where frameStream says", tc.n)
		}
	}
}
