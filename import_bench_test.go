package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkImport runs the import command in-process on the JSON lines file
// named by IMPORT_BENCH_FILE (skipped when unset), into a new bolt file per
// iteration, so that the whole import (parse, check, load, stats) can be
// profiled with -cpuprofile and -memprofile.
func BenchmarkImport(b *testing.B) {
	in := os.Getenv("IMPORT_BENCH_FILE")
	if in == "" {
		b.Skip("IMPORT_BENCH_FILE names the JSON lines to import")
	}
	for i := 0; i < b.N; i++ {
		db := filepath.Join(b.TempDir(), "bench.db")
		args := []string{"-store", "bolt:" + db, in}
		if err := cmdImport(context.Background(), args, func(string) string { return "" }, nil, io.Discard, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
