package table

import "context"

// Item is one table item: attribute name → value (see Value). An item holds
// no zero Value: an absent attribute is not in the map.
type Item map[string]Value

// S returns the string attribute name, or "" when it is absent or a
// number: for a value that must be there, use it[name].Str().
func (it Item) S(name string) string {
	s, _ := it[name].Str()
	return s
}

// N returns the number attribute name, or 0 when it is absent or a
// string: for a value that must be there, use it[name].Num().
func (it Item) N(name string) int64 {
	n, _ := it[name].Num()
	return n
}

// Key is a table item's primary key.
type Key struct {
	PK, SK string
}

// Key returns the primary key of it.
func (it Item) Key() Key { return Key{PK: it.S(AttrPK), SK: it.S(AttrSK)} }

// SortOp is the comparison of a Query's sort-key condition.
type SortOp int

// Sort-key conditions.
const (
	SortNone       SortOp = iota // no condition on the sort key
	SortLess                     // sort < value
	SortGreater                  // sort > value
	SortBeginsWith               // begins_with(sort, value)
)

// Query is a key-condition query on the base table (Index "") or on one of
// the indexes declared in Indexes.
type Query struct {
	Index     string // "" for the base table
	HashValue string // equality on the hash attribute (PK or the index's)
	SortOp    SortOp
	SortValue string
	Forward   bool // ascending by sort key when true; descending otherwise
	Limit     int  // maximum items to return; must be > 0
	// StartKey continues a previous query: it is the LastKey of the answer
	// before (exclusive).
	StartKey Item
	// Columns, when set, lets the backend answer with Records in these
	// columns instead of Items (QueryResult.Records): one that decodes
	// its bytes straight into them does (store/bolt), others answer with
	// Items, which the caller converts with Columns.Record. Projections,
	// LastKey and accounting are those of the same query without it.
	Columns *Columns
	// Arena, with Columns, is where the backend may take the room of the
	// Records it answers with (see RecordArena); nil: it allocates it.
	Arena *RecordArena
}

// QueryResult is one page of a Query. LastKey is nil when nothing more
// matches the query past Items; a non-nil LastKey means there may be more
// (the backend stopped at the limit or at its own size limit), to be read by
// passing it as the next Query's StartKey. A backend may return fewer than
// Limit items with a non-nil LastKey (DynamoDB's 1 MB page), and DynamoDB
// returns a LastKey whenever it stops at the limit, even if nothing follows.
//
// Index queries may be eventually consistent (they are on DynamoDB); Get,
// BatchGet and base-table queries are strongly consistent.
type QueryResult struct {
	Items []Item
	// Records holds the items instead of Items when the query had
	// Columns and the backend answers so (Items is then nil).
	Records []Record
	LastKey Item
}

// Len returns the number of items of the page, in Items or Records.
func (r QueryResult) Len() int { return len(r.Items) + len(r.Records) }

// OpKind is the kind of one operation of an atomic Write.
type OpKind int

// Operation kinds.
const (
	OpPut    OpKind = iota + 1 // replace the whole item
	OpDelete                   // delete the item
	OpUpdate                   // ADD to numbers, SET and REMOVE attributes; creates the item if absent
)

// CondKind is the kind of a condition on an item of a Write.
type CondKind int

// Conditions.
const (
	CondExists    CondKind = iota + 1 // the item exists
	CondNotExists                     // the item does not exist
	CondEquals                        // attribute Attr equals Value (an absent attribute equals nothing)
	CondAbsent                        // attribute Attr is absent (the item may be absent too)
)

// Cond is a condition on the item an Op writes. All conditions of a Write are
// evaluated against the state before it, in the same atomic step as the
// write; if any fails, nothing is written and the Write returns an *Error
// (see CondFailure) with Op set to the failed operation's index and the code
// of its first condition that does not hold: the condition's Code, or
// ECONFLICT when it has none (the caller may re-read and retry). DynamoDB
// may also cancel a transaction that conflicts with a concurrent one:
// ECONFLICT with Op -1.
type Cond struct {
	Kind  CondKind
	Attr  string
	Value Value
	// Code, when set, is the error code of a Write this condition fails: a
	// refusal for good rather than a conflict to retry, such as EFORBIDDEN
	// for the ownership condition of a comment's update.
	Code string
}

// Op is one operation of an atomic Write. The ops of one Write address
// distinct items; an op carries only the fields of its kind; an update
// changes at least one attribute and never PK or SK; values are strings or
// int64s within DynamoDB's limits (see ValidateOp, which both backends
// apply).
type Op struct {
	Kind   OpKind
	Key    Key
	Item   Item             // OpPut: the whole item (its PK and SK equal Key)
	Add    map[string]int64 // OpUpdate: ADD to number attributes (absent counts as 0)
	Set    Item             // OpUpdate: SET attributes
	Remove []string         // OpUpdate: REMOVE attributes
	Conds  []Cond           // all must hold
}

// Table is the seam between the model and a backend: a small, typed subset of
// DynamoDB. Implementations are safe for concurrent use, and account every
// call, once, when it ends, to the accountant of its context (Account, in
// usage.go), failed calls included.
type Table interface {
	// Get returns the item with key k, or nil when it does not exist.
	Get(ctx context.Context, k Key) (Item, error)
	// BatchGet returns the items of keys, aligned with keys (nil where an
	// item does not exist). Any number of keys; the backend chunks them.
	BatchGet(ctx context.Context, keys []Key) ([]Item, error)
	// Query runs a key-condition query.
	Query(ctx context.Context, q Query) (QueryResult, error)
	// Write applies ops atomically (at most MaxWriteOps).
	Write(ctx context.Context, ops []Op) error
	// BatchPut writes whole items, not atomically as a group, for bulk loads.
	BatchPut(ctx context.Context, items []Item) error
	// Scan reads segment seg of total segments of the base table, a page at
	// a time: it returns up to limit items after startKey (nil: from the
	// start) and the key to continue from (nil when the segment is done).
	// Only rebuild-stats scans.
	Scan(ctx context.Context, seg, total int, startKey Item, limit int) ([]Item, Item, error)
	// Close releases the backend's resources.
	Close() error
}

// WriteCounter is implemented by a table through which every write to its
// data goes, and that counts them: the embedded store (one process holds
// its file). Writes grows after each write commits and before the write
// returns, so that a read begun after Writes returned n sees every write
// counted in n, and while Writes still returns n no write has returned
// since: the read is still current. A table that other processes write
// (DynamoDB) does not implement it.
type WriteCounter interface {
	Writes() uint64
}

// RoundReader is implemented by a table that reads several queries at once
// cheaper than one by one: the embedded store, in one read transaction. A
// merge reads each round of its partitions so. The results are aligned
// with qs, and each query is accounted as a call of its own.
type RoundReader interface {
	QueryRound(ctx context.Context, qs []Query) ([]QueryResult, error)
}

// MergeReader is implemented by a table that reads several partitions of
// one index as one k-way merge cheaper than partition by partition: the
// embedded store, which merges the index entries and reads only the items
// taken. QueryMerged runs qs, queries of one index in one direction, as
// one merge by sort value (ties by table key): it returns the first limit
// items of their union in that order, each in the result of the query
// that matched it (results aligned with qs, LastKey always nil, the
// queries' Limit ignored), and never stops between two items of equal sort
// value. bound is "" when nothing more matches any query; otherwise it is
// the sort value of the last item returned, and no query matches an item
// at or before it (in the queries' direction) that was not returned. Each
// query is accounted as a call of its own, with the items it returned.
// Merges reports whether it reads the partitions of index so; the
// caller reads the others query by query.
type MergeReader interface {
	Merges(index string) bool
	QueryMerged(ctx context.Context, qs []Query, limit int) (res []QueryResult, bound string, err error)
}
