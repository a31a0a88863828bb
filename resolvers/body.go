package resolvers

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"strings"
	"time"
	"unicode/utf8"
)

// Draining an over-limit body: the server reads (and throws away) at most
// maxDrainBytes of it, within drainTimeout, so that a client still sending
// gets its 413 instead of a connection reset; past either bound the
// connection is closed.
const (
	maxDrainBytes = 128 << 20
	drainTimeout  = 10 * time.Second
)

// httpEdge refuses, with a coded JSON error, what is not a GraphQL-over-HTTP
// request before gqlgen sees it: methods other than GET, POST and OPTIONS
// (405), a POST whose Content-Type is not application/json (415), and a
// POST body that is too large (413), stalls (408), breaks off (400) or is
// not UTF-8 (400). A POST reaches next with its body read into memory.
func httpEdge(maxBody int64, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet, http.MethodOptions:
		case http.MethodPost:
			if msg := checkContentType(r.Header.Get("Content-Type")); msg != "" {
				writeRequestError(w, http.StatusUnsupportedMediaType, CodeUnsupportedMediaType, msg)
				return
			}
			body, ok := readBody(w, r, maxBody)
			if !ok {
				return
			}
			r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		default:
			writeRequestError(w, http.StatusMethodNotAllowed, CodeMethodNotAllowed,
				fmt.Sprintf("method %s is not allowed: send queries with GET or POST, mutations with POST", r.Method),
				"Allow", "GET, POST, OPTIONS")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// checkContentType says what is wrong with a POST's Content-Type, or "".
func checkContentType(ct string) string {
	const want = `send the request as JSON with "Content-Type: application/json"`
	if ct == "" {
		return "the request has no Content-Type; " + want
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil || mt != "application/json" {
		return fmt.Sprintf("Content-Type %.60q is not supported; %s", ct, want)
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		return fmt.Sprintf("charset %.30q is not supported; the body must be UTF-8 (Content-Type: application/json or application/json; charset=utf-8)", cs)
	}
	return ""
}

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
		buf.Grow(int(r.ContentLength))
	}
	_, err := buf.ReadFrom(io.LimitReader(r.Body, maxBytes+1))
	switch {
	case isTimeout(err):
		writeRequestError(w, http.StatusRequestTimeout, CodeRequestTimeout,
			"the request body did not arrive in time; send the whole body right after the headers",
			"Connection", "close")
		return nil, false
	case err != nil:
		writeRequestError(w, http.StatusBadRequest, CodeBadRequest,
			"the request body could not be read (the connection broke or the chunked encoding is malformed)",
			"Connection", "close")
		return nil, false
	case int64(buf.Len()) > maxBytes:
		refuseTooLarge(w, r, maxBytes)
		return nil, false
	case !utf8.Valid(buf.Bytes()):
		writeRequestError(w, http.StatusBadRequest, CodeBadUserInput, "the request body is not valid UTF-8; encode every string as UTF-8")
		return nil, false
	}
	return buf.Bytes(), true
}

// refuseTooLarge answers 413 and closes the connection gracefully: the
// reply is sent (and flushed) first when the connection allows reading
// after writing, then up to maxDrainBytes of the rest of the body are read
// and thrown away, so that the client, still sending, reads the 413 rather
// than a reset.
func refuseTooLarge(w http.ResponseWriter, r *http.Request, maxBytes int64) {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(drainTimeout))
	answer := func() {
		writeRequestError(w, http.StatusRequestEntityTooLarge, CodeRequestTooLarge,
			fmt.Sprintf("the request body is larger than %d bytes", maxBytes), "Connection", "close")
		_ = rc.Flush()
	}
	if rc.EnableFullDuplex() == nil {
		answer()
		drain(r.Body)
		return
	}
	drain(r.Body)
	answer()
}

// drain reads and discards up to maxDrainBytes of body, in 64 KiB reads
// (io.Discard's 8 KiB ones cost 8 times the system calls).
func drain(body io.Reader) {
	if body == nil {
		return
	}
	buf := make([]byte, 64<<10)
	for n := int64(0); n < maxDrainBytes; {
		m, err := body.Read(buf)
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
