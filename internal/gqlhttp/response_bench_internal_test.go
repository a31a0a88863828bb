package gqlhttp

import "testing"

// BenchmarkMarshalExtensions is a page reply's extensions.cost written:
//
//	go test -run '^$' -bench BenchmarkMarshalExtensions ./internal/gqlhttp/
func BenchmarkMarshalExtensions(b *testing.B) {
	ext := map[string]any{"cost": map[string]any{"complexity": 23, "itemsRead": int64(21), "storeRequests": int64(2)}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := marshalExtensions(ext); err != nil {
			b.Fatal(err)
		}
	}
}
