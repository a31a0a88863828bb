// Package store is the domain of the comments gateway: the comment and stats
// types, the single-table key design, the pure query planner, the k-way merge
// with its cursors, the error codes, and the Table interface that the
// backends (store/bolt, store/dynamo) implement.
//
// store imports neither backend, nor any other package of the module. The
// model, Store, is written once against Table, a small typed subset of
// DynamoDB (table.go): Get, BatchGet, key-condition Query on the base table
// or one of the four indexes declared in Indexes (keys.go), atomic
// conditional Write, BatchPut and a segmented Scan. Each backend accounts
// every call to the Accountant in the call's context (usage.go): the one
// count behind extensions.cost and the metrics.
//
// One table holds everything. A comment is one item carrying the keys of
// all four indexes, sorted by GSISK (createdAt, fixed width, then the id):
// a unique value whose byte order is the display order, so a position in any
// result is one GSISK and a cursor (cursor.go) is valid across filters.
// Each product's stats live in its partition, write-sharded (stats.go):
// counts per rating and a version in 8 counter shards, summed on read; its
// leaderboard entries, items of their own, are spread over 8 partitions of
// byLangAndRating (leaders.go). A meta item records which logical design
// the table follows (design.go), so that a table an older gateway wrote is
// found and upgraded rather than misread.
//
// Writes (ops.go) change a comment and its stats in one atomic Write:
// counters by ADD in the comment's shard, the comment under a condition on
// its version, the whole mutation retried on conflict; a change of the
// 5-star count is settled into the leaderboard entries right after it.
// Reads of comments (ListComments, list.go; the k-way merge, merge.go) are
// planned by PlanQuery (planner.go), a pure function of the filter and the stats, and read as
// key-condition queries on index partitions that hold exactly the matching
// comments, newest first, k-way merged when several ratings are selected:
// no filter expressions, no offsets, no scans, so page 500 costs what page 1
// costs.
//
// docs/design.md in the repository is the design this package follows: the
// key schema with every attribute, the index table, the merge's reasoning
// and the cursor format byte by byte.
package store
