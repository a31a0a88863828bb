package resolvers_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/acme/comments-gateway/httpcompress"
	"github.com/acme/comments-gateway/internal/gqlhttp"
)

// BenchmarkCompression measures what compressing the filtered page 1
// (BenchmarkHandler's page1-GET, the reply of the real handler) costs per
// request, for each encoding and level of package httpcompress: the reply
// is captured once, then replayed through the compressor by a handler that
// writes it as the HTTP cache does (ETag, Content-Length), one request at
// a time. cpu-ns/op less that of "identity" is the cost; reply-bytes is
// what goes on the wire:
//
//	go test -run '^$' -bench BenchmarkCompression -benchtime 20000x ./resolvers/
func BenchmarkCompression(b *testing.B) {
	e := MustBenchEnv(b)
	rec := serve(e.handler(b, gqlhttp.MicroCacheConfig{}), httptest.NewRequest(http.MethodGet, getURL(pageQuery, map[string]any{"p": e.product}), nil))
	if rec.Code != http.StatusOK {
		b.Fatalf("HTTP %d %s", rec.Code, rec.Body)
	}
	body, etag := rec.Body.Bytes(), rec.Header().Get("ETag")
	replay := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("ETag", etag)
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
		_, _ = w.Write(body)
	})
	type enc struct {
		name, accept string
		cfg          httpcompress.Config
	}
	encs := []enc{{"identity", "", httpcompress.Config{}}}
	for _, l := range []int{1, 3, 5, 6, 9} {
		encs = append(encs, enc{fmt.Sprintf("gzip-%d", l), "gzip", httpcompress.Config{GzipLevel: l}})
	}
	for _, l := range []int{1, 2, 3} {
		encs = append(encs, enc{fmt.Sprintf("zstd-%d", l), "zstd", httpcompress.Config{ZstdLevel: l}})
	}
	for _, c := range encs {
		compress, err := httpcompress.New(c.cfg)
		if err != nil {
			b.Fatal(err)
		}
		h := compress(replay)
		req := httptest.NewRequest(http.MethodGet, "/graphql", nil)
		if c.accept != "" {
			req.Header.Set("Accept-Encoding", c.accept)
		}
		b.Run(c.name, func(b *testing.B) {
			w := serve(h, req)
			if got := w.Header().Get("Content-Encoding"); got != c.accept {
				b.Fatalf("Content-Encoding %q, want %q", got, c.accept)
			}
			b.ReportAllocs()
			cpu0 := processCPU(b)
			b.ResetTimer()
			for range b.N {
				serve(h, req)
			}
			b.StopTimer()
			b.ReportMetric(float64(processCPU(b)-cpu0)/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(w.Body.Len()), "reply-bytes")
		})
	}
}
