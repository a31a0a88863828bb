// Package bolt implements table.Table on an embedded bbolt file: the
// zero-setup store of the comments gateway.
//
// It owns the on-disk layout of the single-table design, format 3, which
// stores each item once:
//
//   - bucket "items" holds every item, keyed PK + "\x00" + SK, valued with a
//     compact binary encoding of the item (strings and int64 only; see
//     codec.go): a comment's id, GSISK, HSK and four index hash keys follow
//     from its other attributes and are not stored, and its createdAt takes
//     a few bytes (derive.go);
//   - one bucket per index of table.AllIndexes ("ix:<name>") holds one entry
//     per item in the index: a key of the partition's number, the sort
//     value and the item's table key (left out for a comment, whose key
//     follows from its sort value), and an empty value (layout.go). A query
//     walks the entries of a page, then reads each item from "items" in the
//     same read transaction, returning the index's projection of it; what
//     the entry holds (the sort value, the hash value, the table key, a
//     time equal to the sort value's) is taken from it rather than derived
//     from the item again (entry.go). An item lacking the index's hash or
//     sort attribute is absent from that index (sparse);
//   - bucket "partitions" numbers the partitions of the indexes: their hash
//     key values, with the sort attribute for an index not sorted by GSISK
//     (the helpful twins, whose hash values are the public indexes');
//   - bucket "meta" records the format version and the index definitions the
//     index buckets were built for.
//
// Open migrates a file of format 1 (whose index entries held a copy of the
// projected item) or 2 (before the helpful twins: see formatVersion) and
// rebuilds the index buckets when table.AllIndexes has
// changed, a chunk of items per transaction, resuming where it stopped if
// it was interrupted (migrate.go).
//
// Every write (Write, each chunk of BatchPut) is one bbolt update
// transaction that changes the item and all its index entries together, and
// is synced to disk before it returns: nothing acknowledged is lost. Reads
// are bbolt read transactions, so they never see half a write and run
// concurrently with the single writer. WriteTo copies the whole file
// consistently from a read transaction, while the table serves (backup.go).
//
// Because no attribute value that is part of a key may contain "\x00", the
// byte order of the bucket keys within a partition is the order DynamoDB
// gives the same keys (UTF-8 bytes), and Query is a bbolt cursor walk
// between two bounds. The limits DynamoDB enforces on keys and item size
// are enforced here too, so that what works on this store also works on
// DynamoDB.
package bolt
