// Package bolt implements table.Table on an embedded bbolt file: the
// zero-setup store of the comments gateway.
//
// It owns the on-disk layout of the single-table design, format 4, which
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
//     follows from its sort value), and an empty value (layout.go) but in
//     a helpful twin's base index, where the entries of the items outside
//     the twin's zero tail are marked (passValue). A query
//     walks the entries of a page, then reads each item from "items" in the
//     same read transaction, returning the index's projection of it (an
//     Item, or a Record of the query's Columns: one decoding, record.go
//     and decodeInto, fills either); what
//     the entry holds (the sort value, the hash value, the table key, a
//     time equal to the sort value's) is taken from it rather than derived
//     from the item again (entry.go). An item lacking the index's hash or
//     sort attribute is absent from that index (sparse);
//   - a helpful twin's bucket holds the entries of the comments with a
//     helpful vote alone: the others' HSK is "0000000000#" and their
//     GSISK, so their entries would be, in the same order, those of the
//     public index of the same partitions (the twin's base); a query on a
//     twin merges its stored entries with those (twin.go), and answers for
//     the whole index DynamoDB holds, conditions, start keys and limits
//     included. The base's entries of voted comments are marked, so that
//     the merge passes them by without reading their items;
//   - bucket "partitions" numbers the partitions of the indexes: their hash
//     key values, with the sort attribute for an index not sorted by GSISK
//     (the helpful twins, whose hash values are the public indexes');
//   - bucket "meta" records the format version and the index definitions the
//     index buckets were built for.
//
// Open migrates a file of format 1 (whose index entries held a copy of the
// projected item), 2 (before the helpful twins) or 3 (an entry in every
// twin for every comment, voted or not: see formatVersion) and rebuilds the
// index buckets when table.AllIndexes or the entries' layout (entryLayout)
// has changed, a chunk of items per
// transaction, resuming where it stopped if it was interrupted
// (migrate.go).
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
