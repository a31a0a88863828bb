// Package storetest holds the conformance suites every table.Table backend
// runs from its own tests:
//
//   - Run checks the Table contract itself (Get, BatchGet, Query on the base
//     table and every index, Write with its conditions and atomicity,
//     BatchPut, Scan) against an in-memory model of what the table must
//     hold, and that every call is accounted to its context's
//     table.Accountant (CallLog records them);
//   - RunModel checks the comments model (store.Store) on top of a Table.
//
// Both call newTable once per subtest for a new, empty table. The suites use
// only the Table interface and stay within what DynamoDB guarantees (a
// LastKey may be non-nil when nothing follows; pagination is always followed
// to its end), with data sets of a few hundred items so that a run against
// DynamoDB Local over HTTP stays fast.
//
// The MustX helpers fail the test on error and are meant for backends'
// own tests too.
package storetest
