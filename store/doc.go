// Package store is the domain of the comments gateway: the comment and stats
// types, the single-table key design, the pure query planner, the k-way merge
// with its cursors, and the error codes its callers read. The storage
// contract it is written against, the Table interface with its items,
// typed values, queries, writes, index definitions, limits and error
// codes, is package store/table, which the backends (store/bolt,
// store/dynamo) implement.
//
// store imports neither backend, and no package of the module but
// store/table. The model, Store, is written once against table.Table:
// Get, BatchGet, key-condition Query on the base table or one of the four
// indexes declared in table.Indexes, atomic conditional Write, BatchPut and
// a segmented Scan. Each backend accounts every call to the
// table.Accountant in the call's context; a Usage (usage.go) totals a
// request's calls: the one count behind extensions.cost and the metrics.
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
// costs. The other orders (order.go) read the same partitions: OLDEST
// ascending, MOST_HELPFUL on their helpful twins sorted by HSK, and the
// rating orders one rating partition after another (sequence.go); a cursor
// belongs to its order.
//
// docs/design.md in the repository is the design this package follows: the
// key schema with every attribute, the index table, the merge's reasoning
// and the cursor format byte by byte.
package store
