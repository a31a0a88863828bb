package command

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acme/comments-gateway/demo"
	"github.com/acme/comments-gateway/jsonl"
)

// BenchmarkImport runs the import command in-process on the JSON lines file
// named by IMPORT_BENCH_FILE (by default 50,000 demo comments written to a
// temporary file), into a new bolt file per iteration, so that the whole
// import (parse, check, load, stats) can be profiled with -cpuprofile and
// -memprofile.
func BenchmarkImport(b *testing.B) {
	in := os.Getenv("IMPORT_BENCH_FILE")
	if in == "" {
		in = demoFile(b, 50_000)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		db := filepath.Join(b.TempDir(), "bench.db")
		args := []string{"-store", "bolt:" + db, in}
		if err := cmdImport(context.Background(), args, func(string) string { return "" }, nil, io.Discard, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

// demoFile writes n demo comments as JSON lines to a temporary file.
func demoFile(tb testing.TB, n int) string {
	tb.Helper()
	cfg := demo.DefaultConfig()
	cfg.Comments = n
	return writeLines(tb, demoLines(tb, 1, cfg))
}

// demoLines returns the demo comments of seed and cfg as JSON lines, each
// with its line ending.
func demoLines(tb testing.TB, seed uint64, cfg demo.Config) []string {
	tb.Helper()
	var buf bytes.Buffer
	w := jsonl.NewWriter(&buf)
	for _, c := range demo.Generate(demo.NewRand(seed), cfg) {
		if err := w.Write(c); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	return strings.SplitAfter(buf.String(), "\n")
}

// writeLines writes lines to a temporary file and returns its path.
func writeLines(tb testing.TB, lines []string) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "in.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o600); err != nil {
		tb.Fatal(err)
	}
	return path
}
