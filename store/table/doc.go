// Package table is the storage contract of the comments gateway: the one
// table every backend implements (store/bolt on a bbolt file, store/dynamo
// on DynamoDB) and the model in package store is written against. It is a
// small typed subset of DynamoDB, and it imports no package of the module.
//
// # Items and values
//
// An Item maps attribute names to Values. A Value is a string (S) or an
// int64 number (N), held inline in a small struct, so that reading a page of
// items allocates no interface per attribute. S and N make values; Str and
// Num read them and say, with their second result, when the attribute is
// absent or of the other kind:
//
//	it := table.Item{table.AttrPK: table.S("COMMENT#c1"), table.AttrRating: table.N(4)}
//	r, ok := it[table.AttrRating].Num() // 4, true
//	_, ok = it[table.AttrTitle].Str()   // absent: "", false
//
// The zero Value (KindNone) is what an absent attribute reads as; it is
// never stored, and a write holding one fails with EINVALID.
//
// A reader that wants fixed attributes asks a Query for Columns: the
// backend may then answer with Records, an item's values by column, no
// map per item (record.go). Columns.Record is the one conversion of an
// Item to a Record, and a backend's Records equal it. A reader that drops
// a page's records at once may lend their room from a RecordArena
// (arena.go), which keeps it for the next page.
//
// # Keys, indexes and queries
//
// An item is addressed by its primary Key (PK, SK). Indexes declares the
// table's four global secondary indexes (schema.go): each has a hash and a
// sort attribute and projects the attributes a page shows; an item lacking
// an index's hash or sort attribute is absent from it. A Query is a
// key-condition query on the base table or one index: equality on the hash
// value, an optional condition on the sort value (SortOp), a direction, a
// limit and the LastKey of the page before; index queries may be
// eventually consistent, everything else is strongly consistent.
//
// # Writes
//
// Table.Write applies up to MaxWriteOps Ops atomically: Put a whole item,
// Delete one, or Update it (ADD to numbers, SET and REMOVE attributes).
// Conds on each op's item (exists, not exists, an attribute equals a value,
// an attribute is absent) are evaluated against the state before the
// write; a failed one fails the whole Write with the *Error CondFailure
// makes. ValidateOp and ValidateItem hold DynamoDB's limits (limits.go,
// writeop.go), and both backends apply them, so that what the embedded
// store accepts DynamoDB accepts too.
//
// # Errors and accounting
//
// Every failure is an *Error with a code (errors.go): EINVALID,
// ENOTFOUND, ECONFLICT, EFORBIDDEN, EUNAVAILABLE, EINTERNAL. Backends
// translate their native errors into these at their edge; package store
// re-exports them to its callers. Every Table call is accounted, once,
// when it ends, to the Accountant of its context (accounting.go): the one
// count behind the cost extension and the metrics.
//
// # Times
//
// Every time the table holds is in TimeLayout, fixed width and UTC, so
// that byte order is time order; ParseFixedTime, FormatFixedTime and
// AppendFixedTime read and write it without package time's general
// layouts (fixedtime.go).
//
// The conformance suite, store/storetest, states this contract as tests:
// each backend runs it.
package table
