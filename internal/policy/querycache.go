package policy

import (
	"math"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/lexer"

	"github.com/acme/comments-gateway/internal/bytecache"
	"github.com/acme/comments-gateway/metrics"
)

// QueryCaches bounds, in bytes, the caches of query texts and of what is
// derived from them: gqlgen's parsed and validated documents, the cost
// analysis's parsed documents and measures (cost.go), and the automatic
// persisted queries' texts. Each is a least-recently-used cache whose
// entries are weighed by the memory they keep reachable, document text
// included (package bytecache), so a client that sends large distinct
// documents evicts entries instead of pinning memory. A document whose text
// is longer than MaxQueryBytes is parsed, validated and measured as any
// other, but nothing derived from it is kept: its request frees it.
type QueryCaches struct {
	// DocumentBytes bounds gqlgen's cache of parsed, validated documents
	// (DefaultDocumentCacheBytes when 0).
	DocumentBytes int64
	// CostBytes bounds the cost analysis's cache of parsed documents and
	// measures (DefaultCostCacheBytes when 0).
	CostBytes int64
	// APQBytes bounds the automatic persisted queries' texts
	// (DefaultAPQCacheBytes when 0); resolvers.Config.APQCacheSize bounds their
	// number.
	APQBytes int64
	// MaxQueryBytes is the longest query text anything is cached for
	// (DefaultMaxCachedQuery when 0).
	MaxQueryBytes int64
}

// The default budgets of the query caches. A typical operation of a few
// hundred tokens weighs 20–200 KB as a parsed document (documentBytes), so
// each document cache holds a few hundred distinct operations at least;
// persisted query texts weigh their length.
const (
	DefaultDocumentCacheBytes = 32 << 20
	DefaultCostCacheBytes     = 32 << 20
	DefaultAPQCacheBytes      = 8 << 20
	DefaultMaxCachedQuery     = 64 << 10
)

// WithDefaults gives each zero field its default.
func (q QueryCaches) WithDefaults() QueryCaches {
	q.DocumentBytes = PositiveOr(q.DocumentBytes, DefaultDocumentCacheBytes)
	q.CostBytes = PositiveOr(q.CostBytes, DefaultCostCacheBytes)
	q.APQBytes = PositiveOr(q.APQBytes, DefaultAPQCacheBytes)
	q.MaxQueryBytes = PositiveOr(q.MaxQueryBytes, DefaultMaxCachedQuery)
	return q
}

// newQueryCache returns the cache called name (its metrics' label) of
// values derived from query texts: within maxBytes (and maxEntries when
// positive), an entry weighing weigh's bytes beyond its key. An entry
// whose text (text's answer) is longer than maxText is never kept: it
// counts as oversize.
func newQueryCache[V any](name string, maxBytes int64, maxEntries int, maxText int64, m *metrics.Collectors,
	text func(key string, v V) string, weigh func(key string, v V) int64) *bytecache.Cache[V] {
	return bytecache.New(bytecache.Config[V]{
		MaxBytes: maxBytes, MaxEntries: maxEntries, Observer: m.Cache(name),
		Weigh: func(key string, v V) int64 {
			if int64(len(text(key, v))) > maxText {
				return math.MaxInt64 / 2 // over any MaxEntryBytes
			}
			return weigh(key, v)
		},
	})
}

// bytesPerToken bounds what a parsed document keeps per lexer token of its
// text (its nodes, their positions, slices and strings' headers),
// bytesPerTypename what validation adds for each __typename (a field
// definition of its own), and bytecache.TextBytes what a string of n bytes keeps
// allocated (its size rounded up to the allocator's size class or page).
// Measured on gqlparser's ASTs of several shapes by
// TestDocumentBytesCoverParsedDocuments: the densest, a selection of
// one-letter fields, keeps about 224 bytes a token, and a validated
// selection of __typename fields about 400; an ordinary page query about
// 90, so its weight is two to three times what it keeps.
const (
	bytesPerToken    = 256
	bytesPerTypename = 256
)

// documentBytes is a conservative estimate of the memory a parsed document
// of text keeps reachable, text included (its names and values are
// substrings of it).
func documentBytes(text string) int64 {
	n, typenames := tokens(text)
	return bytecache.TextBytes(len(text)) + bytesPerToken*int64(n) + bytesPerTypename*int64(typenames)
}

// tokens counts the lexer tokens of text, and among them the names
// __typename (up to the first lexing error: such a text never parses into
// a document).
func tokens(text string) (n, typenames int) {
	l := lexer.New(&ast.Source{Input: text})
	for {
		t, err := l.ReadToken()
		if err != nil || t.Kind == lexer.EOF {
			return n, typenames
		}
		n++
		if t.Kind == lexer.Name && t.Value == "__typename" {
			typenames++
		}
	}
}

// DocumentCache is gqlgen's cache of parsed, validated documents, keyed by
// their text (which the cache counts as the key and again in the
// document's weight: the key and the document share it, so this errs on
// the safe side).
func DocumentCache(q QueryCaches, m *metrics.Collectors) *bytecache.Cache[*ast.QueryDocument] {
	return newQueryCache("documents", q.DocumentBytes, 0, q.MaxQueryBytes, m,
		func(text string, _ *ast.QueryDocument) string { return text },
		func(text string, _ *ast.QueryDocument) int64 { return documentBytes(text) })
}

// APQCache is the automatic persisted queries' texts by their SHA-256, at
// most maxEntries of them. A text too long to keep is served once; the
// client that sends its hash alone later gets PERSISTED_QUERY_NOT_FOUND
// and sends it again.
func APQCache(q QueryCaches, maxEntries int, m *metrics.Collectors) *bytecache.Cache[string] {
	return newQueryCache("apq", q.APQBytes, maxEntries, q.MaxQueryBytes, m,
		func(_, text string) string { return text },
		func(_, text string) int64 { return bytecache.TextBytes(len(text)) })
}
