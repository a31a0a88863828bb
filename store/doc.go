// Package store is the domain of the comments gateway: the comment and stats
// types, the single-table key design, the pure query planner, the k-way merge
// with its cursors, the error codes, and the Table interface that the
// backends (store/bolt, store/dynamo) implement.
//
// store imports neither backend. Every read on the comment path is a
// key-condition query on an index partition that holds exactly the matching
// comments, newest first (see ../DESIGN.md in the shared folder, and the
// README): no filter expressions, no offsets, no scans.
package store
