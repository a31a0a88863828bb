package httpcompress

import (
	"net/http"
	"strings"

	"github.com/klauspost/compress/gzhttp"
)

// The defaults, chosen from the CPU each costs per request on a filtered
// page of 20 comments (docs/BENCHMARKS.md, "Compression").
const (
	// DefaultMinSize: smaller replies (errors, a stats query) gain a few
	// bytes at most and are sent as they are.
	DefaultMinSize = 1024
	// DefaultGzipLevel is klauspost/compress/gzip's level.
	DefaultGzipLevel = 1
	// DefaultZstdLevel is a zstd.EncoderLevel (1: SpeedFastest).
	DefaultZstdLevel = 1
)

// Config sets the compression; zero fields take the defaults.
type Config struct {
	MinSize   int
	GzipLevel int
	ZstdLevel int
}

// etagSuffix is gzhttp's suffix of a gzip reply's ETag; a zstd reply's is
// -zstd (gzhttp replaces the gzip in it).
const etagSuffix = "-gzip"

// encodedSuffixes are the ETag suffixes gzhttp writes, one per encoding.
var encodedSuffixes = []string{"-gzip", "-zstd"}

// New returns the middleware that compresses next's replies.
func New(c Config) (func(http.Handler) http.Handler, error) {
	if c.MinSize == 0 {
		c.MinSize = DefaultMinSize
	}
	if c.GzipLevel == 0 {
		c.GzipLevel = DefaultGzipLevel
	}
	if c.ZstdLevel == 0 {
		c.ZstdLevel = DefaultZstdLevel
	}
	wrap, err := gzhttp.NewWrapper(gzhttp.MinSize(c.MinSize), gzhttp.CompressionLevel(c.GzipLevel),
		gzhttp.ZstdCompressionLevel(c.ZstdLevel), gzhttp.SuffixETag(etagSuffix))
	if err != nil {
		return nil, err
	}
	return func(next http.Handler) http.Handler {
		compressed := wrap(next)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if streaming(r) {
				next.ServeHTTP(w, r)
				return
			}
			if held := decodeIfNoneMatch(r); held != nil {
				w = &notModifiedTag{ResponseWriter: w, held: held}
			}
			compressed(w, r)
		})
	}, nil
}

// streaming reports whether r opens a websocket or an SSE stream.
func streaming(r *http.Request) bool {
	return strings.Contains(strings.ToLower(r.Header.Get("Upgrade")), "websocket") ||
		strings.Contains(r.Header.Get("Accept"), "text/event-stream")
}

// decodeIfNoneMatch replaces, in r's If-None-Match, each tag of an encoded
// reply by the tag of the reply it encodes (what the handler computes),
// and returns the tags the client holds by the handler's tag (nil: none
// was encoded).
func decodeIfNoneMatch(r *http.Request) map[string]string {
	fields := r.Header.Values("If-None-Match")
	var held map[string]string
	out := make([]string, 0, len(fields))
	for _, f := range fields {
		tags := strings.Split(f, ",")
		for i, t := range tags {
			t = strings.TrimSpace(t)
			if base, ok := decodedTag(t); ok {
				if held == nil {
					held = map[string]string{}
				}
				held[strings.TrimPrefix(base, "W/")] = t
				t = base
			}
			tags[i] = t
		}
		out = append(out, strings.Join(tags, ", "))
	}
	if held != nil {
		r.Header["If-None-Match"] = out
	}
	return held
}

// decodedTag is t without its encoding's suffix (`"abc-gzip"` → `"abc"`).
func decodedTag(t string) (string, bool) {
	if !strings.HasSuffix(t, `"`) {
		return "", false
	}
	for _, s := range encodedSuffixes {
		if base, ok := strings.CutSuffix(t, s+`"`); ok {
			return base + `"`, true
		}
	}
	return "", false
}

// notModifiedTag gives a 304 the tag the client holds: RFC 9110 asks a
// 304 for the ETag the 200 would have had, which is the encoded one.
type notModifiedTag struct {
	http.ResponseWriter
	held map[string]string
}

// WriteHeader implements http.ResponseWriter.
func (w *notModifiedTag) WriteHeader(code int) {
	if code == http.StatusNotModified {
		if t, ok := w.held[w.Header().Get("ETag")]; ok {
			w.Header().Set("ETag", t)
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *notModifiedTag) Unwrap() http.ResponseWriter { return w.ResponseWriter }
