package livehttp

import "encoding/binary"

// The gateway's own websocket frames.
//
// A subscriber's `next` message (frame.go) is a whole text message the
// gateway has already encoded; the websocket library would copy it into
// its buffer under two locks of its own before batchConn copies it again.
// batchConn.writeText puts it on the connection as one unmasked text
// frame (RFC 6455 5.2: what a server sends) with one copy instead,
// between two of the library's frames: batchConn follows the library's
// bytes (frameStream) and refuses, for the library to write it, when the
// library is amid a frame (one larger than its buffer reaches batchConn
// in pieces) or has sent its close frame (nothing may follow it).

// frameStream follows the websocket frames the library writes (a
// server's: unmasked), so that other frames go only between two of them.
type frameStream struct {
	left   int64    // payload bytes of the current frame still to come
	head   [14]byte // the current frame's header, while incomplete
	n      int      // bytes of head received
	closed bool     // a close frame was written
}

// opClose is the opcode of a close frame (RFC 6455 5.2).
const opClose = 0x8

// between reports whether the library's bytes so far end with a whole
// frame.
func (s *frameStream) between() bool { return s.left == 0 && s.n == 0 }

// advance follows p, the library's next bytes.
func (s *frameStream) advance(p []byte) {
	for len(p) > 0 {
		if s.left > 0 {
			k := min(s.left, int64(len(p)))
			s.left -= k
			p = p[k:]
			continue
		}
		s.head[s.n] = p[0]
		s.n++
		p = p[1:]
		if s.n < 2 || s.n < frameHeaderLen(s.head[1]) {
			continue
		}
		s.left = framePayloadLen(s.head[:s.n])
		s.closed = s.closed || s.head[0]&0x0f == opClose
		s.n = 0
	}
}

// frameHeaderLen is the length of a frame header whose second byte is b1.
func frameHeaderLen(b1 byte) int {
	n := 2
	switch b1 & 0x7f {
	case 126:
		n += 2
	case 127:
		n += 8
	}
	if b1&0x80 != 0 {
		n += 4 // masking key
	}
	return n
}

// framePayloadLen is the payload length a whole frame header gives.
func framePayloadLen(h []byte) int64 {
	switch n := h[1] & 0x7f; n {
	case 126:
		return int64(binary.BigEndian.Uint16(h[2:4]))
	case 127:
		return int64(binary.BigEndian.Uint64(h[2:10]))
	default:
		return int64(n)
	}
}

// appendTextFrame appends to b a final, unmasked text frame of msg.
func appendTextFrame(b, msg []byte) []byte {
	const finText = 0x80 | 0x1
	switch n := len(msg); {
	case n <= 125:
		b = append(b, finText, byte(n))
	case n <= 0xffff:
		b = append(b, finText, 126)
		b = binary.BigEndian.AppendUint16(b, uint16(n))
	default:
		b = append(b, finText, 127)
		b = binary.BigEndian.AppendUint64(b, uint64(n))
	}
	return append(b, msg...)
}
