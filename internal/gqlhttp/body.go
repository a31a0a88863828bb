package gqlhttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/vektah/gqlparser/v2/gqlerror"
)

// Draining an over-limit body: the server reads (and throws away) at most
// maxDrainBytes of it, within drainTimeout, so that a client still sending
// gets its 413 instead of a connection reset; past either bound the
// connection is closed.
const (
	maxDrainBytes = 128 << 20
	drainTimeout  = 10 * time.Second
)

// readBody reads r's body, at most maxBytes of it. When it returns false it
// has answered: 413 for a body over the limit (after draining it, see
// refuseTooLarge), 408 when the body stalled past the server's read
// timeout, 400 when the connection broke or the body is not valid UTF-8.
func readBody(w http.ResponseWriter, r *http.Request, maxBytes int64) ([]byte, bool) {
	if r.ContentLength > maxBytes {
		refuseTooLarge(w, r, maxBytes)
		return nil, false
	}
	var buf bytes.Buffer
	if r.ContentLength > 0 {
		// ReadFrom grows a buffer with less than MinRead bytes free before
		// each read, the one that finds the end too: room for the body
		// and MinRead is one allocation, where room for the body alone
		// was two and a copy.
		buf.Grow(int(r.ContentLength) + bytes.MinRead)
	}
	_, err := buf.ReadFrom(io.LimitReader(r.Body, maxBytes+1))
	switch {
	case isTimeout(err):
		WriteError(w, http.StatusRequestTimeout, CodeRequestTimeout,
			"the request body did not arrive in time; send the whole body right after the headers",
			"Connection", "close")
		return nil, false
	case err != nil:
		WriteError(w, http.StatusBadRequest, CodeBadRequest,
			"the request body could not be read (the connection broke or the chunked encoding is malformed)",
			"Connection", "close")
		return nil, false
	case int64(buf.Len()) > maxBytes:
		refuseTooLarge(w, r, maxBytes)
		return nil, false
	case !utf8.Valid(buf.Bytes()):
		WriteError(w, http.StatusBadRequest, CodeBadUserInput, "the request body is not valid UTF-8; encode every string as UTF-8")
		return nil, false
	case hasLoneSurrogate(buf.Bytes()):
		WriteError(w, http.StatusBadRequest, CodeBadUserInput, loneSurrogateMessage)
		return nil, false
	}
	return buf.Bytes(), true
}

const loneSurrogateMessage = `the request has a \u escape of half a UTF-16 surrogate pair (such as \ud800 alone), which is not a character; escape characters outside the BMP as a full pair or send them as UTF-8`

// hasLoneSurrogate reports whether the JSON text b has a \u escape of a
// UTF-16 surrogate that is not part of a pair: encoding/json would silently
// decode it as U+FFFD. (A backslash occurs only inside strings in JSON.)
func hasLoneSurrogate(b []byte) bool {
	for i := 0; i < len(b)-1; i++ {
		if b[i] != '\\' {
			continue
		}
		if b[i+1] != 'u' {
			i++ // a two-character escape such as \\ or \"
			continue
		}
		r := hex4(b, i+2)
		switch {
		case r >= 0xDC00 && r <= 0xDFFF:
			return true
		case r >= 0xD800 && r <= 0xDBFF:
			if i+11 >= len(b) || b[i+6] != '\\' || b[i+7] != 'u' {
				return true
			}
			if lo := hex4(b, i+8); lo < 0xDC00 || lo > 0xDFFF {
				return true
			}
			i += 11
		default:
			i += 5
		}
	}
	return false
}

// hex4 is the value of the four hex digits at b[i:], or -1.
func hex4(b []byte, i int) int {
	if i+4 > len(b) {
		return -1
	}
	v := 0
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | int(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | int(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v<<4 | int(c-'A'+10)
		default:
			return -1
		}
	}
	return v
}

// refuseTooLarge answers 413 and closes the connection gracefully: the
// reply (with Connection: close) is sent and flushed first, then up to
// maxDrainBytes of the rest of the body are read and thrown away within
// drainTimeout, so that a client still sending, even one that reads only
// once it has sent everything, gets the 413 rather than a reset. The rest
// is read raw from the hijacked connection (no chunked decoding: a 64 MB
// chunked body costs the server a few milliseconds of CPU, not tens);
// where the connection cannot be hijacked, through the request body.
func refuseTooLarge(w http.ResponseWriter, r *http.Request, maxBytes int64) {
	beforeEarlyReply(r.Context()) // before the client can read the answer
	rc := http.NewResponseController(w)
	duplex := rc.EnableFullDuplex() == nil
	if !duplex { // the reply cannot precede the drain
		drainBody(rc, r.Body)
	}
	body, _ := json.Marshal(requestErrorBody{Errors: gqlerror.List{Coded(CodeRequestTooLarge,
		fmt.Sprintf("the request body is larger than %d bytes", maxBytes))}})
	h := w.Header()
	h.Set("Connection", "close")
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusRequestEntityTooLarge)
	_, _ = w.Write(body)
	_ = rc.Flush()
	if !duplex {
		return
	}
	conn, buf, err := rc.Hijack()
	if err != nil {
		drainBody(rc, r.Body)
		return
	}
	defer conn.Close()
	if tc, ok := conn.(interface{ CloseWrite() error }); ok {
		_ = tc.CloseWrite() // the reply is complete
	}
	_ = conn.SetReadDeadline(time.Now().Add(drainTimeout))
	_, _ = buf.Discard(buf.Reader.Buffered())
	drain(conn)
}

// earlyReplyKey holds what is to be done before an early reply (see
// BeforeEarlyReply).
type earlyReplyKey struct{}

// BeforeEarlyReply returns ctx with f, which the edge calls before it
// sends a reply that reaches the client before the handler returns (a 413
// is flushed before the rest of the body is drained): what is done once a
// request is answered (the rate limit's charge for a refusal) is then done
// before the client can send its next request. f may be called again after
// the handler returns; it must do its work once.
func BeforeEarlyReply(ctx context.Context, f func()) context.Context {
	return context.WithValue(ctx, earlyReplyKey{}, f)
}

// beforeEarlyReply calls the function BeforeEarlyReply put in ctx, if any.
func beforeEarlyReply(ctx context.Context) {
	if f, _ := ctx.Value(earlyReplyKey{}).(func()); f != nil {
		f()
	}
}

// drainBody drains a request body within drainTimeout.
func drainBody(rc *http.ResponseController, body io.Reader) {
	_ = rc.SetReadDeadline(time.Now().Add(drainTimeout))
	drain(body)
}

// drain reads and discards up to maxDrainBytes of rd in 256 KiB reads
// (io.Discard's 8 KiB ones would cost 32 times the system calls).
func drain(rd io.Reader) {
	if rd == nil {
		return
	}
	buf := make([]byte, 256<<10)
	for n := int64(0); n < maxDrainBytes; {
		m, err := rd.Read(buf)
		n += int64(m)
		if err != nil {
			return
		}
	}
}

// isTimeout reports whether err is a read deadline passing (the server's
// ReadTimeout on a stalled body).
func isTimeout(err error) bool {
	if err == nil {
		return false
	}
	var ne interface{ Timeout() bool }
	return errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}
