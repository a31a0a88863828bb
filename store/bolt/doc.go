// Package bolt implements store.Table on an embedded bbolt file: the
// zero-setup store of the comments gateway.
//
// It owns the on-disk layout of the single-table design:
//
//   - bucket "items" holds every item, keyed PK + "\x00" + SK, valued with a
//     compact binary encoding of the item (strings and int64 only; see
//     codec.go);
//   - one bucket per index of store.Indexes ("index:<name>"), keyed
//     hash + "\x00" + sort + "\x00" + PK + "\x00" + SK and valued with the
//     projected item (the index's Projection plus the table and index key
//     attributes). An item lacking the index's hash or sort attribute is
//     absent from that index (sparse). The key attributes are read back
//     from the bucket key rather than stored twice;
//   - bucket "meta" records the format version and the index definitions the
//     index buckets were built for; Open rebuilds the index buckets when
//     store.Indexes has changed since.
//
// Every write (Write, each chunk of BatchPut) is one bbolt update
// transaction that changes the item and all its index entries together, and
// is synced to disk before it returns: nothing acknowledged is lost. Reads
// are bbolt read transactions, so they never see half a write and run
// concurrently with the single writer.
//
// Because no attribute value that is part of a key may contain "\x00", the
// byte order of the bucket keys is the order DynamoDB gives the same keys
// (UTF-8 bytes), and Query is a bbolt cursor walk between two bounds. The
// limits DynamoDB enforces on keys and item size are enforced here too, so
// that what works on this store also works on DynamoDB.
package bolt
