// Package bytecache is a least-recently-used cache bounded in bytes: the
// one rule the gateway's caches of client-chosen data keep (parsed
// documents, automatic persisted queries, the cost analysis's documents
// and measures, the micro-cache's responses).
//
// A cache bounded by its number of entries is bounded in memory only when
// its entries are: a 1 MB query that is almost all comment passes every
// limit of the request, and 1,000 of them in a 1,000-entry cache pin a
// gigabyte. So each entry has a weight, the bytes it keeps reachable as
// its Weigh function estimates them plus its key and a fixed overhead, and
// the cache keeps the sum of the weights under its MaxBytes by evicting
// the least recently used entries; an entry heavier than MaxEntryBytes is
// not kept at all (it would flush the others), so a request that brought
// it frees it when it ends.
//
// Cache satisfies gqlgen's graphql.Cache, so gqlgen's document cache and
// its APQ extension use it as they would gqlgen's own count-bounded LRU.
// An Observer (package metrics) is told of lookups, evictions, refusals
// and the cache's size.
//
// (Why not a library: hashicorp/golang-lru, which gqlgen's LRU wraps,
// bounds entries by count only; otter and ristretto weigh entries but admit
// them by frequency and evict asynchronously, so a hot entry may be
// refused and the bound is reached after the fact. A mutex, a map and a
// list are a hundred lines that do exactly this.)
package bytecache
